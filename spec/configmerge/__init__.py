"""swarmconf.spec.configmerge: the executable specification of the config-merge design.

Plain Python in the order of the design text, one function per rule; every docstring cites the
design text's section and the decisions D1..D20. It is the oracle that
`swarmconf.reference.configmerge`,
the conformance vectors and the fuzz campaign are checked against.

The public API (identical in `swarmconf.reference.configmerge`):

- `parse(data, *, lag=5, verify_key=None) -> ConfigMessage`, raising `ConfigError`;
- `merge(messages, *, lag=5, verify_key=None, sign_key=None) -> ConfigMessage`, and
  `merge_parsed(valid, ...)` of messages already parsed;
- `ConfigMessage.new(seqno, *, lag=5)`, `.increment()`, `.serialize(sign_key=None)`, and the
  attributes `seqno`, `hash`, `data`, `diff`, `lagged`, `merged`, `extra`, `signature`;
- `encrypt`, `decrypt`, `pad`, `unpad`, `padded_size`.

Data values are Python objects: `int` (signed 64 bits), `bytes`, `set[int | bytes]` for a set
and `dict[bytes, Value]` for a dict. A diff is a dict whose values are `b""`, `b"-"`, a nested
diff, or `[added, removed]`, two lists ordered as sets are. Lagged entries are
`LaggedEntry(seqno, hash, diff)`.
"""

from .encryption import decrypt, encrypt, pad, padded_size, unpad
from .merge import merge, merge_parsed
from .message import ConfigMessage, LaggedEntry, parse
from .reasons import ConfigError, DecryptError, Reason, UsageError

__all__ = [
    "ConfigError",
    "ConfigMessage",
    "DecryptError",
    "LaggedEntry",
    "Reason",
    "UsageError",
    "decrypt",
    "encrypt",
    "merge",
    "merge_parsed",
    "pad",
    "padded_size",
    "parse",
    "unpad",
]
