"""The design text's examples, exactly as examples.md pins them (lag 5, no signatures).

Every case names its example and the corrections D2..D6 that apply; every hash below is
copied from examples.md and checked against the spec's answer while generating.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.suite import GeneratorMismatch, Suite
from swarmconf.conformance.configmerge.values import data_hex
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge import examples as ex

HASHES = {
    "119": "43094f68c1faa37eff79e1c2f3973ffd5f9d6423b00ccda306fc6e7dac5f0c44",
    "120": "e3a237f91014d31e4d30569c4a8bfcd72157804f99b8732c611c48bf126432b5",
    "121": "1a7f602055124deaf21175ef3f32983dee7c9de570e5d9c9a0bbc2db71dcb97f",
    "122": "46560604fe352101bb869435260d7100ccfe007be5f741c7e96303f02f394e8a",
    "123": "d9398c597b058ac7e28e3febb76ed68eb8c5b6c369610562ab5f2b596775d73c",
    "123-incremented": "3ea36410cf7086ce816eb193b0c94e88632abfb75771d82f8ddb3a909124c580",
    "124": "8b73f316178765b9b3b37168e865c84bb5a78610cbb59b84d0fa4d3b4b3c102b",
    "125a": "80f229c3667de6d0fa6f96b53118e097fbda82db3ca1aea221a3db91ea9c45fb",
    "125b": "ab12f0efe9a9ed00db6b17b44ae0ff36b9f49094077fb114f415522f2a0e98de",
    "126": "4880a507551dc04b578482b1f4d0872f022c96d04b9cd5f711d5616261e3f649",
    "126b": "6de3eb60b334acb357525709d10f3bc2616be98bcd6bc8c3d77a8a30f23173e1",
    "127-before-edit": "f1c31c8a7ceb83b6061a13849b6716b637e187cffe74402f8606a6b44f07ac0f",
    "127": "f589694ca0acf72923c3bcd84c1c415809227044fc194ed44c6b06109472aaf8",
}

ORDINARY = "Ordinary update"
LARGE = "Large, but still ordinary, update"
SIMPLE = "Simple conflict resolution"
COMPLEX = "Complex conflict resolution"


def _data(message: bytes) -> Any:
    return spec.parse(message).data


class Examples:
    """The design_examples suite: each case names its example and the corrections it needs."""

    def __init__(self) -> None:
        self.suite = Suite(
            "design_examples",
            "The design text's examples (section Examples) as examples.md pins them, with the"
            " corrections D2..D6; lag 5, no signatures.",
        )

    def add(
        self,
        name: str,
        example: str,
        corrections: list[str],
        comment: str,
        op: str,
        inputs: dict[str, Any],
        fact: str | None = None,
        rules: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """Add the case; where examples.md pins its hash (`fact`), the spec must give it."""
        applied = ", ".join(corrections) if corrections else "no correction"
        answer = self.suite.add(
            name,
            f'example "{example}" ({applied}): {comment}',
            op,
            inputs,
            flags=["DesignTextExample"],
            rules=sorted({*corrections, *rules}, key=lambda r: int(r[1:])),
            expect="valid",
        )
        if fact is not None and answer["result"]["hash"] != HASHES[fact]:
            got = answer["result"]["hash"]
            raise GeneratorMismatch(f"{self.suite.id}/{name}: hash {got}, examples.md {fact}")
        return answer

    def edit(
        self,
        name: str,
        example: str,
        corrections: list[str],
        comment: str,
        parent: bytes,
        result: bytes,
        fact: str | None,
        rules: tuple[str, ...],
    ) -> None:
        """`parent` incremented and its data edited into `result`'s."""
        inputs = {"msg": parent.hex(), "data": data_hex(_data(result))}
        self.add(name, example, corrections, comment, "increment", inputs, fact, rules)

    def merge(
        self,
        name: str,
        example: str,
        corrections: list[str],
        comment: str,
        messages: list[bytes],
        fact: str,
        rules: tuple[str, ...],
    ) -> None:
        inputs = {"msgs": [m.hex() for m in messages]}
        self.add(name, example, corrections, comment, "merge", inputs, fact, rules)


case = Catalogue[Examples]()


# Ordinary update


@case
def m118_new(e: Examples) -> None:
    answer = e.add(
        "m118-new",
        ORDINARY,
        [],
        "m118: a new message with seqno 118 and the data the example starts from",
        "new",
        {"seqno": 118, "data": data_hex(_data(ex.m118()))},
        rules=("D12",),
    )
    if answer["result"]["msg"] != ex.m118().hex():
        raise GeneratorMismatch("design_examples/m118-new differs from examples.m118()")


@case
def m119_to_m122_increments(e: Examples) -> None:
    for seqno in range(119, 123):
        e.add(
            f"m{seqno}-increment",
            ORDINARY,
            [],
            f"m{seqno}: increment with no change",
            "increment",
            {"msg": ex.chain_to(seqno - 1).hex()},
            str(seqno),
            rules=("D1", "D13"),
        )


@case
def m123(e: Examples) -> None:
    e.edit(
        "m123-increment-and-edit",
        ORDINARY,
        ["D2"],
        "m123 sets int1 = 1, int2 = 2, removes int0, sets string1 to its own value (not in the"
        " diff)",
        ex.chain_to(122),
        ex.m123(),
        "123",
        ("D12", "D13"),
    )
    e.add(
        "m123-incremented-no-change",
        ORDINARY,
        [],
        "m123 incremented with no change: seqno 124 with entries 120..123 in `<`",
        "increment",
        {"msg": ex.m123().hex()},
        "123-incremented",
        rules=("D7", "D13"),
    )


