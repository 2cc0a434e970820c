"""Internal consistency of config-merge vectors: rules a case's expected answer must obey on its
own, checked without any implementation under test.

A differential test cannot see a bug that the spec and the reference share; these rules can.
Each check takes one case (its op, its full request as `input`, its result and expected
answer) and its lag, and returns the problems it finds, an empty list when the case obeys the
rule.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.vectors import Case, cases_of

VectorCase = dict[str, Any]
Check = Callable[[VectorCase, int], list[str]]
"""A rule: one case and its lag to the problems found."""

MESSAGE_OPS = ("new", "increment", "merge", "serialize", "sign")
"""Ops whose expected answer holds a serialized message `msg` and its `hash`."""
CIPHERTEXT_OVERHEAD = 40
"""The 16-byte tag and the 24-byte nonce after the ciphertext (D18, D19)."""


def blake2b(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=32).digest()


def _expected(case: VectorCase) -> dict[str, Any] | None:
    if case["result"] == "invalid":
        return None
    expected: dict[str, Any] = case["expected"]
    return expected


def _message(text: str) -> dict[bytes, Any]:
    value = btcodec.decode(bytes.fromhex(text))
    assert isinstance(value, dict), "a message is a dict"
    return value


def hash_of_received_bytes(case: VectorCase, lag: int) -> list[str]:
    """A parsed message's hash is BLAKE2b-256 of the bytes received (D1): `parse`, `hash` and
    `verify` answer it for their input, and so do `serialize` and `sign`, which only write the
    parsed message back."""
    expected = _expected(case)
    if expected is None or case["op"] not in ("parse", "hash", "verify", "serialize", "sign"):
        return []
    want = blake2b(bytes.fromhex(case["input"]["msg"])).hex()
    return [] if expected["hash"] == want else [f"hash {expected['hash']} != BLAKE2b(input msg)"]


def hash_of_written_bytes(case: VectorCase, lag: int) -> list[str]:
    """A message made by `new`, `increment` or a merge is identified by the bytes it serializes
    to, signature included (D1): its hash is BLAKE2b-256 of the expected `msg`."""
    expected = _expected(case)
    if expected is None or case["op"] not in ("new", "increment", "merge"):
        return []
    if case["op"] == "merge" and not expected["merged"]:
        return []
    want = blake2b(bytes.fromhex(expected["msg"])).hex()
    return [] if expected["hash"] == want else [f"hash {expected['hash']} != BLAKE2b(msg)"]


def survivor_is_an_input(case: VectorCase, lag: int) -> list[str]:
    """A merge that makes no new message returns one of its inputs unchanged (D14, D17)."""
    expected = _expected(case)
    if expected is None or case["op"] != "merge" or expected["merged"]:
        return []
    hashes = {blake2b(bytes.fromhex(text)).hex() for text in case["input"]["msgs"]}
    return [] if expected["hash"] in hashes else ["the unmerged result is none of the inputs"]


def written_message_is_canonical(case: VectorCase, lag: int) -> list[str]:
    """Every message an implementation writes is canonical bt (D10) with `#` first, `&`, `<`
    and `=` always present (D8) and `~`, if any, last (D17)."""
    expected = _expected(case)
    if expected is None or case["op"] not in MESSAGE_OPS:
        return []
    raw = bytes.fromhex(expected["msg"])
    try:
        top = btcodec.decode(raw)
    except ValueError as error:
        return [f"msg is not bt: {error}"]
    problems = []
    if not isinstance(top, dict) or btcodec.encode(top) != raw:
        problems.append("msg is not canonical bt")
    elif next(iter(top)) != b"#" or not {b"&", b"<", b"="} <= set(top):
        problems.append("msg lacks `#` first, `&`, `<` or `=`")
    elif b"~" in top and list(top)[-1] != b"~":
        problems.append("`~` is not the last key")
    return problems


def lagged_entries_in_order(case: VectorCase, lag: int) -> list[str]:
    """Lagged entries are strictly ascending by (seqno, hash), inside the window
    S - lag < seqno < S, each with a 32-byte hash (D7): in what `parse` describes and in every
    message written."""
    expected = _expected(case)
    if expected is None:
        return []
    if case["op"] == "parse":
        seqno, lagged = expected["seqno"], btcodec.decode(bytes.fromhex(expected["lagged"]))
    elif case["op"] in MESSAGE_OPS:
        top = _message(expected["msg"])
        seqno, lagged = top[b"#"], top[b"<"]
    else:
        return []
    keys = [(entry[0], entry[1]) for entry in lagged]
    problems = []
    if keys != sorted(set(keys)):
        problems.append("lagged entries are not strictly ascending by (seqno, hash)")
    if any(not seqno - lag < key[0] < seqno for key in keys):
        problems.append(f"a lagged seqno outside ({seqno - lag}, {seqno})")
    if any(len(key[1]) != 32 for key in keys):
        problems.append("a lagged hash is not 32 bytes")
    return problems


def seqno_follows_the_op(case: VectorCase, lag: int) -> list[str]:
    """`new` writes the seqno asked for; `increment` the input's plus one (D13); a merge that
    makes a new message the highest input seqno plus one (D15)."""
    expected = _expected(case)
    if expected is None or case["op"] not in ("new", "increment", "merge"):
        return []
    seqno = _message(expected["msg"])[b"#"]
    if case["op"] == "new":
        want = case["input"]["seqno"]
    elif case["op"] == "increment":
        want = _message(case["input"]["msg"])[b"#"] + 1
    elif expected["merged"]:
        # the highest valid input's: one input has the seqno before the merged one
        seqnos = {_seqno_of(text) for text in case["input"]["msgs"]}
        return [] if seqno - 1 in seqnos else [f"seqno {seqno}, no input has {seqno - 1}"]
    else:
        return []
    return [] if seqno == want else [f"seqno {seqno}, the op makes {want}"]


def _seqno_of(text: str) -> int | None:
    """The seqno of a merge input, None for an input that has none."""
    try:
        top = btcodec.decode(bytes.fromhex(text))
    except ValueError:
        return None
    seqno = top.get(b"#") if isinstance(top, dict) else None
    return seqno if isinstance(seqno, int) else None


def increment_lags_its_parent(case: VectorCase, lag: int) -> list[str]:
    """An increment appends its parent's (seqno, hash) to `<` while the window holds it (D13)."""
    expected = _expected(case)
    if expected is None or case["op"] != "increment" or lag < 2:
        return []
    parent = bytes.fromhex(case["input"]["msg"])
    entry = (_message(case["input"]["msg"])[b"#"], blake2b(parent))
    lagged = _message(expected["msg"])[b"<"]
    if any((item[0], item[1]) == entry for item in lagged):
        return []
    return ["the parent's (seqno, hash) is not in `<`"]


