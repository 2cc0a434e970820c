"""What config-merge cases are written in: its operations' schema parts, and the spec's answers.

A case's answer comes from the built-in adapter over `swarmconf.spec.configmerge` (the oracle).
The deployed client's emulation is asked too: where a quirk (X1..X20) makes that client differ,
the case gets the quirk's flag and rule, and `deployed` says what that client does. Data that a
typed API cannot express (an integer outside 64 bits, a container in a set) gets its limit flag.
"""

from __future__ import annotations

import functools
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.builder import Answer, GeneratorMismatch, SuiteBuilder, Vocabulary
from swarmconf.conformance.configmerge import NAME, PREFIX
from swarmconf.conformance.configmerge.adapter import ApiAdapter, api_adapter
from swarmconf.conformance.configmerge.deployed import DeployedAdapter
from swarmconf.conformance.configmerge.flags import FLAGS, QUIRK_FLAGS
from swarmconf.conformance.configmerge.ops import HOISTED, OPS
from swarmconf.conformance.fields import SchemaTable
from swarmconf.conformance.vectors import HEX, Json, hexlist
from swarmconf.spec.configmerge.bt import INT64_MAX, INT64_MIN
from swarmconf.spec.configmerge.reasons import PayloadReason, Reason

RULE_PATTERN = "^(D(1[0-9]|2[0-9]|3[0-2]|[1-9])|X(20|1[0-9]|[1-9]))$"
"""A config-merge case's rules: the decisions D1..D32 and the deployed client's quirks X1..X20."""

SCHEMAS = SchemaTable(
    by_kind={
        "int": {"type": "integer"},
        "bool": {"type": "boolean"},
        "str": {"type": "string"},
        "hex": HEX,
        "hex?": {"anyOf": [HEX, {"type": "null"}]},
        "bt": HEX,
        "btlist": hexlist(),
        "hexlist": hexlist(),
    },
    hoisted=HOISTED,
)
KINDS = SCHEMAS.kinds(OPS)
REASONS = tuple(reason.value for reason in [*Reason, *PayloadReason])


@functools.cache
def oracle() -> ApiAdapter:
    return api_adapter("spec")


@functools.cache
def deployed_client() -> DeployedAdapter:
    """The deployed client's emulation: which quirks make it differ on a case, and how."""
    return DeployedAdapter()


DATA_FIELDS = ("data", "old", "new")
"""Request fields a client builds through its API rather than reads from bytes."""


def typed_limit_flags(request: Json) -> list[str]:
    """The flags of what the case's data asks of a typed API: an integer outside signed 64
    bits, a set holding a list or a dict (`API_LIMIT` flags, declared in `hello`'s `limits`)."""
    values = [btcodec.decode(bytes.fromhex(request[f])) for f in DATA_FIELDS if f in request]
    found: set[str] = set()
    while values:
        value = values.pop()
        if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
            found.add("WideDataInteger")
        elif isinstance(value, dict):
            values.extend(value.values())
        elif isinstance(value, list):
            if any(isinstance(item, list | dict) for item in value):
                found.add("ContainerInSet")
            values.extend(value)
    return sorted(found)


def answer(request: Json, flags: list[str]) -> Answer:
    """The spec's answer to `request`, with the flags and rules the deployed client adds."""
    reply = oracle().handle(request)
    found = typed_limit_flags(request)
    rules: list[str] = []
    behaviour = deployed_client().behaviour(request, reply)
    deployed = None
    if behaviour is not None:
        found += [QUIRK_FLAGS[quirk] for quirk in behaviour.quirks]
        rules += behaviour.quirks
        deployed = behaviour.deployed
    if "result" in reply:
        if request["op"] == "merge":
            rules.append("D27")  # the answer's `obsolete`
        return Answer("valid", reply["result"], None, tuple(found), tuple(rules), deployed)
    if "reason" in reply:
        return Answer("invalid", None, reply["reason"], tuple(found), tuple(rules), deployed)
    raise GeneratorMismatch(f"the spec answered {reply} to {request}")


def rule_order(rule: str) -> tuple[str, int]:
    return (rule[0], int(rule[1:]))


VOCABULARY = Vocabulary(
    design=NAME,
    prefix=PREFIX,
    kinds=KINDS,
    rule_pattern=RULE_PATTERN,
    answer=answer,
    reasons=REASONS,
    defaults={"lag": 5, "profile": None},
    rule_order=rule_order,
)


def new_suite(name: str, description: str, **defaults: Any) -> SuiteBuilder:
    """A config-merge suite; `lag` (5) and `profile` (none) fill cases that leave them out."""
    return SuiteBuilder(VOCABULARY, name, description, FLAGS, defaults=defaults)
