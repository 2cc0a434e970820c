"""Sync messages, protocol 2 (kv-sync 3.3b; decisions K5-K8).

Each frame is one canonical msgpack array whose first element names the message. The transport
adds a `u32be` length prefix; frames are capped at 4 MiB. Lists are flat lists of one item type.

| Message   | Fields after the name                                                        |
|-----------|------------------------------------------------------------------------------|
| `HELLO`   | proto (2), node_id (bin), revset_hash (32), tree_hash (32), count            |
| `REVS`    | the sender's revoked grant ids, sorted                                       |
| `REVDATA` | signed revocations the peer lacks                                            |
| `RECON`   | one reconciliation message (`recon`, Negentropy V1, at most 1 MiB)           |
| `WANT`    | entry hashes (32 bytes each) of records the initiator asks for               |
| `RECORDS` | record wire bytes                                                            |
| `RESULTS` | outcomes, reasons (`""` if none), revocations, own winning records           |
| `TREE`    | tree_hash (32), count: closes a pass                                         |
| `BYE`     | (ends the session)                                                           |
| `PUSH`    | record wire bytes (outside sessions: a new write)                            |
| `FETCH`   | keys (outside sessions: one announced key's current record)                  |

`WANT`, `RECORDS`, `PUSH` and `FETCH` carry at most `MAX_BATCH` items; a `RESULTS` has one
outcome and one reason per record of the batch it answers.
"""

from __future__ import annotations

from typing import Any

from .encoding import decode_canonical, encode
from .reasons import KvError, KvReason, require

PROTOCOL_VERSION = 2
MAX_FRAME_BYTES = 4 << 20
MAX_NODE_ID_BYTES = 64
MAX_BATCH = 1024

HELLO = "HELLO"
REVS = "REVS"
REVDATA = "REVDATA"
RECON = "RECON"
WANT = "WANT"
RECORDS = "RECORDS"
RESULTS = "RESULTS"
TREE = "TREE"
BYE = "BYE"
PUSH = "PUSH"
FETCH = "FETCH"

Kind = type | tuple[type, type]
"""A field's type, or `(list, item type)` for a list."""

BYTES_LIST: Kind = (list, bytes)
STR_LIST: Kind = (list, str)
FIELDS: dict[str, tuple[Kind, ...]] = {
    HELLO: (int, bytes, bytes, bytes, int),
    REVS: (BYTES_LIST,),
    REVDATA: (BYTES_LIST,),
    RECON: (bytes,),
    WANT: (BYTES_LIST,),
    RECORDS: (BYTES_LIST,),
    RESULTS: (STR_LIST, STR_LIST, BYTES_LIST, BYTES_LIST),
    TREE: (bytes, int),
    BYE: (),
    PUSH: (BYTES_LIST,),
    FETCH: (STR_LIST,),
}
BATCHED = (WANT, RECORDS, PUSH, FETCH)


def message(name: str, *fields: Any) -> bytes:
    """Encode one session frame."""
    return encode([name, *fields])


def decode_message(frame: bytes) -> list[Any]:
    """Decode one session frame into `[name, *fields]`, checking its shape.

    Raises `KvError` with SESSION_FRAME_TOO_LARGE or SESSION_BAD_MESSAGE.
    """
    require(len(frame) <= MAX_FRAME_BYTES, KvReason.SESSION_FRAME_TOO_LARGE)
    try:
        value = decode_canonical(frame, MAX_FRAME_BYTES)
    except KvError as err:
        raise KvError(KvReason.SESSION_BAD_MESSAGE, err.reason.value) from err
    require(isinstance(value, list) and len(value) > 0, KvReason.SESSION_BAD_MESSAGE, "not array")
    name = value[0]
    # Verify the name is a string (a list or map is unhashable, and may nest too deep to print)
    require(type(name) is str, KvReason.SESSION_BAD_MESSAGE, f"{type(name).__name__} as name")
    require(name in FIELDS, KvReason.SESSION_BAD_MESSAGE, f"unknown message {name!r}")
    kinds = FIELDS[name]
    require(len(value) == 1 + len(kinds), KvReason.SESSION_BAD_MESSAGE, f"{name} arity")
    for item, kind in zip(value[1:], kinds, strict=True):
        outer, inner = kind if isinstance(kind, tuple) else (kind, None)
        require(type(item) is outer, KvReason.SESSION_BAD_MESSAGE, f"{name} field type")
        if inner is not None:
            require(all(type(x) is inner for x in item), KvReason.SESSION_BAD_MESSAGE, "list item")
    check_sizes(value)
    return list(value)


def check_sizes(msg: list[Any]) -> None:
    """Hashes and ids are 32 bytes, a node id at most 64 bytes, batches at most 1024 items."""
    name = msg[0]
    hashes: list[bytes] = []
    if name == HELLO:
        require(len(msg[2]) <= MAX_NODE_ID_BYTES, KvReason.SESSION_BAD_MESSAGE, "node id size")
        hashes = [msg[3], msg[4]]
    elif name == TREE:
        hashes = [msg[1]]
    elif name in (REVS, WANT):
        hashes = msg[1]
    elif name == RESULTS:
        require(len(msg[1]) == len(msg[2]), KvReason.SESSION_BAD_MESSAGE, "RESULTS lengths")
        require(len(msg[1]) <= MAX_BATCH, KvReason.SESSION_BAD_MESSAGE, "RESULTS batch size")
    if name in BATCHED:
        require(len(msg[1]) <= MAX_BATCH, KvReason.SESSION_BAD_MESSAGE, f"{name} batch size")
    require(all(len(h) == 32 for h in hashes), KvReason.SESSION_BAD_MESSAGE, f"{name} hash size")
