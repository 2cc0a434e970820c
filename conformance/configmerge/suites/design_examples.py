"""The design text's examples, exactly as examples.md pins them (lag 5, no signatures).

Every case names its example and the corrections D2..D6 that apply (they are among its rules);
every hash below is copied from examples.md and checked against the spec's answer while
generating. The cases come by operation: m118 made new, the increments from m119 to 124a, the
merges from m126 to m127, then every published message parsed.
"""

from __future__ import annotations

from collections.abc import Callable

from swarmconf.conformance.builder import VALID, Answer, GeneratorMismatch, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.merge_input import merge_input
from swarmconf.conformance.configmerge.values import data_hex
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.conformance.vectors import Json
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

EXAMPLE = ["DesignTextExample"]
CORRECTIONS = ("D2", "D3", "D4", "D5", "D6")

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


def about(example: str, rules: list[str], text: str) -> str:
    """A case's comment: its example and the corrections among its `rules`, then `text`."""
    applied = ", ".join(rule for rule in rules if rule in CORRECTIONS) or "no correction"
    return f'example "{example}" ({applied}): {text}'


def data_of(message: bytes) -> str:
    """The data of `message`, as a request's `data`."""
    return data_hex(spec.parse(message).data)


def edit(parent: bytes, result: bytes) -> Json:
    """An increment's input: `parent`, its data edited into `result`'s."""
    return {"msg": parent.hex(), "data": data_of(result)}


def pin(answer: Answer, fact: str) -> None:
    """Stop unless the spec's hash is the one examples.md pins for `fact`."""
    got = (answer.expected or {}).get("hash")
    if got != HASHES[fact]:
        raise GeneratorMismatch(f"design_examples: hash {got}, examples.md pins {fact}")


def m119_empty() -> bytes:
    """120b's parent: a new empty message at 118, incremented once."""
    return spec.parse(spec.ConfigMessage.new(118).serialize()).increment().serialize()


Step = tuple[str, str, str, str, Json, str | None, list[str]]
"""A case of the worked examples: (name, op, example, what it shows, input, the fact whose hash
examples.md pins, rules with the corrections)."""


def increments() -> list[Step]:
    """Ordinary and large updates, the forks 125a and 125b, the stale 120b and 124a."""
    no_change: list[Step] = [
        (
            f"m{seqno}-increment",
            "increment",
            ORDINARY,
            f"m{seqno}: increment with no change",
            {"msg": ex.chain_to(seqno - 1).hex()},
            str(seqno),
            ["D1", "D13"],
        )
        for seqno in range(119, 123)
    ]
    return [
        *no_change,
        (
            "m123-increment-and-edit",
            "increment",
            ORDINARY,
            "m123 sets int1 = 1, int2 = 2, removes int0, sets string1 to its own value (not in"
            " the diff)",
            edit(ex.chain_to(122), ex.m123()),
            "123",
            ["D2", "D12", "D13"],
        ),
        (
            "m123-incremented-no-change",
            "increment",
            ORDINARY,
            "m123 incremented with no change: seqno 124 with entries 120..123 in `<`",
            {"msg": ex.m123().hex()},
            "123-incremented",
            ["D7", "D13"],
        ),
        (
            "m124-increment-and-edit",
            "increment",
            LARGE,
            "m124: the large update (nested {a: 1} per D2)",
            edit(ex.m123(), ex.m124()),
            "124",
            ["D2", "D12", "D13"],
        ),
        (
            "m125a-increment-and-edit",
            "increment",
            SIMPLE,
            "m125a removes dictB.foo",
            edit(ex.m124(), ex.m125a()),
            "125a",
            ["D13"],
        ),
        (
            "m125b-increment-and-edit",
            "increment",
            SIMPLE,
            "m125b sets int1 = 5",
            edit(ex.m124(), ex.m125b()),
            "125b",
            ["D13"],
        ),
        (
            "m120b-stale",
            "increment",
            SIMPLE,
            "120b: new at 118, incremented twice, `too old` set",
            edit(m119_empty(), ex.m120b()),
            None,
            ["D13"],
        ),
        (
            "m124a-increment-and-edit",
            "increment",
            COMPLEX,
            "124a sets dictB.foo = 66 and dictB.answer = 42 (its diff is its whole change, D3)",
            edit(ex.m123(), ex.m124a()),
            None,
            ["D3", "D13"],
        ),
    ]


