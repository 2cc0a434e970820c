"""The design text's examples (section "Examples") built step by step as examples.md pins them,
with the corrections D2..D6; lag 5, no signatures. Each function returns the published bytes.
"""

from __future__ import annotations

from functools import cache

from swarmconf.spec.configmerge import ConfigMessage, merge, parse


def publish(message: ConfigMessage) -> bytes:
    return message.serialize()


@cache
def m118() -> bytes:
    """Seqno 118, data set from empty: every scalar `""`, every set `[[all], []]`."""
    message = ConfigMessage.new(118)
    message.data.update(
        {
            b"dictB": {b"changed": -1, b"foo": 123, b"removed": b"x", b"removed2": b"y"},
            b"dictC": {b"x": {b"y": 1}},
            b"good": {99, 456, b"bar"},
            b"great": {-42, b"omg"},
            b"int0": -9999,
            b"int1": 100,
            b"string1": b"hello",
            b"string2": b"goodbye",
        }
    )
    return publish(message)


@cache
def chain_to(seqno: int) -> bytes:
    """m118 incremented with no change up to `seqno` (m119..m122)."""
    if seqno == 118:
        return m118()
    return publish(parse(chain_to(seqno - 1)).increment())


@cache
def m123() -> bytes:
    """The "Ordinary update": int1 = 1, int2 = 2, int0 removed, string1 unchanged."""
    message = parse(chain_to(122)).increment()
    message.data[b"int1"] = 1
    message.data[b"int2"] = 2
    del message.data[b"int0"]
    message.data[b"string1"] = b"hello"
    return publish(message)


@cache
def m124() -> bytes:
    """The "Large, but still ordinary, update"; `"nested": {"a": 1}` as D2 corrects it."""
    message = parse(m123()).increment()
    data = message.data
    data[b"dictA"] = {b"hello": 123, b"goodbye": {123, 456}}
    dict_b = data[b"dictB"]
    assert isinstance(dict_b, dict)
    dict_b.update({b"changed": 1, b"added": 9999, b"nested": {b"a": 1}})
    del dict_b[b"removed"], dict_b[b"removed2"]
    del data[b"dictC"]
    good = data[b"good"]
    assert isinstance(good, set)
    good |= {b"Foo", 123}
    good.discard(456)
    data[b"int1"] = 42
    del data[b"string1"]
    data[b"string2"] = b"hello"
    data[b"string3"] = b"omg"
    del data[b"great"]
    return publish(message)


@cache
def m125a() -> bytes:
    """Removes dictB.foo ("Simple conflict resolution")."""
    message = parse(m124()).increment()
    dict_b = message.data[b"dictB"]
    assert isinstance(dict_b, dict)
    del dict_b[b"foo"]
    return publish(message)


@cache
def m125b() -> bytes:
    """Sets int1 = 5: the text's `"]": { "int1", "" }` is `"=": {"int1": ""}` (D2)."""
    message = parse(m124()).increment()
    message.data[b"int1"] = 5
    return publish(message)


@cache
def m120b() -> bytes:
    """The stale message: seqno 120 from an unrelated chain, dropped by "within 5" (D14)."""
    message = parse(publish(parse(publish(ConfigMessage.new(118))).increment())).increment()
    message.data[b"too old"] = b"won't see"
    return publish(message)


@cache
def m124a() -> bytes:
    """Sets dictB.foo = 66 and dictB.answer = 42 and leaves dictA.hello alone (D3)."""
    message = parse(m123()).increment()
    dict_b = message.data[b"dictB"]
    assert isinstance(dict_b, dict)
    dict_b[b"foo"] = 66
    dict_b[b"answer"] = 42
    return publish(message)


@cache
def m126a() -> bytes:
    """The merge of 125a and 125b (D15)."""
    return publish(merge([m125a(), m125b()]))


@cache
def m126b() -> bytes:
    """The three-way merge of 124a, 125a and 125b; `good` keeps 99 (D4) and the text's `"*"`
    wrapper does not exist (D2)."""
    return publish(merge([m125b(), m124a(), m125a(), m123(), m120b()]))


@cache
def m127() -> bytes:
    """The merge of 126a and 126b, then 789 added to dictA.goodbye: its lagged diffs of 125a
    and 125b are as D5 corrects them, its own `=` holds only the added 789 (D6)."""
    message = merge([m126a(), m126b()])
    goodbye = message.data[b"dictA"]
    assert isinstance(goodbye, dict)
    elements = goodbye[b"goodbye"]
    assert isinstance(elements, set)
    elements.add(789)
    return publish(message)
