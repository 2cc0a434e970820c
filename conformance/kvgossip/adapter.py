"""The K/V Gossip operations of the built-in adapter, answered by `swarmconf.spec.kvgossip`
(the K/V node judges records with the same functions, so `spec` and `reference` share them)."""

from __future__ import annotations

from collections.abc import Mapping

from swarmconf.conformance.adapter import Refusal
from swarmconf.conformance.registry import Handler, Request, Result

from .ops import OPS


def answer(request: Request) -> Result:
    """The spec's answer to a `kv_*` request; a refusal raises `Refusal` with its state."""
    from .runner import run  # only K/V runs pay for the spec's import

    outcome = run(request["op"], request, request)
    if outcome.reason is not None:
        raise Refusal(outcome.reason, outcome.expected)
    return outcome.expected or {}


def handlers(impl: str) -> Mapping[str, Handler]:
    """The K/V handler table of the built-in adapter (the same over `spec` and `reference`)."""
    return dict.fromkeys(OPS, answer)
