"""Reason codes: every way input can be refused, one stable identifier each.

Vectors, the conformance runner and the command line compare these codes, never message text
(X5). A code's value is its name, so it reads the same in JSON, on stderr and in Python.
`Reason` covers the message and its encryption; `PayloadReason` the payload layer around them
(D21..D26): compression, size limits and parts.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Why a message, a value or an argument was refused."""

    # bt-encoding (D10)
    BT_TRUNCATED = "BT_TRUNCATED"
    """The input ends inside a value."""
    BT_TRAILING_BYTES = "BT_TRAILING_BYTES"
    """Bytes follow the end of the top-level value."""
    BT_UNKNOWN_TYPE = "BT_UNKNOWN_TYPE"
    """A value starts with a byte that is not `i`, `l`, `d` or a digit."""
    BT_BAD_INTEGER = "BT_BAD_INTEGER"
    """An integer is empty or holds something other than an optional `-` and digits."""
    BT_LEADING_ZERO = "BT_LEADING_ZERO"
    """An integer or a string length has a leading zero (`i01e`, `02:hi`)."""
    BT_NEGATIVE_ZERO = "BT_NEGATIVE_ZERO"
    """The integer `i-0e`."""
    BT_INTEGER_RANGE = "BT_INTEGER_RANGE"
    """An integer outside signed 64 bits ([-2^63, 2^64-1] inside unknown top-level values, D9)."""
    BT_BAD_STRING_LENGTH = "BT_BAD_STRING_LENGTH"
    """A string length is not a run of digits followed by `:`."""
    BT_KEY_NOT_STRING = "BT_KEY_NOT_STRING"
    """A dict key is not a byte string."""
    BT_KEYS_UNSORTED = "BT_KEYS_UNSORTED"
    """Dict keys are not in ascending bytewise order."""
    BT_DUPLICATE_KEY = "BT_DUPLICATE_KEY"
    """A dict key appears twice."""
    BT_TOO_DEEP = "BT_TOO_DEEP"
    """Lists and dicts nest deeper than the nesting limit."""
    INPUT_TOO_LARGE = "INPUT_TOO_LARGE"
    """The input is larger than the configured maximum size."""

    # Outer message structure (D7, D8, D9)
    MSG_NOT_DICT = "MSG_NOT_DICT"
    """The top-level value is not a dict."""
    MSG_VERSION_BREAK = "MSG_VERSION_BREAK"
    """A top-level key sorts before `#`: a major version this client cannot read (D8)."""
    MSG_MISSING_SEQNO = "MSG_MISSING_SEQNO"
    """The first top-level key is not `#` (D8)."""
    MSG_BAD_SEQNO = "MSG_BAD_SEQNO"
    """The seqno `#` is not an integer (D8)."""
    MSG_MISSING_DATA = "MSG_MISSING_DATA"
    """There is no `&` key (D8)."""
    MSG_BAD_DATA = "MSG_BAD_DATA"
    """The `&` value is not a dict (D8)."""
    MSG_ENDS_BEFORE_DIFF = "MSG_ENDS_BEFORE_DIFF"
    """No top-level key sorts at or after `=` (D8)."""
    MSG_KEY_AFTER_SIGNATURE = "MSG_KEY_AFTER_SIGNATURE"
    """A top-level key sorts after `~` (D8, D17)."""

    # Lagged diffs `<` (D7)
    LAGGED_NOT_LIST = "LAGGED_NOT_LIST"
    """The `<` value is not a list."""
    LAGGED_BAD_ENTRY = "LAGGED_BAD_ENTRY"
    """A lagged entry is not a 3-element list `[int, bytes, dict]`."""
    LAGGED_BAD_HASH = "LAGGED_BAD_HASH"
    """A lagged entry's hash is not 32 bytes."""
    LAGGED_SEQNO_TOO_HIGH = "LAGGED_SEQNO_TOO_HIGH"
    """A lagged entry's seqno is not below the message's own seqno."""
    LAGGED_UNSORTED = "LAGGED_UNSORTED"
    """Kept lagged entries are not strictly ascending by (seqno, hash)."""

    # Diffs `=` and lagged diffs (D12, X3)
    DIFF_NOT_DICT = "DIFF_NOT_DICT"
    """The `=` value is not a dict."""
    DIFF_BAD_MARKER = "DIFF_BAD_MARKER"
    """A diff string is neither `""` nor `"-"`."""
    DIFF_INTEGER = "DIFF_INTEGER"
    """A diff holds an integer value (X3)."""
    DIFF_BAD_SET = "DIFF_BAD_SET"
    """A set diff is not exactly two lists of integers and byte strings."""
    DIFF_SET_UNSORTED = "DIFF_SET_UNSORTED"
    """A set diff list is not strictly ordered as sets are (ints first, no duplicates)."""

    # Application data `&` (D11)
    DATA_EMPTY_SET = "DATA_EMPTY_SET"
    """A set (list) in the data is empty."""
    DATA_SET_NOT_SCALAR = "DATA_SET_NOT_SCALAR"
    """A set holds a list or a dict."""
    DATA_SET_UNSORTED = "DATA_SET_UNSORTED"
    """A set is not strictly ordered: ints before strings, each part ascending, no duplicates."""
    DATA_EMPTY_DICT = "DATA_EMPTY_DICT"
    """A dict below the top level of the data is empty."""

    # Signatures `~` (D17)
    SIG_MALFORMED = "SIG_MALFORMED"
    """The `~` value is not a 64-byte string."""
    SIG_MISSING = "SIG_MISSING"
    """Verification is required and the message has no signature."""
    SIG_INVALID = "SIG_INVALID"
    """The signature does not verify under the given key."""

    # Encryption (D18, D19)
    DECRYPT_TOO_SHORT = "DECRYPT_TOO_SHORT"
    """The ciphertext is shorter than the 16-byte tag and the 24-byte nonce."""
    DECRYPT_FAILED = "DECRYPT_FAILED"
    """Authentication failed: wrong key, wrong domain or tampered ciphertext."""

    # Merging (D14)
    NO_VALID_MESSAGE = "NO_VALID_MESSAGE"
    """A merge was given no valid message."""
    SEQNO_OVERFLOW = "SEQNO_OVERFLOW"
    """A new seqno would not fit in signed 64 bits."""

    # Usage errors: bad arguments from the caller, not bad messages
    BAD_LAG = "BAD_LAG"
    """Lag is not an integer >= 1 (D16, X4)."""
    BAD_KEY = "BAD_KEY"
    """A signing, verification or encryption key has the wrong type or length."""
    BAD_DOMAIN = "BAD_DOMAIN"
    """An encryption domain is not 1 to 24 bytes (D19)."""
    BAD_PROFILE = "BAD_PROFILE"
    """An encryption profile other than `spec` or `libsession`."""
    BAD_VALUE_TYPE = "BAD_VALUE_TYPE"
    """Data to be written holds a value that is not an int, bytes, set or dict."""
    INT_OUT_OF_RANGE = "INT_OUT_OF_RANGE"
    """Data to be written holds an integer outside signed 64 bits."""
    KEY_TOO_LONG = "KEY_TOO_LONG"
    """Data to be written has a key longer than 128 bytes (D11)."""
    STRING_TOO_LONG = "STRING_TOO_LONG"
    """Data to be written has a string longer than 4096 bytes (D11)."""


