"""Sync-session messages (notes 3.5).

Each frame is one canonical msgpack array whose first element names the message. The transport
adds a `u32be` length prefix; frames are capped at 4 MiB.

| Message   | Fields after the name                                          |
|-----------|----------------------------------------------------------------|
| `HELLO`   | proto (1), node_id (bin), revset_hash (32), tree_hash (32)     |
| `REVS`    | the sender's revoked grant ids, sorted                         |
| `REVDATA` | signed revocations the peer lacks                              |
| `TREE`    | tree_hash (32): opens a pass                                   |
| `BYE`     | (ends the session)                                             |
| `KEYHASH` | key, ts, entry_hash                                            |
| `AGREE`, `YOURS`, `DONE`, `END` | (none)                                   |
| `MINE`, `RECORD` | record wire bytes                                       |
| `RESULT`  | outcome, reason (`""` if none), revocations, own record (`b""` if none) |
"""

from __future__ import annotations

from typing import Any

from .encoding import decode_canonical, encode
from .reasons import KvError, KvReason, require

PROTOCOL_VERSION = 1
MAX_FRAME_BYTES = 4 << 20
MAX_NODE_ID_BYTES = 64

HELLO = "HELLO"
REVS = "REVS"
REVDATA = "REVDATA"
TREE = "TREE"
BYE = "BYE"
KEYHASH = "KEYHASH"
AGREE = "AGREE"
MINE = "MINE"
YOURS = "YOURS"
RECORD = "RECORD"
RESULT = "RESULT"
DONE = "DONE"
END = "END"

FIELDS: dict[str, tuple[type, ...]] = {
    HELLO: (int, bytes, bytes, bytes),
    REVS: (list,),
    REVDATA: (list,),
    TREE: (bytes,),
    BYE: (),
    KEYHASH: (str, int, bytes),
    AGREE: (),
    MINE: (bytes,),
    YOURS: (),
    RECORD: (bytes,),
    RESULT: (str, str, list, bytes),
    DONE: (),
    END: (),
}
LIST_ITEM = bytes


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
    require(name in FIELDS, KvReason.SESSION_BAD_MESSAGE, f"unknown message {name!r}")
    kinds = FIELDS[name]
    require(len(value) == 1 + len(kinds), KvReason.SESSION_BAD_MESSAGE, f"{name} arity")
    for item, kind in zip(value[1:], kinds, strict=True):
        require(type(item) is kind, KvReason.SESSION_BAD_MESSAGE, f"{name} field type")
        if kind is list:
            require(
                all(type(x) is LIST_ITEM for x in item), KvReason.SESSION_BAD_MESSAGE, "list item"
            )
    check_sizes(value)
    return list(value)


def check_sizes(msg: list[Any]) -> None:
    """Hashes and ids are 32 bytes; a node id at most 64 bytes."""
    name = msg[0]
    hashes: list[bytes] = []
    if name == HELLO:
        require(len(msg[2]) <= MAX_NODE_ID_BYTES, KvReason.SESSION_BAD_MESSAGE, "node id size")
        hashes = [msg[3], msg[4]]
    elif name == TREE:
        hashes = [msg[1]]
    elif name == KEYHASH:
        hashes = [msg[3]]
    elif name == REVS:
        hashes = msg[1]
    require(all(len(h) == 32 for h in hashes), KvReason.SESSION_BAD_MESSAGE, f"{name} hash size")