def merges() -> list[Step]:
    """m126 from its forks in any order, then the complex example's 126b and 127."""
    m126: list[Step] = [
        (
            f"m126-merge-{name}",
            "merge",
            SIMPLE,
            f"merging {name.replace('-', ', ')}: m126",
            merge_input(messages),
            "126",
            ["D14", "D15"],
        )
        for name, messages in [
            ("125a-125b", [ex.m125a(), ex.m125b()]),
            ("125b-125a", [ex.m125b(), ex.m125a()]),
            ("with-124", [ex.m124(), ex.m125b(), ex.m125a()]),
            ("with-120b", [ex.m125a(), ex.m120b(), ex.m125b()]),
            ("with-124-and-120b", [ex.m120b(), ex.m125b(), ex.m124(), ex.m125a()]),
        ]
    ]
    return [
        *m126,
        (
            "m126b-merge",
            "merge",
            COMPLEX,
            "126b = merge {125b, 124a, 125a, m123, 120b}: m123 included, 120b too old;"
            " dictA.hello survives (D3), good keeps 99 (D4)",
            merge_input([ex.m125b(), ex.m124a(), ex.m125a(), ex.m123(), ex.m120b()]),
            "126b",
            ["D2", "D3", "D4", "D14", "D15"],
        ),
        (
            "m127-merge-before-edit",
            "merge",
            COMPLEX,
            "merge {126a, 126b} before any edit: seqno 127 with an empty `=`",
            merge_input([ex.m126a(), ex.m126b()]),
            "127-before-edit",
            ["D2", "D5", "D15"],
        ),
        (
            "m127-merge-and-edit",
            "merge",
            COMPLEX,
            "127: merge {126a, 126b} then add 789 to dictA.goodbye; `=` holds only that change"
            " (D6)",
            merge_input([ex.m126b(), ex.m126a()], data=data_of(ex.m127())),
            "127",
            ["D2", "D3", "D4", "D5", "D6", "D12", "D15"],
        ),
        (
            "m127-absorbs-older",
            "merge",
            COMPLEX,
            "merge {127, 125a, 126b}: 127 back unchanged",
            merge_input([ex.m127(), ex.m125a(), ex.m126b()]),
            "127",
            ["D6", "D14"],
        ),
    ]


case = Catalogue[SuiteBuilder]()


@case
def m118_new(s: SuiteBuilder) -> None:
    answer = s.group("new", lag=5).case(
        "m118-new",
        about(
            ORDINARY, [], "m118: a new message with seqno 118 and the data the example starts from"
        ),
        input={"seqno": 118, "data": data_of(ex.m118())},
        expect=VALID,
        flags=EXAMPLE,
        rules=["D12"],
    )
    if (answer.expected or {}).get("msg") != ex.m118().hex():
        raise GeneratorMismatch("design_examples/m118-new differs from examples.m118()")


@case
def increments_and_merges(s: SuiteBuilder) -> None:
    for name, op, example, text, request, fact, rules in [*increments(), *merges()]:
        answer = s.case(
            name,
            about(example, rules, text),
            op=op,
            input=request,
            expect=VALID,
            flags=EXAMPLE,
            rules=rules,
        )
        if fact is not None:
            pin(answer, fact)


@case
def published_messages_parse(s: SuiteBuilder) -> None:
    g = s.group("parse", lag=5)
    for name, (message, example, corrections) in PUBLISHED.items():
        g.case(
            f"{name}-parse",
            about(example, corrections, f"parse {name} as published"),
            input={"msg": message().hex()},
            expect=VALID,
            flags=EXAMPLE,
            rules=[*corrections, "D1", "D7", "D8"],
        )


def build() -> SuiteBuilder:
    return case.fill(
        new_suite(
            "design_examples",
            "The design text's examples (section Examples) as examples.md pins them, with the"
            " corrections D2..D6; lag 5, no signatures.",
        )
    )