class PayloadReason(StrEnum):
    """Why a payload (what a client stores in the swarm, D21..D26) was refused or skipped."""

    # Pushing (D21, D22, X11)
    PAYLOAD_TOO_LARGE = "PAYLOAD_TOO_LARGE"
    """A message or a padded payload is over 5,000,000 bytes (D22)."""
    PUSH_TOO_LARGE = "PUSH_TOO_LARGE"
    """An encrypted payload is over 76,800 bytes and the client does not split it (D22, X11)."""

    # Receiving (D23)
    PAYLOAD_EMPTY = "PAYLOAD_EMPTY"
    """Nothing is left of a decrypted payload once its leading zero bytes are stripped."""
    PAYLOAD_MULTIPART_UNSUPPORTED = "PAYLOAD_MULTIPART_UNSUPPORTED"
    """A part (`m`) reached a client that does not join parts (X11)."""
    PAYLOAD_NOT_MESSAGE = "PAYLOAD_NOT_MESSAGE"
    """A joined payload holds something other than a message (`d`) (D26)."""
    PAYLOAD_SEVERAL_MESSAGES = "PAYLOAD_SEVERAL_MESSAGES"
    """`unwrap` was given no payload that holds a message, or the payloads of several."""

    # zstd (D21, D24)
    ZSTD_BAD_FRAME = "ZSTD_BAD_FRAME"
    """The rest of a `z` payload is not a sequence of complete zstd frames."""
    ZSTD_EMPTY = "ZSTD_EMPTY"
    """A `z` payload decompresses to nothing."""
    ZSTD_TOO_LARGE = "ZSTD_TOO_LARGE"
    """A `z` payload would inflate past 5,000,000 bytes; refused before it is materialised."""

    # Parts (D25, D26)
    PART_TOO_LARGE = "PART_TOO_LARGE"
    """An encrypted part is over 76,800 bytes."""
    PART_MALFORMED = "PART_MALFORMED"
    """A part is not `m` followed by a bt list of at least four byte strings."""
    PART_TRAILING_ELEMENTS = "PART_TRAILING_ELEMENTS"
    """A part's list holds more than four elements."""
    PART_TRAILING_BYTES = "PART_TRAILING_BYTES"
    """Something other than up to four NUL bytes follows a part's list."""
    PART_BAD_HASH = "PART_BAD_HASH"
    """A part's hash is not 32 bytes."""
    PART_BAD_INDEX = "PART_BAD_INDEX"
    """A part's index is not exactly one byte."""
    PART_BAD_COUNT = "PART_BAD_COUNT"
    """A part's count is not exactly one byte, or is 0 or 1."""
    PART_INDEX_RANGE = "PART_INDEX_RANGE"
    """A part's index is not below its count."""
    PART_EMPTY_CHUNK = "PART_EMPTY_CHUNK"
    """A part carries an empty chunk."""
    PARTS_COUNT_MISMATCH = "PARTS_COUNT_MISMATCH"
    """Parts with the same hash disagree on the count."""
    PARTS_INCOMPLETE = "PARTS_INCOMPLETE"
    """Some part of a set is missing."""
    PARTS_HASH_MISMATCH = "PARTS_HASH_MISMATCH"
    """The joined parts do not hash (BLAKE2b-256) to the hash the parts carry."""

    # Usage errors
    BAD_LEVEL = "BAD_LEVEL"
    """A zstd compression level other than 1 to 22, or none."""
    NO_KEYS = "NO_KEYS"
    """No decryption key was given."""


AnyReason = Reason | PayloadReason
"""A reason code of either enum."""


class ConfigError(Exception):
    """A message or value was refused; `.reason` says why."""

    def __init__(self, reason: AnyReason, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)


class DecryptError(ConfigError):
    """A ciphertext could not be decrypted (D18, D19)."""


class PayloadError(ConfigError):
    """A payload was refused (D21..D26); `.reason` is a `PayloadReason`."""


class UsageError(ValueError):
    """The caller passed a bad argument or tried to write invalid data; `.reason` says why."""

    def __init__(self, reason: AnyReason, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)


def require(condition: bool, reason: Reason, detail: str = "") -> None:
    """Raise `ConfigError(reason)` unless `condition` holds."""
    if not condition:
        raise ConfigError(reason, detail)


def require_payload(condition: bool, reason: PayloadReason, detail: str = "") -> None:
    """Raise `PayloadError(reason)` unless `condition` holds."""
    if not condition:
        raise PayloadError(reason, detail)
