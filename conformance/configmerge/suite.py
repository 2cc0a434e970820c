"""Building one vector file: cases are described by their input; the spec computes the answer.

`Suite.add` sends the case's request to the built-in adapter over `swarmconf.spec.configmerge` (the
oracle) and records its answer as the expected result or reason. It asks the deployed client's
emulation too: where a quirk (X1..X10) makes that client differ, the case gets the quirk's flag
and rule, and `deployed` says what the deployed client does. A case may state what it is
meant to show (`expect`: "valid" or a reason code); if the spec answers otherwise the
generator stops, because either the case or the spec is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from swarmconf.conformance.adapter import Adapter, builtin_adapter
from swarmconf.conformance.configmerge.deployed import DeployedAdapter
from swarmconf.conformance.configmerge.flags import FLAGS, QUIRK_FLAGS
from swarmconf.conformance.protocol import HEADER_DEFAULTS, OPS
from swarmconf.conformance.schema import schema_file_name
from swarmconf.conformance.vectorfile import SCHEMA_VERSION

_ORACLE: list[Adapter] = []
_DEPLOYED: list[DeployedAdapter] = []


def oracle() -> Adapter:
    if not _ORACLE:
        _ORACLE.append(builtin_adapter("spec"))
    return _ORACLE[0]


def deployed_client() -> DeployedAdapter:
    """The deployed client's emulation: which quirks make it differ on a case, and how."""
    if not _DEPLOYED:
        _DEPLOYED.append(DeployedAdapter())
    return _DEPLOYED[0]


class GeneratorMismatch(AssertionError):
    """The spec's answer to a case is not what the case was written to show."""


@dataclass
class Suite:
    """The cases of one category, in the order added; tcIds are assigned on `document()`."""

    category: str
    description: str
    lag: int = 5
    profile: str | None = None
    cases: list[dict[str, Any]] = field(default_factory=list)
    names: set[str] = field(default_factory=set)

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
        if name in self.names:
            raise ValueError(f"{self.category}: duplicate case name {name}")
        unknown = [flag for flag in flags if flag not in FLAGS]
        if unknown or set(inputs) - set(OPS[op].request_kinds()):
            raise ValueError(f"{self.category}/{name}: unknown flags {unknown} or input fields")
        request: dict[str, Any] = {"op": op}
        defaults = {"lag": self.lag, "profile": self.profile}
        for key in HEADER_DEFAULTS:
            if key in OPS[op].request_kinds() and defaults[key] is not None:
                request[key] = defaults[key]
        request.update(inputs)
        answer = oracle().handle(request)
        if any(FLAGS[flag].quirk for flag in flags):
            raise ValueError(f"{self.category}/{name}: quirk flags come from the emulation")
        behaviour = deployed_client().behaviour(request, answer)
        if behaviour is not None:
            flags = [*flags, *(QUIRK_FLAGS[quirk] for quirk in behaviour.quirks)]
            rules = [*rules, *behaviour.quirks]
        case: dict[str, Any] = {
            "name": name,
            "comment": comment,
            "flags": sorted(set(flags)),
            "rules": sorted(set(rules), key=_rule_order),
            "op": op,
            "input": inputs,
        }
        if "result" in answer:
            case["result"] = "acceptable" if acceptable else "valid"
            case["expected"] = answer["result"]
            outcome = "valid"
        elif "reason" in answer:
            case["result"] = "invalid"
            case["reason"] = outcome = answer["reason"]
        else:
            raise GeneratorMismatch(f"{self.category}/{name}: the spec answered {answer}")
        if behaviour is not None:
            case["deployed"] = behaviour.deployed
        if expect is not None and expect != outcome:
            raise GeneratorMismatch(
                f"{self.category}/{name}: meant to be {expect}, the spec says {outcome}"
                f"\n  request: {request}\n  answer: {answer}"
            )
        self.names.add(name)
        self.cases.append(case)
        return answer

    def document(self) -> dict[str, Any]:
        used = sorted({flag for case in self.cases for flag in case["flags"]})
        cases = [{"tcId": index, **case} for index, case in enumerate(self.cases, start=1)]
        return {
            "schema": schema_file_name(self.category),
            "header": {
                "schemaVersion": SCHEMA_VERSION,
                "category": self.category,
                "description": self.description,
                "lag": self.lag,
                "profile": self.profile,
                "flags": {flag: FLAGS[flag].as_json() for flag in used},
            },
            "numberOfTests": len(cases),
            "testCases": cases,
        }

    def ops(self) -> list[str]:
        return sorted({case["op"] for case in self.cases})


def _rule_order(rule: str) -> tuple[str, int]:
    return (rule[0], int(rule[1:]))
