"""What a client says of itself in `hello`: the answer checked, and the cases it makes not
applicable.

The answer carries its fields at its top level, beside `id` (PROTOCOL.md): `name`, `language`
and `protocol`, and optionally `version`, `ops`, `profiles`, `quirks`, `limits` and `partial`.
An answer without `protocol` or with another one, with its fields inside `result`, or with a
declaration of the wrong shape cannot be run against (`check_hello` raises `ClientFailure`);
a missing name or language, and fields or names no design knows, are noted and ignored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from swarmconf.conformance.client import ClientFailure, Message
from swarmconf.conformance.protocol import PROTOCOL_VERSION
from swarmconf.conformance.registry import all_ops, all_profiles
from swarmconf.conformance.vectors import FLAG_PATTERN, Case

FIELDS = (
    "name",
    "version",
    "language",
    "protocol",
    "ops",
    "profiles",
    "quirks",
    "limits",
    "partial",
)
"""The fields of a `hello` answer, besides `id`."""
NAME_LISTS = ("ops", "profiles", "quirks", "limits")
FLAG = re.compile(FLAG_PATTERN)


@dataclass(frozen=True)
class Declarations:
    """What a client says of itself in `hello`: unlisted means unrestricted (ops, profiles)."""

    ops: frozenset[str] | None = None
    profiles: frozenset[str] | None = None
    quirks: frozenset[str] = frozenset()
    limits: frozenset[str] = frozenset()
    """What the client's typed API cannot express (flags' `limit`)."""
    partial: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Operations supported in part: for each, the request fields and the flags of the cases
    it cannot take."""

    @classmethod
    def of(cls, hello: Message) -> Declarations:
        def names(key: str) -> frozenset[str] | None:
            value = hello.get(key)
            return frozenset(map(str, value)) if isinstance(value, list) else None

        partial = hello.get("partial")
        return cls(
            names("ops"),
            names("profiles"),
            names("quirks") or frozenset(),
            names("limits") or frozenset(),
            {
                str(op): frozenset(map(str, lacking))
                for op, lacking in (partial.items() if isinstance(partial, dict) else ())
                if isinstance(lacking, list)
            },
        )

    def not_applicable(self, case: Case) -> str:
        """Why the client cannot take the case, or "" when it can."""
        if self.ops is not None and case.op not in self.ops:
            return f"client does not support op {case.op!r}"
        lacking = self.partial.get(case.op, frozenset())
        needed = sorted(item for item in lacking if item in case.request or item in case.flags)
        if needed:
            return f"client supports {case.op!r} only without {', '.join(needed)}"
        profile = case.request.get("profile")
        if self.profiles is not None and profile in all_profiles() and profile not in self.profiles:
            return f"client does not support profile {profile!r}"
        beyond = sorted(self.limits.intersection(case.limits))
        if beyond:
            return f"client's API cannot express this input ({', '.join(beyond)})"
        return ""

    def excuses(self, case: Case) -> bool:
        """True when the case's quirks are all declared: its `deployed` behaviour is acceptable."""
        return bool(case.quirks) and case.deployed is not None and self.quirks >= set(case.quirks)


def check_hello(hello: Message) -> list[str]:
    """Notes on a `hello` answer the runner can work with; `ClientFailure` for one it cannot."""
    inside = hello.get("result")
    misplaced = [name for name in FIELDS if isinstance(inside, dict) and name in inside]
    if misplaced:
        raise ClientFailure(
            "answered hello with its fields inside `result`",
            f"{', '.join(misplaced)} belong at the top level of the answer, beside `id`",
        )
    if "protocol" not in hello:
        raise ClientFailure(
            "answered hello without `protocol`",
            f'the answer must say "protocol": {PROTOCOL_VERSION}; it was {shown(hello)}',
        )
    if hello["protocol"] != PROTOCOL_VERSION:
        raise ClientFailure(
            "speaks another protocol",
            f"hello says protocol {shown(hello['protocol'])}; this runner speaks"
            f" {PROTOCOL_VERSION}",
        )
    for name in NAME_LISTS:
        if name in hello and not is_names(hello[name]):
            raise malformed(f"`{name}` is not a list of strings: {shown(hello[name])}")
    check_partial(hello)
    return notes(hello)


def check_partial(hello: Message) -> None:
    """`partial` maps operations the client lists to request fields or flags."""
    partial = hello.get("partial", {})
    if not isinstance(partial, dict) or not all(map(is_names, partial.values())):
        raise malformed(f"`partial` is not an object of lists of strings: {shown(partial)}")
    listed = hello.get("ops")
    for op, lacking in partial.items():
        declared = all_ops().get(op)
        if declared is None or (listed is not None and op not in listed):
            raise malformed(f"`partial` names {op!r}, which is not an operation `ops` lists")
        fields = declared.request_kinds()
        unknown = [item for item in lacking if item not in fields and not FLAG.match(item)]
        if unknown:
            raise malformed(
                f"`partial` of {op!r}: {', '.join(unknown)} is neither a request field of"
                " the operation nor a flag"
            )


def notes(hello: Message) -> list[str]:
    """One line for each thing in `hello` the runner ignores or misses."""
    found = []
    missing = [name for name in ("name", "language") if name not in hello]
    if missing:
        found.append(f"hello has no {', '.join(missing)}")
    unknown = sorted(set(hello) - {"id", *FIELDS})
    if unknown:
        found.append(f"hello fields this runner does not know, ignored: {', '.join(unknown)}")
    strangers = sorted(set(hello.get("ops", [])) - set(all_ops()))
    if strangers:
        found.append(f"hello lists operations no design has, ignored: {', '.join(strangers)}")
    strangers = sorted(set(hello.get("profiles", [])) - set(all_profiles()))
    if strangers:
        found.append(f"hello lists profiles no design has, ignored: {', '.join(strangers)}")
    return found


def is_names(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def malformed(detail: str) -> ClientFailure:
    return ClientFailure("answered hello with a malformed declaration", detail)


def shown(value: Any) -> str:
    """A JSON value as one line of at most 200 characters."""
    text = json.dumps(value)
    return text if len(text) <= 200 else text[:197] + "..."
