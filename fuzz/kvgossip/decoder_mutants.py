"""Broken decoders, by name: each must make the K/V hostile-input campaign fail.

A mutant swaps one decoder of the node or the spec for a subtly wrong one while a task runs
(`swaps.swapped`), so `swarmconf fuzz --system kvgossip-parser --mutant NAME` and the tests
show which property catches it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from swarmconf.reference.kvgossip import frames, gossip
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.spec.kvgossip import keys, records
from swarmconf.spec.kvgossip.reasons import KvReason, require

from ..swaps import Swaps

_read_frame = frames.read_frame
_decode_record = records.decode_record


async def prefix_cut_as_closed(reader: asyncio.StreamReader, **limits: Any) -> bytes:
    """A stream ending inside a frame's length prefix reported as closed between frames."""
    try:
        return await _read_frame(reader, **limits)
    except frames.FrameError as error:
        if error.reason == NodeReason.FRAME_TRUNCATED and not error.detail:
            raise frames.FrameError(NodeReason.CONNECTION_CLOSED) from error
        raise


def negative_ts_accepted(payload: bytes) -> gossip.Change:
    """A `kvg-ch` reader that forgets that a timestamp is never negative."""
    node_id, key, ts, entry_hash = gossip._fields(payload, (bytes, str, int, bytes))
    assert isinstance(node_id, bytes) and isinstance(key, str)
    assert isinstance(ts, int) and isinstance(entry_hash, bytes)
    keys.check_key(key)
    require(len(entry_hash) == gossip.HASH_SIZE, KvReason.BAD_SHAPE)
    return gossip.Change(node_id, key, ts, entry_hash)


def record_index_error(data: bytes) -> records.Record:
    """A record decoder that crashes on a record without grants, as one that reads the chain's
    first grant unchecked would."""
    record = _decode_record(data)
    if not record.chain:
        raise IndexError("tuple index out of range")
    return record


MUTANTS: dict[str, Swaps] = {
    "prefix-cut-as-closed": {(frames, "read_frame"): prefix_cut_as_closed},
    "negative-ts-accepted": {(gossip, "decode_change"): negative_ts_accepted},
    "record-index-error": {(records, "decode_record"): record_index_error},
}
