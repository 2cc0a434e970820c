"""Building one vector file: cases are described by their input; the spec computes the answer.

`Suite.add` sends the case's request to the built-in adapter over `swarmconf.spec.configmerge` (the
oracle) and records its answer as the expected result or reason. It asks the deployed client's
emulation too: where a quirk (X1..X14) makes that client differ, the case gets the quirk's flag
and rule, and `deployed` says what the deployed client does. A case may state what it is
meant to show (`expect`: "valid" or a reason code); if the spec answers otherwise the
generator stops, because either the case or the spec is wrong.
"""

from __future__ import annotations

from typing import Any

from swarmconf.conformance import btcodec, vectors
from swarmconf.conformance.configmerge import NAME, PREFIX
from swarmconf.conformance.configmerge.adapter import ApiAdapter, api_adapter
from swarmconf.conformance.configmerge.deployed import DeployedAdapter
from swarmconf.conformance.configmerge.flags import FLAGS, QUIRK_FLAGS
from swarmconf.conformance.configmerge.ops import HOISTED, OPS
from swarmconf.spec.configmerge.bt import INT64_MAX, INT64_MIN
from swarmconf.spec.configmerge.reasons import PayloadReason, Reason

RULE_PATTERN = "^(D(1[0-9]|2[0-7]|[1-9])|X(1[0-4]|[1-9]))$"
"""A config-merge case's rules: the decisions D1..D27 and the deployed client's quirks X1..X14."""


def _kind(op: str) -> vectors.GroupKind:
    """The schema parts of a config-merge op, its lag and profile hoisted into the group."""
    spec = OPS[op]
    request = {name: KIND_SCHEMAS[kind] for name, kind in spec.request_kinds().items()}
    params = {name: request.pop(name) for name in HOISTED if name in request}
    return vectors.GroupKind(
        params=params,
        input=vectors.obj(request, optional=spec.optional),
        expected=vectors.obj({name: KIND_SCHEMAS[kind] for name, kind in spec.result.items()}),
    )


KIND_SCHEMAS: dict[str, vectors.Json] = {
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "hex": vectors.HEX,
    "hex?": {"anyOf": [vectors.HEX, {"type": "null"}]},
    "bt": vectors.HEX,
    "btlist": vectors.hexlist(),
    "hexlist": vectors.hexlist(),
}
KINDS = {op: _kind(op) for op in OPS}
REASONS = [reason.value for reason in [*Reason, *PayloadReason]]

_ORACLE: list[ApiAdapter] = []
_DEPLOYED: list[DeployedAdapter] = []


def oracle() -> ApiAdapter:
    if not _ORACLE:
        _ORACLE.append(api_adapter("spec"))
    return _ORACLE[0]


def deployed_client() -> DeployedAdapter:
    """The deployed client's emulation: which quirks make it differ on a case, and how."""
    if not _DEPLOYED:
        _DEPLOYED.append(DeployedAdapter())
    return _DEPLOYED[0]


class GeneratorMismatch(AssertionError):
    """The spec's answer to a case is not what the case was written to show."""


class Suite(vectors.Suite):
    """The cases of one config-merge suite; `lag` and `profile` fill requests that omit them."""

    def __init__(
        self, name: str, description: str, lag: int = 5, profile: str | None = None
    ) -> None:
        super().__init__(
            NAME,
            name,
            description,
            FLAGS,
            KINDS,
            rule_pattern=RULE_PATTERN,
            reasons=REASONS,
            prefix=PREFIX,
        )
        self.lag = lag
        self.profile = profile

    def add(
        self,
        name: str,
        comment: str,
        op: str,
        inputs: dict[str, Any],
        *,
        flags: list[str],
        rules: list[str],
        expect: str | None = None,
        acceptable: bool = False,
    ) -> dict[str, Any]:
        """Add a case; return the spec's answer (`result` or `reason`)."""
        if set(inputs) - set(OPS[op].request_kinds()):
            raise ValueError(f"{self.id}/{name}: unknown input fields")
        defaults = {"lag": self.lag, "profile": self.profile}
        shared = {name: inputs.get(name, defaults[name]) for name in KINDS[op].params}
        request: dict[str, Any] = {"op": op, **inputs, **shared}
        answer = oracle().handle(request)
        if any(FLAGS[flag].quirk or FLAGS[flag].limit for flag in flags if flag in FLAGS):
            raise ValueError(f"{self.id}/{name}: quirk and limit flags are found, not given")
        flags = [*flags, *typed_limit_flags(inputs)]
        behaviour = deployed_client().behaviour(request, answer)
        if behaviour is not None:
            flags = [*flags, *(QUIRK_FLAGS[quirk] for quirk in behaviour.quirks)]
            rules = [*rules, *behaviour.quirks]
        if op == "merge" and "result" in answer:
            rules = [*rules, "D27"]  # the answer's `obsolete`
        if "result" in answer:
            result, expected, reason, outcome = (
                "acceptable" if acceptable else "valid",
                answer["result"],
                None,
                "valid",
            )
        elif "reason" in answer:
            result, expected, reason = "invalid", None, answer["reason"]
            outcome = reason
        else:
            raise GeneratorMismatch(f"{self.id}/{name}: the spec answered {answer}")
        if expect is not None and expect != outcome:
            raise GeneratorMismatch(
                f"{self.id}/{name}: meant to be {expect}, the spec says {outcome}"
                f"\n  request: {request}\n  answer: {answer}"
            )
        self.case(
            self.group(op, **shared),
            name,
            comment,
            flags=sorted(set(flags)),
            rules=sorted(set(rules), key=_rule_order),
            input={key: value for key, value in inputs.items() if key not in shared},
            result=result,
            expected=expected,
            reason=reason,
            deployed=None if behaviour is None else behaviour.deployed,
        )
        return answer


DATA_FIELDS = ("data", "old", "new")
"""Request fields a client builds through its API rather than reads from bytes."""


def typed_limit_flags(inputs: dict[str, Any]) -> list[str]:
    """The flags of what the case's data asks of a typed API: an integer outside signed 64
    bits, a set holding a list or a dict (`API_LIMIT` flags, declared in `hello`'s `limits`)."""
    values = [btcodec.decode(bytes.fromhex(inputs[name])) for name in DATA_FIELDS if name in inputs]
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


def _rule_order(rule: str) -> tuple[str, int]:
    return (rule[0], int(rule[1:]))