def ciphertext_length(case: VectorCase, lag: int) -> list[str]:
    """A ciphertext is the plaintext's length plus the tag and the nonce (D18, D19)."""
    expected = _expected(case)
    if expected is None or case["op"] not in ("encrypt", "decrypt"):
        return []
    if case["op"] == "encrypt":
        plain, cipher = case["input"]["plaintext"], expected["ciphertext"]
    else:
        plain, cipher = expected["plaintext"], case["input"]["ciphertext"]
    if len(cipher) // 2 == len(plain) // 2 + CIPHERTEXT_OVERHEAD:
        return []
    return ["the ciphertext is not the plaintext plus 40 bytes"]


def padded_size(size: int, overhead: int) -> int:
    """D19's padded size, written out again from the decision's text."""
    total = size + overhead
    chunk = 256 if total < 5120 else 1024 if total < 20480 else 2048 if total < 40960 else 5120
    return -(-total // chunk) * chunk - overhead


def padding_is_leading_zeros(case: VectorCase, lag: int) -> list[str]:
    """`pad` puts zero bytes before the plaintext up to `padded_size` (D19); `unpad` takes
    every leading zero byte away."""
    expected = _expected(case)
    if expected is None or case["op"] not in ("pad", "unpad"):
        return []
    if case["op"] == "unpad":
        stripped = bytes.fromhex(case["input"]["padded"]).lstrip(b"\0")
        return [] if expected["plaintext"] == stripped.hex() else ["unpad left a leading zero"]
    plain = bytes.fromhex(case["input"]["plaintext"])
    padded = bytes.fromhex(expected["padded"])
    size = max(len(plain), padded_size(len(plain), case["input"]["overhead"]))
    if padded == bytes(size - len(plain)) + plain:
        return []
    return ["the padded bytes are not zeros, then the plaintext, to padded_size"]


CHECKS: tuple[Check, ...] = (
    hash_of_received_bytes,
    hash_of_written_bytes,
    survivor_is_an_input,
    written_message_is_canonical,
    lagged_entries_in_order,
    seqno_follows_the_op,
    increment_lags_its_parent,
    ciphertext_length,
    padding_is_leading_zeros,
)


def as_checked(case: Case) -> VectorCase:
    """The case as the checks read it: `op`, the full request as `input`, `result`, `expected`."""
    return {"op": case.op, "input": case.request, "result": case.result, "expected": case.expected}


def problems_of(case: Case) -> list[str]:
    """Every rule's problems with one case, each prefixed with the rule's name."""
    checked, lag = as_checked(case), case.request.get("lag", 0)
    return [f"{check.__name__}: {problem}" for check in CHECKS for problem in check(checked, lag)]


def document_problems(document: dict[str, Any], suite: str) -> list[str]:
    """The problems of every case of a vector file, each labelled `suite#tcId name`."""
    return [
        f"{case.label}: {problem}"
        for case in cases_of(document, suite)
        for problem in problems_of(case)
    ]
