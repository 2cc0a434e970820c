"""swarmconf.spec.configmerge: the executable specification of the config-merge design.

Plain Python in the order of the design text, one function per rule; every docstring cites the
design text's section and the decisions D1..D32. It is the oracle that
`swarmconf.reference.configmerge`,
the conformance vectors and the fuzz campaign are checked against.

The public API (identical in `swarmconf.reference.configmerge`):

- `parse(data, *, lag=5, verify_key=None) -> ConfigMessage`, raising `ConfigError`;
- `merge(messages, *, lag=5, verify_key=None, sign_key=None) -> ConfigMessage`, and
  `merge_parsed(valid, ...)` of messages already parsed;
- `ConfigMessage.new(seqno, *, lag=5)`, `.increment()`, `.serialize(sign_key=None)`, and the
  attributes `seqno`, `hash`, `data`, `diff`, `lagged`, `merged`, `extra`, `signature`;
- `encrypt`, `decrypt`, `pad`, `unpad`, `padded_size`;
- the payload layer (D21..D26): `wrap(message, key, domain, *, level=1, multipart=True)` gives
  the blobs a client pushes, `receive(blobs, keys, domain, *, multipart=True)` the messages
  they hold and the blobs skipped with their reason, `unwrap(...)` the one message or a
  `PayloadError`; `multipart=False` is the pinned deployed client (X11);
- what a push deletes (D27): `obsolete_after_merge(messages, result, ...)` and
  `obsolete_after_edit(previous)`, hashes ascending.

Data values are Python objects: `int` (signed 64 bits), `bytes`, `set[int | bytes]` for a set
and `dict[bytes, Value]` for a dict. A diff is a dict whose values are `b""`, `b"-"`, a nested
diff, or `[added, removed]`, two lists ordered as sets are. Lagged entries are
`LaggedEntry(seqno, hash, diff)`.
"""

from .encryption import decrypt, encrypt, pad, padded_size, unpad
from .merge import merge, merge_parsed
from .message import ConfigMessage, LaggedEntry, parse
from .obsolete import obsolete_after_edit, obsolete_after_merge
from .payload import Received, Skipped, receive, unwrap, wrap
from .reasons import ConfigError, DecryptError, PayloadError, PayloadReason, Reason, UsageError

__all__ = [
    "ConfigError",
    "ConfigMessage",
    "DecryptError",
    "LaggedEntry",
    "PayloadError",
    "PayloadReason",
    "Reason",
    "Received",
    "Skipped",
    "UsageError",
    "decrypt",
    "encrypt",
    "merge",
    "merge_parsed",
    "obsolete_after_edit",
    "obsolete_after_merge",
    "pad",
    "padded_size",
    "parse",
    "receive",
    "unpad",
    "unwrap",
    "wrap",
]
