"""One way to write a vector case, for every design.

A suite module says what each case is meant to show; the design's spec says what the answer is:

    suite = SuiteBuilder(VOCABULARY, "grants", "Grant validity ...", FLAGS)
    grants = suite.group("kv_grant_for_key", rootKey=ROOT)
    grants.case(
        "serves-matching-key",
        "root -> alice /a/**, key /a/x.",
        flags=["Valid"],
        input={"grant": ..., "key": "/a/x", "ts": T0, "revokedIds": []},
        expect="valid",
        rules=["notes:2.2"],
    )

A hex field of `input` may be a recipe (`swarmconf.conformance.recipes`): the spec is asked
with its bytes and the case keeps the recipe; an expected byte string longer than 64 KiB is
written as its digest. `expect` is `"valid"` or the reason code the case was written to show;
a strict builder stops when the spec answers otherwise, because either the case or the spec is
wrong (a builder regenerating under a mutant is not strict, and records what it is told).
The design's `Vocabulary` names the operations' schema parts, the group fields and their
defaults, the rule pattern, and how a request is answered; flags a design finds by itself (a
quirk of a deployed client, a limit of a typed API) come with the answer and are never given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from swarmconf.conformance.recipes import compact, expand_fields
from swarmconf.conformance.vectors import Flag, Group, GroupKind, Json, Suite

VALID = "valid"


@dataclass(frozen=True)
class Answer:
    """A design's spec answer to one request, and what it adds to the case."""

    result: str
    """`valid` or `invalid`."""
    expected: Json | None = None
    reason: str | None = None
    flags: tuple[str, ...] = ()
    """Flags found by the design, not given by the case (quirks, typed-API limits)."""
    rules: tuple[str, ...] = ()
    """Rules the answer exercises beyond the case's own."""
    deployed: Json | None = None
    """What a deployed client does instead, on a case one of its quirks makes differ."""

    @property
    def outcome(self) -> str:
        """What the case shows: `valid`, or the reason code of the refusal."""
        return VALID if self.result == VALID else str(self.reason)

    def field(self, name: str) -> Any:
        """A field of a valid answer's result, for cases that build on an earlier answer."""
        if self.expected is None:
            raise GeneratorMismatch(f"no result to take `{name}` from: {self}")
        return self.expected[name]


@dataclass(frozen=True)
class Vocabulary:
    """What one design's suites are written in: its operations and how the spec answers."""

    design: str
    prefix: str
    kinds: Mapping[str, GroupKind]
    """The schema parts of each operation, its group fields among them."""
    rule_pattern: str
    answer: Callable[[Json, list[str]], Answer]
    """The spec's answer to a request (`op` and every field) given the case's flags."""
    reasons: tuple[str, ...] = ()
    """The reason codes its schemas allow (any upper-case code when empty)."""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """Values of group fields a case may leave out."""
    rule_order: Callable[[str], Any] | None = None
    """Where set, a case's flags and rules are sorted (rules by this key) and deduplicated;
    otherwise they are written as given."""


class GeneratorMismatch(AssertionError):
    """The spec's answer to a case is not what the case was written to show."""


class SuiteBuilder(Suite):
    """The cases of one vector file, each answered by the design's spec."""

    def __init__(
        self,
        vocabulary: Vocabulary,
        name: str,
        description: str,
        flags: Mapping[str, Flag],
        *,
        defaults: Mapping[str, Any] | None = None,
        strict: bool = True,
    ) -> None:
        super().__init__(
            vocabulary.design,
            name,
            description,
            dict(flags),
            dict(vocabulary.kinds),
            rule_pattern=vocabulary.rule_pattern,
            reasons=vocabulary.reasons,
            prefix=vocabulary.prefix,
        )
        self.vocabulary = vocabulary
        self.defaults = {**vocabulary.defaults, **(defaults or {})}
        self.strict = strict

    def group(self, type_: str, **params: Any) -> BoundGroup:  # type: ignore[override]
        """The group of `type_` with these shared fields, created now if new."""
        return BoundGroup(self, super().group(type_, **params))

    def case(  # type: ignore[override]
        self,
        name: str,
        comment: str,
        *,
        op: str,
        input: Json,
        expect: str,
        flags: Iterable[str] = (),
        rules: Iterable[str] = (),
        acceptable: bool = False,
    ) -> Answer:
        """Add a case of `op`; its group fields are taken out of `input` (or the defaults).

        Return the spec's answer. `acceptable` marks a valid answer a client may refuse.
        """
        kind = self.kinds.get(op)
        if kind is None:
            raise ValueError(f"{self.id}/{name}: no operation {op}")
        known = set(kind.params) | set(kind.input["properties"])
        if set(input) - known:
            raise ValueError(f"{self.id}/{name}: unknown input fields {sorted(set(input) - known)}")
        given = list(flags)
        if any(self._found(flag) for flag in given):
            raise ValueError(f"{self.id}/{name}: quirk and limit flags are found, not given")
        params = {key: input.get(key, self.defaults.get(key)) for key in kind.params}
        rest = {key: value for key, value in input.items() if key not in kind.params}
        answer = self.vocabulary.answer(expand_fields({"op": op, **rest, **params}), given)
        if self.strict and answer.outcome != expect:
            raise GeneratorMismatch(
                f"{self.id}/{name}: meant to be {expect}, the spec says {answer.outcome}"
                f"\n  request: { ({'op': op, **input}) }\n  answer: {answer}"
            )
        all_flags = [*given, *answer.flags]
        all_rules = [*rules, *answer.rules]
        if self.vocabulary.rule_order is not None:
            all_flags = sorted(set(all_flags))
            all_rules = sorted(set(all_rules), key=self.vocabulary.rule_order)
        valid = answer.result == VALID
        super().case(
            Suite.group(self, op, **params),
            name,
            comment,
            flags=all_flags,
            rules=all_rules,
            input=rest,
            result=("acceptable" if acceptable else VALID) if valid else answer.result,
            expected=compact(answer.expected),
            reason=answer.reason,
            deployed=compact(answer.deployed),
        )
        return answer

    def _found(self, flag: str) -> bool:
        """Whether `flag` is one a design finds (a quirk or a limit), never one a case gives."""
        note = self.flags.get(flag)
        return note is not None and bool(note.quirk or note.limit)


@dataclass(frozen=True)
class BoundGroup:
    """A group of one suite: its cases share the operation and the group's fields."""

    suite: SuiteBuilder
    group: Group

    @property
    def tests(self) -> list[Json]:
        return self.group.tests

    def case(
        self,
        name: str,
        comment: str,
        *,
        input: Json,
        expect: str,
        flags: Iterable[str] = (),
        rules: Iterable[str] = (),
        acceptable: bool = False,
    ) -> Answer:
        """Add a case to this group (see `SuiteBuilder.case`)."""
        return self.suite.case(
            name,
            comment,
            op=self.group.type,
            input={**input, **self.group.params},
            expect=expect,
            flags=flags,
            rules=rules,
            acceptable=acceptable,
        )
