"""Differential tests: the reference and the spec agree on bytes, hashes, views and reason codes.

Hypothesis generates histories (edits, increments, forks, merges with stale and duplicate
inputs, signed and unsigned) and runs every step on both implementations in lockstep; and it
feeds both the same random and mutated bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nacl.bindings import crypto_sign_seed_keypair

import swarmconf.reference.configmerge as ref
import swarmconf.spec.configmerge as spec
from swarmconf.reference.configmerge.examples import build_chain
from swarmconf.spec.configmerge.reasons import ConfigError, UsageError

SEED = bytes(range(32))
PUBLIC = crypto_sign_seed_keypair(SEED)[0]
OTHER_SEED = bytes(range(1, 33))
SETTINGS = settings(
    max_examples=int(os.environ.get("SWARMCONF_DIFF_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)

KEYS = st.sampled_from([b"a", b"b", b"c", b"dd", b"", b"\xff"])
INTS = st.one_of(st.integers(-3, 3), st.sampled_from([-(2**63), 2**63 - 1, 1000]))
SCALARS = st.one_of(INTS, st.sampled_from([b"", b"x", b"y", b"zz", b"0x1"]))
SETS = st.sets(SCALARS, max_size=4)
VALUES = st.recursive(
    st.one_of(SCALARS, SETS),
    lambda inner: st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=6,
)
PATHS = st.lists(KEYS, min_size=1, max_size=3).map(tuple)
# Values a writer must refuse (D11 limits, wrong types, ints outside int64) and a long key
BAD_VALUES = st.sampled_from([b"x" * 4097, True, 1.5, 2**63, "text", None, [1], {1.5, 2}])
LONG_PATHS = st.tuples(st.sampled_from([b"a", b"k" * 129]), st.sampled_from([b"b", b"k" * 129]))
EDITS = st.one_of(
    st.tuples(st.just("set"), PATHS, VALUES),
    st.tuples(st.just("set"), LONG_PATHS, st.one_of(BAD_VALUES, VALUES)),
    st.tuples(st.just("set"), PATHS, st.just({b"s": {b"x" * 4097, 1}})),
    st.tuples(st.just("delete"), PATHS),
    st.tuples(st.just("add"), PATHS, SCALARS),
    st.tuples(st.just("discard"), PATHS, SCALARS),
)


def apply_edit(data: dict[bytes, Any], edit: tuple[Any, ...]) -> None:
    """Apply one edit to a data dict, creating (or replacing with) dicts along the path."""
    kind, path = edit[0], edit[1]
    for key in path[:-1]:
        if type(data.get(key)) is not dict:
            if kind in ("delete", "discard"):
                return
            data[key] = {}
        data = data[key]
    last = path[-1]
    if kind == "set":
        data[last] = copy_value(edit[2])
    elif kind == "delete":
        data.pop(last, None)
    elif kind == "add":
        if type(data.get(last)) is not set:
            data[last] = set()
        data[last].add(edit[2])
    elif type(data.get(last)) is set:
        data[last].discard(edit[2])


def copy_value(value: Any) -> Any:
    if type(value) is dict:
        return {k: copy_value(v) for k, v in value.items()}
    if type(value) is set:
        return set(value)
    return value


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """("ok", result) or ("error", reason code) of a call."""
    try:
        return "ok", call()
    except (ConfigError, UsageError) as error:
        return "error", error.reason


def view(msg: Any) -> tuple[Any, ...]:
    """Everything the contract exposes of a message, comparable across implementations."""
    lagged = [(e.seqno, e.hash, e.diff) for e in msg.lagged]
    return (
        *(msg.seqno, msg.hash, msg.data, msg.diff, lagged),
        *(msg.merged, msg.extra, msg.lag, msg.signature, msg.editable),
    )


def both(step: Callable[[ModuleType], Any], edits: list[tuple[Any, ...]] = ()) -> tuple[str, Any]:
    """Run `step` on the reference and the spec; assert the same result or reason code.

    With several bad values written at once, which one is reported first is not pinned (the
    spec walks dicts in insertion order and sets in hash order, the reference in key order):
    then only the refusal itself must agree.
    """
    mine = outcome(lambda: step(ref))
    oracle = outcome(lambda: step(spec))
    if sum(map(is_bad_edit, edits)) > 1 and mine[0] == oracle[0] == "error":
        return mine
    assert mine == oracle
    return mine


def is_bad_edit(edit: tuple[Any, ...]) -> bool:
    """Whether an edit writes something a writer must refuse."""
    value = edit[2] if len(edit) > 2 else None
    long_key = any(len(key) > 128 for key in edit[1])
    return long_key or (edit[0] == "set" and not _writable(value))


def _writable(value: Any) -> bool:
    if type(value) is dict:
        return all(_writable(v) for v in value.values())
    if type(value) is set:
        return all(_writable(v) for v in value)
    if type(value) is bytes:
        return len(value) <= 4096
    return type(value) is int and -(2**63) <= value < 2**63


POOL_START = [
    value for name, value in sorted(build_chain(spec).items()) if isinstance(value, bytes)
]

STEPS = st.one_of(
    st.tuples(st.just("new"), st.integers(-3, 200), st.lists(EDITS, max_size=4), st.booleans()),
    st.tuples(st.just("edit"), st.integers(0, 10**6), st.lists(EDITS, max_size=4), st.booleans()),
    st.tuples(
        st.just("merge"),
        st.lists(st.integers(0, 10**6), min_size=1, max_size=5),
        st.lists(EDITS, max_size=3),
        st.sampled_from(["unsigned", "signed", "verified", "verified-unsigned"]),
    ),
)


@SETTINGS
@given(st.lists(STEPS, min_size=1, max_size=8), st.sampled_from([1, 2, 3, 5]))
def test_histories_agree(steps: list[tuple[Any, ...]], lag: int) -> None:
    pool = list(POOL_START)
    for step in steps:
        made = run_step(step, pool, lag)
        if made is not None:
            pool.append(made)


def run_step(step: tuple[Any, ...], pool: list[bytes], lag: int) -> bytes | None:
    kind = step[0]

    def finish(msg: Any, edits: list[tuple[Any, ...]], sign: bool) -> tuple[bytes, Any]:
        if msg.editable:
            for edit in edits:
                apply_edit(msg.data, edit)
        raw = msg.serialize(SEED) if sign else msg.serialize()
        return raw, view(msg)

    if kind == "new":
        _, seqno, edits, sign = step
        result = both(lambda api: finish(api.ConfigMessage.new(seqno, lag=lag), edits, sign), edits)
    elif kind == "edit":
        _, index, edits, sign = step
        raw = pool[index % len(pool)]
        result = both(lambda api: finish(api.parse(raw, lag=lag).increment(), edits, sign), edits)
    else:
        _, indexes, edits, mode = step
        inputs = [pool[i % len(pool)] for i in indexes]
        keys: dict[str, Any] = {
            "unsigned": {},
            "signed": {"sign_key": SEED},
            "verified": {"sign_key": SEED + PUBLIC, "verify_key": PUBLIC},
            "verified-unsigned": {"verify_key": PUBLIC},
        }[mode]
        result = both(lambda api: finish(api.merge(inputs, lag=lag, **keys), edits, False), edits)
    return result[1][0] if result[0] == "ok" else None


def parsed(api: ModuleType, raw: bytes, lag: int, verify: bool) -> tuple[Any, ...]:
    msg = api.parse(raw, lag=lag, verify_key=PUBLIC if verify else None)
    return (*view(msg), msg.signature, msg.serialize())


MUTATIONS = st.lists(
    st.tuples(
        st.sampled_from(["replace", "insert", "delete"]),
        st.integers(0, 10**6),
        st.binary(min_size=1, max_size=3),
    ),
    min_size=1,
    max_size=3,
)


def mutate(raw: bytes, mutations: list[tuple[str, int, bytes]]) -> bytes:
    out = bytearray(raw)
    for kind, where, chunk in mutations:
        at = where % (len(out) + 1)
        if kind == "insert":
            out[at:at] = chunk
        elif kind == "replace":
            out[at : at + len(chunk)] = chunk
        else:
            del out[at : at + len(chunk)]
    return bytes(out)


@SETTINGS
@given(st.integers(0, 10**6), MUTATIONS, st.sampled_from([1, 3, 5]), st.booleans())
def test_mutated_messages_agree(index: int, mutations: Any, lag: int, verify: bool) -> None:
    raw = mutate(POOL_START[index % len(POOL_START)], mutations)
    both(lambda api: parsed(api, raw, lag, verify))
    others = [raw, POOL_START[index % len(POOL_START)], POOL_START[(index * 7) % len(POOL_START)]]
    both(lambda api: api.merge(others, lag=lag).serialize())


@SETTINGS
@given(st.binary(max_size=40), st.sampled_from([1, 5]))
def test_random_bytes_agree(raw: bytes, lag: int) -> None:
    both(lambda api: parsed(api, raw, lag, False))


BT_INTS = st.one_of(
    st.integers(-3, 130),
    st.sampled_from([-(2**63) - 1, -(2**63), 2**63 - 1, 2**63, 2**64 - 1, 2**64]),
)
BT_STRINGS = st.one_of(
    st.sampled_from([b"", b"-", b"x", b"a", b"b"]),
    st.binary(min_size=32, max_size=32),
    st.binary(min_size=64, max_size=64),
)
BT_VALUES = st.recursive(
    st.one_of(BT_INTS, BT_STRINGS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from([b"a", b"b", b"c", b""]), inner, max_size=3),
    ),
    max_leaves=10,
)
DIFFS = st.recursive(
    st.dictionaries(
        st.sampled_from([b"a", b"b"]),
        st.one_of(
            st.sampled_from([b"", b"-", b"+"]),
            st.lists(
                st.lists(st.one_of(st.integers(-2, 2), st.sampled_from([b"x", b"y"])), max_size=3),
                max_size=3,
            ),
        ),
        max_size=3,
    ),
    lambda inner: st.dictionaries(st.sampled_from([b"a", b"c"]), inner, max_size=2),
    max_leaves=4,
)
LAGGED = st.lists(
    st.one_of(
        st.tuples(st.integers(120, 130), st.binary(min_size=32, max_size=32), DIFFS).map(list),
        BT_VALUES,
    ),
    max_size=4,
)
TOP_KEYS = st.sampled_from([b"#", b"&", b"<", b"=", b"~", b"!", b"$", b"?", b"\x7f"])


@SETTINGS
@given(
    st.dictionaries(TOP_KEYS, BT_VALUES, max_size=6),
    LAGGED,
    DIFFS,
    st.integers(0, 200),
    st.sampled_from([1, 5]),
)
def test_structured_messages_agree(
    top: dict[bytes, Any], lagged: list[Any], diff: dict[bytes, Any], seqno: int, lag: int
) -> None:
    if seqno % 3:
        top[b"#"] = 125 + seqno % 8
    if seqno % 5 and type(top.get(b"&")) is not dict:
        top[b"&"] = {}
    if seqno % 2:
        top[b"<"] = lagged
    if seqno % 7:
        top[b"="] = diff
    raw = encode_any(top)
    both(lambda api: parsed(api, raw, lag, False))


def encode_any(value: Any) -> bytes:
    """Canonical bt of any int (even out of range), bytes, list or dict."""
    if type(value) is int:
        return b"i%de" % value
    if type(value) is bytes:
        return b"%d:%b" % (len(value), value)
    if type(value) is list:
        return b"l" + b"".join(encode_any(v) for v in value) + b"e"
    return b"d" + b"".join(encode_any(k) + encode_any(value[k]) for k in sorted(value)) + b"e"


KEY_ARGS = st.one_of(
    st.binary(min_size=32, max_size=32), st.sampled_from([b"", bytes(31), bytes(33), "k" * 32])
)


@SETTINGS
@given(
    st.binary(max_size=300),
    KEY_ARGS,
    st.sampled_from(["spec", "libsession", "other"]),
    st.sampled_from([None, b"", b"UserProfile", b"d" * 24, b"d" * 25, "text"]),
    st.integers(0, 5),
)
def test_encryption_agrees(
    plaintext: bytes, key: Any, profile: str, domain: Any, flip: int
) -> None:
    sealed = both(lambda api: api.encrypt(plaintext, key, profile=profile, domain=domain))
    if sealed[0] == "ok":
        damaged = bytearray(sealed[1])
        damaged[flip % len(damaged)] ^= flip
        both(lambda api: api.decrypt(bytes(damaged), key, profile=profile, domain=domain))
    both(lambda api: api.decrypt(plaintext[:60], key, profile=profile, domain=domain))


@SETTINGS
@given(st.integers(0, 60_000), st.integers(0, 100), st.binary(max_size=50))
def test_padding_agrees(size: int, overhead: int, data: bytes) -> None:
    both(lambda api: api.padded_size(size, overhead))
    both(lambda api: (api.pad(data, overhead), api.unpad(b"\0" * overhead + data)))


@pytest.mark.parametrize(
    "call",
    [
        lambda api: api.ConfigMessage.new(True, lag=0),
        lambda api: api.ConfigMessage.new(2**63, lag=1),
        lambda api: api.ConfigMessage.new(1.0),
        lambda api: api.ConfigMessage.new(2**63 - 1).increment(),
        lambda api: api.merge([b"x"], lag=0, verify_key=b"", sign_key=b""),
        lambda api: api.merge([b"x"], verify_key=b"", sign_key=b""),
        lambda api: api.merge([b"x"], sign_key=b""),
        lambda api: api.merge([b"x"], sign_key=SEED + bytes(32)),
        lambda api: api.merge([b"x"], sign_key=SEED + PUBLIC),
        lambda api: api.merge([]),
        lambda api: api.parse(b"d1:#i1e1:&de1:=dee", lag=0, verify_key=b""),
    ],
)
def test_argument_errors_agree(call: Callable[[ModuleType], Any]) -> None:
    result = both(call)
    assert result[0] == "error"
