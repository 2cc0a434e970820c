"""The config-merge design's registration with the conformance role (entry point
`swarmconf.conformance`: `configmerge`)."""

from __future__ import annotations

from collections.abc import Mapping

from swarmconf.conformance.configmerge import NAME, PREFIX
from swarmconf.conformance.configmerge.ops import OPS
from swarmconf.conformance.registry import Design, Handler
from swarmconf.conformance.vectors import Suite
from swarmconf.spec.configmerge.encryption import PROFILES
from swarmconf.spec.configmerge.reasons import PayloadReason, Reason

QUIRKS = [f"X{n}" for n in range(1, 21)]
"""The deployed client's quirks X1..X20, rules a case cites where that client differs."""


def suites() -> list[Suite]:
    from swarmconf.conformance.configmerge.suites import build_suites

    return build_suites()


def handlers(impl: str) -> Mapping[str, Handler]:
    from swarmconf.conformance.configmerge.adapter import handlers

    return handlers(impl)


def rules() -> list[str]:
    """The decisions of the spec's rule registry in order, then the deployed client's quirks."""
    from swarmconf.spec.configmerge.rules import CLIENT_RULES, PAYLOAD_RULES, RULES

    decisions = [*RULES, *PAYLOAD_RULES, *CLIENT_RULES]
    return sorted(decisions, key=lambda rule: int(rule[1:])) + QUIRKS


DESIGN = Design(
    name=NAME,
    prefix=PREFIX,
    ops=OPS,
    suites=suites,
    handlers=handlers,
    reasons=tuple(reason.value for reason in [*Reason, *PayloadReason]),
    rules=rules,
    unreachable={
        Reason.INPUT_TOO_LARGE.value: "the API contract sets no input size limit; the"
        " acceptable cases serialization/hash-large-message-* allow a client with a configured"
        " maximum to report it",
        "PAYLOAD_TOO_LARGE on joined parts": "parts whose chunks join to over 5,000,000 bytes are"
        " at least 66 encrypted blobs (10 MB of hex), and no recipe expresses ciphertext: the"
        " payload limits test reads exactly 5,000,000 joined bytes and refuses one more on the"
        " spec and the reference; `wrap` reaches PAYLOAD_TOO_LARGE by recipe",
        PayloadReason.PUSH_TOO_LARGE.value: "only a client that does not split refuses a push"
        " (X11): the payload suite's deployed answers show it",
        PayloadReason.PAYLOAD_MULTIPART_UNSUPPORTED.value: "only a client that does not join"
        " skips parts (X11): the payload suite's deployed answers show it",
    },
    profiles=tuple(PROFILES),
)
