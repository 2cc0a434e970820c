"""swarmconf.reference.configmerge: the fast config-merge library.

The same API as `swarmconf.spec.configmerge` (see the API contract), built for speed: a strict
decoder (compiled when the `bencode2` wheel is there), data kept in bt form until `data` is read,
copy-on-write replay, one encoding per serialization, received bytes written back when nothing
was dropped. `merge_parsed` merges messages already parsed, for callers that see them many times.
"""

from swarmconf.spec.configmerge.reasons import (
    ConfigError,
    DecryptError,
    PayloadError,
    PayloadReason,
    Reason,
    UsageError,
)

from .crypto import decrypt, encrypt, pad, padded_size, unpad
from .merge import merge, merge_parsed
from .message import ConfigMessage, LaggedEntry, parse
from .payload import (
    Received,
    Skipped,
    obsolete_after_edit,
    obsolete_after_merge,
    receive,
    unwrap,
    wrap,
)

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
