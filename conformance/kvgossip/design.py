"""The K/V Gossip design's registration with the conformance role (entry point
`swarmconf.conformance`: `kvgossip`)."""

from __future__ import annotations

from collections.abc import Mapping

from swarmconf.conformance.registry import Design, Handler
from swarmconf.conformance.vectors import Suite
from swarmconf.spec.kvgossip.reasons import KvReason

from . import NAME, PREFIX
from .ops import OPS


def suites() -> list[Suite]:
    from .suites import build_all

    return list(build_all().values())


def handlers(impl: str) -> Mapping[str, Handler]:
    from .adapter import handlers

    return handlers(impl)


def rules() -> list[str]:
    """The rule ids of `swarmconf.spec.kvgossip.rules`, in the registry's order."""
    from swarmconf.spec.kvgossip.rules import RULES

    return list(RULES)


DESIGN = Design(
    name=NAME,
    prefix=PREFIX,
    ops=OPS,
    suites=suites,
    handlers=handlers,
    reasons=tuple(reason.value for reason in KvReason),
    rules=rules,
    unreachable={
        KvReason.VALUE_TOO_LARGE.value: "a value over the 1 MiB cap would put over 2 MiB of hex"
        " into one case",
        KvReason.FUTURE_TIMESTAMP.value: "not a refusal: `kv_apply` gives it as the reason of a"
        " deferred outcome (store)",
        KvReason.STALE.value: "not a refusal: `kv_apply` gives it as the reason of a stale"
        " outcome (store)",
        KvReason.SESSION_FRAME_TOO_LARGE.value: "a frame over the 4 MiB cap would put over"
        " 8 MiB of hex into one case",
    },
)
