"""The design text's example chain (examples.md), built through an implementation's public API.

`build_chain(api)` takes a module with the contract's API (`swarmconf.reference.configmerge` or
`swarmconf.spec.configmerge`); the tests, the differential tests and the benchmarks share it.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any


def _m118_data() -> dict[bytes, Any]:
    return {
        b"dictB": {b"changed": -1, b"foo": 123, b"removed": b"x", b"removed2": b"y"},
        b"dictC": {b"x": {b"y": 1}},
        b"good": {99, 456, b"bar"},
        b"great": {-42, b"omg"},
        b"int0": -9999,
        b"int1": 100,
        b"string1": b"hello",
        b"string2": b"goodbye",
    }


def build_chain(api: ModuleType) -> dict[str, Any]:
    """Every message of examples.md, by name, as serialized bytes (and a few parsed views)."""
    out: dict[str, Any] = {}
    msg = api.ConfigMessage.new(118, lag=5)
    msg.data.update(_m118_data())
    out["m118"] = msg.serialize()
    for seqno in range(119, 123):
        msg = msg.increment()
        out[f"m{seqno}"] = msg.serialize()
    msg = msg.increment()
    msg.data[b"int1"] = 1
    msg.data[b"int2"] = 2
    del msg.data[b"int0"]
    msg.data[b"string1"] = b"hello"
    out["m123"] = m123 = msg.serialize()
    out["m124_from_parse"] = api.parse(m123).increment()

    msg = api.parse(m123).increment()
    data = msg.data
    data[b"dictA"] = {b"hello": 123, b"goodbye": {123, 456}}
    dict_b = data[b"dictB"]
    dict_b[b"changed"] = 1
    dict_b[b"added"] = 9999
    dict_b[b"nested"] = {b"a": 1}
    del dict_b[b"removed"], dict_b[b"removed2"]
    del data[b"dictC"]
    data[b"good"] |= {b"Foo", 123}
    data[b"good"].discard(456)
    data[b"int1"] = 42
    del data[b"string1"]
    data[b"string2"] = b"hello"
    data[b"string3"] = b"omg"
    del data[b"great"]
    out["m124"] = m124 = msg.serialize()

    msg = api.parse(m124).increment()
    del msg.data[b"dictB"][b"foo"]
    out["m125a"] = m125a = msg.serialize()
    msg = api.parse(m124).increment()
    msg.data[b"int1"] = 5
    out["m125b"] = m125b = msg.serialize()

    msg = api.ConfigMessage.new(118, lag=5).increment().increment()
    msg.data[b"too old"] = b"won't see"
    out["m120b"] = m120b = msg.serialize()

    msg = api.parse(m123).increment()
    msg.data[b"dictB"][b"foo"] = 66
    msg.data[b"dictB"][b"answer"] = 42
    out["m124a"] = m124a = msg.serialize()

    out["m126a"] = m126a = api.merge([m125a, m125b]).serialize()
    out["m126b"] = m126b = api.merge([m125b, m124a, m125a, m123, m120b]).serialize()
    merged = api.merge([m126a, m126b])
    out["m127_before_edit"] = merged.serialize()
    merged.data[b"dictA"][b"goodbye"].add(789)
    out["m127"] = merged.serialize()
    out["m127_view"] = merged
    return out