# Large, but still ordinary, update


@case
def m124(e: Examples) -> None:
    e.edit(
        "m124-increment-and-edit",
        LARGE,
        ["D2"],
        "m124: the large update (nested {a: 1} per D2)",
        ex.m123(),
        ex.m124(),
        "124",
        ("D12", "D13"),
    )


# Simple conflict resolution


@case
def m125_forks(e: Examples) -> None:
    e.edit(
        "m125a-increment-and-edit",
        SIMPLE,
        [],
        "m125a removes dictB.foo",
        ex.m124(),
        ex.m125a(),
        "125a",
        ("D13",),
    )
    e.edit(
        "m125b-increment-and-edit",
        SIMPLE,
        [],
        "m125b sets int1 = 5",
        ex.m124(),
        ex.m125b(),
        "125b",
        ("D13",),
    )


@case
def m126_merges_in_any_order(e: Examples) -> None:
    merges = {
        "125a-125b": [ex.m125a(), ex.m125b()],
        "125b-125a": [ex.m125b(), ex.m125a()],
        "with-124": [ex.m124(), ex.m125b(), ex.m125a()],
        "with-120b": [ex.m125a(), ex.m120b(), ex.m125b()],
        "with-124-and-120b": [ex.m120b(), ex.m125b(), ex.m124(), ex.m125a()],
    }
    for name, messages in merges.items():
        comment = f"merging {name.replace('-', ', ')}: m126"
        e.merge(f"m126-merge-{name}", SIMPLE, [], comment, messages, "126", ("D14", "D15"))


@case
def m120b_stale(e: Examples) -> None:
    e.edit(
        "m120b-stale",
        SIMPLE,
        [],
        "120b: new at 118, incremented twice, `too old` set",
        _m119_empty(),
        ex.m120b(),
        None,
        ("D13",),
    )


# Complex conflict resolution


@case
def m124a(e: Examples) -> None:
    e.edit(
        "m124a-increment-and-edit",
        COMPLEX,
        ["D3"],
        "124a sets dictB.foo = 66 and dictB.answer = 42 (its diff is its whole change, D3)",
        ex.m123(),
        ex.m124a(),
        None,
        ("D13",),
    )


@case
def m126b_merge(e: Examples) -> None:
    e.merge(
        "m126b-merge",
        COMPLEX,
        ["D2", "D3", "D4"],
        "126b = merge {125b, 124a, 125a, m123, 120b}: m123 included, 120b too old; dictA.hello"
        " survives (D3), good keeps 99 (D4)",
        [ex.m125b(), ex.m124a(), ex.m125a(), ex.m123(), ex.m120b()],
        "126b",
        ("D14", "D15"),
    )


@case
def m127_merges(e: Examples) -> None:
    e.merge(
        "m127-merge-before-edit",
        COMPLEX,
        ["D2", "D5"],
        "merge {126a, 126b} before any edit: seqno 127 with an empty `=`",
        [ex.m126a(), ex.m126b()],
        "127-before-edit",
        ("D15",),
    )
    e.add(
        "m127-merge-and-edit",
        COMPLEX,
        ["D2", "D3", "D4", "D5", "D6"],
        "127: merge {126a, 126b} then add 789 to dictA.goodbye; `=` holds only that change (D6)",
        "merge",
        {"msgs": [ex.m126b().hex(), ex.m126a().hex()], "data": data_hex(_data(ex.m127()))},
        "127",
        rules=("D12", "D15"),
    )
    e.merge(
        "m127-absorbs-older",
        COMPLEX,
        ["D6"],
        "merge {127, 125a, 126b}: 127 back unchanged",
        [ex.m127(), ex.m125a(), ex.m126b()],
        "127",
        ("D14",),
    )


# Every published message parses.

PUBLISHED: dict[str, tuple[Callable[[], bytes], str, list[str]]] = {
    "m118": (ex.m118, ORDINARY, []),
    "m122": (lambda: ex.chain_to(122), ORDINARY, []),
    "m123": (ex.m123, ORDINARY, []),
    "m124": (ex.m124, LARGE, ["D2"]),
    "m124a": (ex.m124a, COMPLEX, ["D3"]),
    "m125a": (ex.m125a, SIMPLE, []),
    "m125b": (ex.m125b, SIMPLE, []),
    "m120b": (ex.m120b, SIMPLE, []),
    "m126a": (ex.m126a, SIMPLE, []),
    "m126b": (ex.m126b, COMPLEX, ["D2", "D3", "D4"]),
    "m127": (ex.m127, COMPLEX, ["D2", "D3", "D4", "D5", "D6"]),
}
"""Each published message, its example and the corrections it needs."""


@case
def published_messages_parse(e: Examples) -> None:
    for name, (message, example, corrections) in PUBLISHED.items():
        e.add(
            f"{name}-parse",
            example,
            corrections,
            f"parse {name} as published",
            "parse",
            {"msg": message().hex()},
            rules=("D1", "D7", "D8"),
        )


def build() -> Suite:
    return case.fill(Examples()).suite


def _m119_empty() -> bytes:
    """120b's parent: a new empty message at 118, incremented once."""
    return spec.parse(spec.ConfigMessage.new(118).serialize()).increment().serialize()
