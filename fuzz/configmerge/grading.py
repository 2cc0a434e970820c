"""A client's `client` script graded as the conformance runner grades a `client_steps` case.

Where a client played through an adapter answers a script otherwise than the spec's client of
its profile (C1), the deployed client's emulation is asked what the deployed client answers and
which of its quirks made it differ (`DeployedAdapter.behaviour`, as the vector generator asks
it for every case). The difference is acceptable, and counted under those quirks, where the
client answered as the deployed client does and declares every one of them in its `hello`: the
grade a vector of the same script gets from the runner (`runner.judge`).
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from typing import Any

from swarmconf.conformance.configmerge.vocabulary import deployed_client, oracle
from swarmconf.conformance.runner import behaves_as_deployed


@functools.cache
def _deployed() -> Any:
    return deployed_client()


def deployed_quirks(
    request: dict[str, Any], answer: dict[str, Any], declared: Collection[str]
) -> tuple[str, ...] | None:
    """The quirks that explain `answer` (the adapter's reply to the `client` request
    `request`): those the deployed client met, where the answer is the deployed client's and
    `declared` holds them all; None where no declared quirk explains it."""
    found = _deployed().behaviour(request, oracle().handle(request))
    if found is None or not set(found.quirks) <= set(declared):
        return None
    if not behaves_as_deployed("client", found.deployed, answer):
        return None
    return tuple(found.quirks)
