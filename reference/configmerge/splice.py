"""Decoding a message alike one decoded before: the inputs of a merge share most of their bytes.

A message opens with `d1:#i<seqno>e1:&`, then its data dict, then `1:<`, its lagged entries and
`1:=`. The data of a new message is read against that of a message decoded before, whose entry
boundaries are known from its own encoding: runs of entries equal byte for byte are taken, as
objects, from the earlier message; the bytes between runs are decoded by the strict decoder, and
what follows the data is decoded on its own. Every piece is made of whole entries, so the result
is the value a full decoding gives. Anything unusual (another layout, a piece refused, keys out of
order) gives None: decode in full.
"""

from __future__ import annotations

from itertools import accumulate, chain, islice, repeat
from operator import add, lt, sub
from typing import Any, Final, NamedTuple

from . import bt

_OPEN: Final = b"d1:#i"
# Smaller messages decode in full faster than they are matched piece by piece.
MIN_SIZE = 8192


class Layout(NamedTuple):
    """Where the top-level data entries of a message lie in its bytes."""

    raw: bytes
    # The position of the data dict's `d`; of each entry in key order, then of the closing `e`.
    start: int
    bounds: list[int]
    items: list[tuple[bytes, Any]]
    # The bytes right after the data: `1:<`, the encoded `<` value and `1:=`; the `<` value.
    after: bytes
    lagged: list[Any]


def _data_start(raw: bytes) -> tuple[int, int] | None:
    """(seqno, position of the data's `d`) when `raw` opens with `d1:#i<seqno>e1:&`."""
    if not raw.startswith(_OPEN):
        return None
    end = raw.find(b"e", len(_OPEN), len(_OPEN) + 21)
    if end < 0:
        return None
    digits = raw[len(_OPEN) : end]
    try:
        seqno = int(digits)
    except ValueError:
        return None
    if b"%d" % seqno != digits or raw[end + 1 : end + 4] != b"1:&":
        return None
    return seqno, end + 4


def _first_key(piece: list[tuple[bytes, Any]]) -> bytes:
    return piece[0][0]


def _last_key(piece: list[tuple[bytes, Any]]) -> bytes:
    return piece[-1][0]


def _entry_bounds(items: Any, first: int) -> list[int]:
    """The position of each entry of `items` (key, value) from `first` on, then the end."""
    encode = bt.compiled_encoder()
    assert encode is not None
    # A (key, value) pair encodes as a list: `l`, the key, the value and `e`.
    return list(accumulate(map(sub, map(len, map(encode, items)), repeat(2)), initial=first))


def layout(raw: bytes, data: dict[bytes, Any], lagged: list[Any] | None) -> Layout | None:
    """The layout of a decoded message given its data and `<` value, when it is the usual one
    (data, `<` and `=` in a row), else None."""
    if bt.compiled_encoder() is None or lagged is None:
        return None
    found = _data_start(raw)
    if found is None:
        return None
    start = found[1]
    items = list(data.items())
    bounds = _entry_bounds(items, start + 1)
    encode = bt.compiled_encoder()
    assert encode is not None
    after = b"1:<" + encode(lagged) + b"1:="
    end = bounds[-1] + 1
    if raw[start : start + 1] != b"d" or raw[end : end + len(after)] != after:
        return None
    return Layout(raw, start, bounds, items, after, lagged)


def decode_alike(raw: bytes, earlier: Layout) -> tuple[dict[bytes, Any], Layout] | None:
    """The decoded message `raw` and its layout, sharing the data entries equal to `earlier`'s,
    or None when it is not laid out alike (then it must be decoded in full).

    The data is read left to right: runs of entries equal, byte for byte, to runs of `earlier`'s
    are taken as they are; the bytes up to where the next entry of `earlier` is found again are
    decoded. Every piece is made of whole entries, so the data is what a full decoding gives.
    """
    decode = bt.compiled_decoder()
    found = _data_start(raw)
    if decode is None or found is None or raw[found[1] : found[1] + 1] != b"d":
        return None
    seqno, start = found
    old, bounds, items = memoryview(earlier.raw), earlier.bounds, earlier.items
    n = len(items)
    end = raw.find(earlier.after, start)
    if end < 0 or raw[end - 1 : end] != b"e":
        return None
    close = end - 1  # the data's closing `e`
    pieces: list[list[tuple[bytes, Any]]] = []
    spans: list[Any] = []
    pos, k = start + 1, 0
    while pos < close or k < n:
        if k < n:
            # The longest run of entries from k found at `pos` (compared in place, not copied)
            lo, hi = k, n
            while lo < hi:
                mid = (lo + hi + 1) // 2
                if raw.startswith(old[bounds[k] : bounds[mid]], pos, close):
                    lo = mid
                else:
                    hi = mid - 1
            if lo > k:
                pieces.append(items[k:lo])
                spans.append(map(add, bounds[k:lo], repeat(pos - bounds[k])))
                pos += bounds[lo] - bounds[k]
                k = lo
                continue
        # Entries that differ: decoded up to where a next entry of `earlier` is found again
        stop, resume = close, n
        for t in (k + 1, k, k + 2):
            if t < n:
                at = raw.find(old[bounds[t] : bounds[t + 1]], pos, close)
                if at >= 0:
                    stop, resume = at, t
                    break
        try:  # the decoded entries fill the bytes from `pos` to `stop` exactly
            inner = list(decode(b"d" + raw[pos:stop] + b"e").items())
        except Exception:  # refused by the strict decoder
            return None
        if inner:
            pieces.append(inner)
            spans.append([pos] if len(inner) == 1 else _entry_bounds(inner, pos)[:-1])
        pos, k = stop, resume
    # Each piece is in key order: so is the whole when each piece's keys follow the last one's.
    if not all(map(lt, map(_last_key, pieces), map(_first_key, islice(pieces, 1, None)))):
        return None
    entries_now = list(chain.from_iterable(pieces))
    data = dict(entries_now)
    # The `<` value is the earlier message's, its bytes being the same; what follows is decoded.
    top = {b"#": seqno, b"&": data, b"<": earlier.lagged}
    try:
        top.update(decode(b"d" + raw[end + len(earlier.after) - len(b"1:=") :]))
    except Exception:  # refused by the strict decoder
        return None
    bounds_now = [*chain.from_iterable(spans), close]
    return top, Layout(raw, start, bounds_now, entries_now, earlier.after, earlier.lagged)
