"""The cosmic-ray mutants of the spec no vector can tell from it, each with why (the coverage
page lists them): equivalent on every input the protocol can send, or unreachable through it.
They are left out of the mutation score (`mutation.py`), as are mutants inside annotations."""

from __future__ import annotations

SMALL_INT = "equivalent: both sides are byte values (0-255), which CPython caches: `is` is `==`"
NEVER_ZERO = (
    "equivalent: the digits are never exactly `0` here (`i0e` and `0:` are canonical,"
    " `i-0e` is refused before), so the comparison is always false"
)
DIGIT_BYTE = "equivalent: a digit byte is never below `0`: `!=` and `>` agree"
NON_EMPTY = "equivalent: a byte string is greater than b'' exactly when it is not empty"
AT_MOST_LENGTH = "equivalent: the cursor never passes the input's end, so `>=` and `==` agree"
DEPTH_BY_ONE = (
    "equivalent: the depth grows by one and is refused at 64, so `<`, `!=` and `is not` agree"
)
REFUSED_AFTER = (
    "equivalent: the cursor moved past the terminator is not read: a refusal follows at once"
)
TWO_KINDS = "equivalent: the byte is `l` or `d`, and only `l` is at or above `l`"
AT_MOST_PREVIOUS = "equivalent: the key is at most the previous one here: `>=` means `==`"

Listed = list[tuple[str, str, list[str], str]]
"""Function, mutated line (whitespace collapsed), cosmic-ray operators, why. An operator
written `NAME@COLUMN` is the one at that column of the line, where the line has two."""

BT: Listed = [
    (
        "refuse_integer",
        'require(magnitude == b"0" or magnitude[0] != ord("0"), Reason.BT_LEADING_ZERO)',
        [
            "ReplaceComparisonOperator_Eq_Lt",
            "ReplaceComparisonOperator_Eq_LtE",
            "ReplaceComparisonOperator_Eq_Is",
        ],
        NEVER_ZERO,
    ),
    (
        "refuse_length",
        'require(length_text == b"0" or length_text[0] != ord("0"), Reason.BT_LEADING_ZERO)',
        [
            "ReplaceComparisonOperator_Eq_Lt",
            "ReplaceComparisonOperator_Eq_LtE",
            "ReplaceComparisonOperator_Eq_Is",
        ],
        NEVER_ZERO,
    ),
    (
        "refuse_integer",
        'require(magnitude == b"0" or magnitude[0] != ord("0"), Reason.BT_LEADING_ZERO)',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        DIGIT_BYTE,
    ),
    (
        "refuse_length",
        'require(length_text == b"0" or length_text[0] != ord("0"), Reason.BT_LEADING_ZERO)',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        DIGIT_BYTE,
    ),
    (
        "refuse_length",
        'require(length_text == b"0" or length_text[0] != ord("0"), Reason.BT_LEADING_ZERO)',
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        SMALL_INT,
    ),
    (
        "refuse_integer",
        'require(magnitude == b"0" or magnitude[0] != ord("0"), Reason.BT_LEADING_ZERO)',
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        SMALL_INT,
    ),
    ("value", "if kind == INTEGER_START:", ["ReplaceComparisonOperator_Eq_Is"], SMALL_INT),
    (
        "digits_until",
        "if char != terminator:",
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        SMALL_INT,
    ),
    ("list", "while self.peek() != END:", ["ReplaceComparisonOperator_NotEq_IsNot"], SMALL_INT),
    (
        "dict",
        "while (kind := self.peek()) != END:",
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        SMALL_INT,
    ),
    (
        "refuse_integer",
        'require(magnitude != b"", Reason.BT_BAD_INTEGER, "no digits")',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        NON_EMPTY,
    ),
    (
        "decode",
        'require(reader.pos == len(data), Reason.BT_TRAILING_BYTES, f"at offset {reader.pos}")',
        ["ReplaceComparisonOperator_Eq_GtE"],
        AT_MOST_LENGTH,
    ),
    (
        "peek",
        "if self.pos >= len(self.data):",
        ["ReplaceComparisonOperator_GtE_Eq"],
        AT_MOST_LENGTH,
    ),
    (
        "value",
        "return self.list(depth + 1, wide) if kind == LIST_START else self.dict(depth + 1, wide)",
        ["ReplaceComparisonOperator_Eq_GtE"],
        TWO_KINDS,
    ),
    (
        "dict",
        "reason = Reason.BT_DUPLICATE_KEY if key == previous else Reason.BT_KEYS_UNSORTED",
        ["ReplaceComparisonOperator_Eq_GtE"],
        AT_MOST_PREVIOUS,
    ),
    (
        "value",
        'require(depth < MAX_DEPTH, Reason.BT_TOO_DEEP, f"deeper than {MAX_DEPTH}")',
        [
            "ReplaceComparisonOperator_Lt_NotEq",
            "ReplaceComparisonOperator_Lt_IsNot",
        ],
        DEPTH_BY_ONE,
    ),
    ("digits_until", "self.pos += 1", ["NumberReplacer"], REFUSED_AFTER),
    (
        "dict",
        "depth == 1 and self.wide_int_keys is not None and self.wide_int_keys(key)",
        ["ReplaceComparisonOperator_Eq_LtE"],
        "equivalent: a dict is read at depth 1 or deeper, so `<= 1` means `== 1`",
    ),
    (
        "value",
        "return self.list(depth + 1, wide) if kind == LIST_START else self.dict(depth + 1, wide)",
        ["ReplaceComparisonOperator_Eq_Is"],
        SMALL_INT,
    ),
    (
        "refuse_integer",
        'require(text != b"-0", Reason.BT_NEGATIVE_ZERO)',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        "equivalent: a sign and digits, not empty, are below `-0` never: `!=` and `>` agree",
    ),
    (
        "refuse_integer",
        'require(magnitude != b"", Reason.BT_BAD_INTEGER, "no digits")',
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        "equivalent: CPython's empty byte string is one object: `is not` is `!=`",
    ),
    (
        "string",
        "self.digits_until(LENGTH_END, Reason.BT_BAD_STRING_LENGTH, signed=False)",
        ["ReplaceFalseWithTrue"],
        "equivalent: a length starts with a digit (the reader looked), so no minus is matched",
    ),
]

DATA: Listed = [
    (
        "set_order",
        "return (True, 0, element)",
        ["NumberReplacer"],
        "equivalent: the middle field orders integers only; any constant does for byte strings",
    ),
    (
        "_copied",
        "if isinstance(value, int | bytes):",
        ["AddNot"],
        "equivalent: integers and byte strings deep-copy to themselves, and what else reaches"
        " here (a writer's stray value, refused when serialized) is never changed in place",
    ),
    (
        "check_set",
        "require(items != [], Reason.DATA_EMPTY_SET)",
        ["ReplaceComparisonOperator_NotEq_Gt"],
        "equivalent: a list is greater than [] exactly when it is not empty",
    ),
]

ENUM = "equivalent: enum members are singletons: `is` is `==`"
EMPTY_BYTES = "equivalent: CPython's empty byte string is one object: `is` is `==` for b''"

KINDS_RELABELLED = (
    "equivalent: kind_of is only compared with itself, on two present values (change), and"
    " the mutant still gives dicts, sets and scalars three distinct labels"
)
ONE_KIND = "equivalent: reached only when both values are of one kind (kind_of)"

DIFF: Listed = [
    (
        "kind_of",
        'return "scalar" if value is not None else "absent"',
        ["ReplaceComparisonOperator_IsNot_Is"],
        KINDS_RELABELLED,
    ),
    ("kind_of", "if isinstance(value, set):", ["AddNot"], KINDS_RELABELLED),
    (
        "kind_of",
        'return "scalar" if value is not None else "absent"',
        ["AddNot"],
        KINDS_RELABELLED,
    ),
    (
        "check_written_limits",
        "if isinstance(entry, dict) and isinstance(value, dict):",
        ["ReplaceAndWithOr"],
        "equivalent: the diff checked is made from that data: an entry is a dict where the"
        " value is",
    ),
    (
        "change",
        "if isinstance(old, dict) and isinstance(new, dict):",
        ["ReplaceAndWithOr"],
        ONE_KIND,
    ),
    ("change", "if isinstance(old, set) and isinstance(new, set):", ["ReplaceAndWithOr"], ONE_KIND),
    (
        "adds_anything",
        "return entry == ASSIGNED",
        ["ReplaceComparisonOperator_Eq_LtE"],
        "equivalent: a marker is b'' or b'-', and only b'' is at or below b''",
    ),
    (
        "adds_anything",
        "return entry[0] != []",
        ["ReplaceComparisonOperator_NotEq_Gt"],
        "equivalent: a list is greater than [] exactly when it is not empty",
    ),
    (
        "change",
        "if kind_of(old) != kind_of(new):",
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        "equivalent: kind_of answers one of four string constants, which CPython interns",
    ),
    ("adds_anything", "return entry == ASSIGNED", ["ReplaceComparisonOperator_Eq_Is"], EMPTY_BYTES),
    (
        "apply_diff",
        "if entry == ASSIGNED and is_scalar(origin):",
        ["ReplaceComparisonOperator_Eq_Is"],
        EMPTY_BYTES,
    ),
]

ONLY_SPEC = "equivalent: the profiles are spec and libsession: only spec is at or above spec"
TWO_PROFILES = "equivalent: the profiles are spec and libsession; only libsession is at or below it"

CLIENT: Listed = [
    (
        "resolution",
        'if self.profile == "spec" or self.state == State.DIRTY:',
        ["ReplaceComparisonOperator_Eq_GtE@24"],
        ONLY_SPEC,
    ),
    (
        "as_pushed",
        'if not message.editable and (self.profile == "spec" or self.sign_key is None):',
        ["ReplaceComparisonOperator_Eq_GtE"],
        ONLY_SPEC,
    ),
    (
        "verifier",
        'if profile == "spec" or sign_key is None:',
        ["ReplaceComparisonOperator_Eq_GtE"],
        ONLY_SPEC,
    ),
    (
        "edit",
        'if self.profile == "libsession" and self.unchanged(data):',
        ["ReplaceComparisonOperator_Eq_LtE"],
        TWO_PROFILES,
    ),
    (
        "resolution",
        'if self.profile == "spec" or self.state == State.DIRTY:',
        ["ReplaceComparisonOperator_Eq_Is@48"],
        ENUM,
    ),
    ("edit", "if self.state != State.DIRTY:", ["ReplaceComparisonOperator_NotEq_IsNot"], ENUM),
    (
        "needs_push",
        "return self.state != State.CLEAN",
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        ENUM,
    ),
    (
        "confirm",
        "if self.state == State.WAITING and pushed and message and pushed.seqno == message.seqno:",
        ["ReplaceComparisonOperator_Eq_Is@11", "ReplaceComparisonOperator_Eq_Is@22"],
        ENUM,
    ),
    (
        "confirm",
        "if self.state == State.WAITING and pushed and message and pushed.seqno == message.seqno:",
        ["ReplaceComparisonOperator_Eq_Is@79"],
        "equivalent: while waiting, the message is the one pushed, whose very seqno the push"
        " recorded",
    ),
    (
        "confirm",
        "if self.state == State.WAITING and pushed and message and pushed.seqno == message.seqno:",
        ["ReplaceAndWithOr@39"],
        "equivalent: outside waiting, a message of the pushed seqno is the confirmed push itself"
        " (an edit or a merge raises the seqno): making it clean with its hash changes nothing",
    ),
    (
        "confirm",
        "if self.state == State.WAITING and pushed and message and pushed.seqno == message.seqno:",
        ["ReplaceComparisonOperator_Eq_LtE@79", "ReplaceComparisonOperator_Eq_GtE@79"],
        "equivalent: while waiting, the message is the one pushed: the seqnos are equal",
    ),
    (
        "leave_clean",
        "if self.state == State.CLEAN and self.current_hash is not None:",
        ["ReplaceComparisonOperator_Eq_Is"],
        ENUM,
    ),
    ("leave_clean", "if self.state == State.CLEAN:", ["ReplaceComparisonOperator_Eq_Is"], ENUM),
    (
        "resolution",
        "merged=True,",
        ["ReplaceTrueWithFalse"],
        "equivalent: `merged` is read only of a merge's result (D27), and the message a client"
        " pushes enters a later merge parsed again from its bytes (D29)",
    ),
    (
        "receive",
        "if all(result is not message for message in valid):",
        ["ReplaceComparisonOperator_IsNot_NotEq"],
        "equivalent: messages compare by identity (ConfigMessage defines no equality)",
    ),
    (
        "receive",
        "elif own and result.hash == own[0].hash:",
        ["NumberReplacer"],
        "equivalent for the index -1: `own` holds at most one message (the index 1 is killed)",
    ),
]

DETAIL = "equivalent: the refusal's detail text, which no answer holds (reason codes only, X5)"
OPERATORS = ("Sub", "Mul", "Div", "FloorDiv", "Mod", "Pow", "RShift", "LShift", "BitOr")
ARITHMETIC = [f"ReplaceBinaryOperator_Add_{name}" for name in (*OPERATORS, "BitAnd", "BitXor")]
PADDED_SIZES = (
    "equivalent: above 40,920 bytes a padded payload is 5,120k - 40 bytes (D19), so none is"
    " exactly 5,000,000"
)

PAYLOAD: Listed = [
    (
        "unwrap",
        'raise cls(first.reason, f"blob {first.blobs[0] + 1} of {len(blobs)}")',
        [*ARITHMETIC, "NumberReplacer"],
        DETAIL,
    ),
    (
        "unwrap",
        "cls = PayloadError if isinstance(first.reason, PayloadReason) else DecryptError",
        ["AddNot"],
        "equivalent: the refusal's class, which no answer holds (its reason code does)",
    ),
    (
        "unwrap",
        "return received.messages[0]",
        ["NumberReplacer"],
        "equivalent for the index -1: there is exactly one message here (the index 1 is killed)",
    ),
    (
        "read_plaintext",
        'require_payload(payload != b"", PayloadReason.PAYLOAD_EMPTY)',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        NON_EMPTY,
    ),
    (
        "read_joined",
        'require_payload(payload != b"", PayloadReason.PAYLOAD_EMPTY)',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        NON_EMPTY,
    ),
    (
        "read_plaintext",
        'require_payload(payload != b"", PayloadReason.PAYLOAD_EMPTY)',
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        EMPTY_BYTES,
    ),
    (
        "read_joined",
        'require_payload(payload != b"", PayloadReason.PAYLOAD_EMPTY)',
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        EMPTY_BYTES,
    ),
    (
        "check_payload_size",
        'len(padded) <= MAX_PAYLOAD_SIZE, PayloadReason.PAYLOAD_TOO_LARGE, "the padded payload"',
        ["ReplaceComparisonOperator_LtE_Lt"],
        PADDED_SIZES,
    ),
    (
        "receive",
        "blobs: list[bytes], keys: list[bytes], domain: bytes, *, multipart: bool = True",
        ["ReplaceTrueWithFalse"],
        "equivalent: a default its one caller (unwrap) always overrides",
    ),
    (
        "collect_parts",
        "if part.count != first.count:",
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        SMALL_INT,
    ),
    (
        "receive_parts",
        "joined[positions[0]] = read_joined(parts.join_parts(chunks, MAX_PAYLOAD_SIZE))",
        ["NumberReplacer"],
        "equivalent: a joined message's position only orders the messages found, and unwrap"
        " answers only when there is one",
    ),
]

ONE_BYTE = "equivalent: the index of a one-byte string: [-1] is [0] (the index 1 is killed)"
CHUNKS = "equivalent: at 5,120, 20,480 and 40,960 bytes, both chunk sizes divide the total (D19)"

ENCRYPTION: Listed = [
    ("encrypt", 'if profile == "libsession":', ["ReplaceComparisonOperator_Eq_LtE"], TWO_PROFILES),
    ("decrypt", 'if profile == "libsession":', ["ReplaceComparisonOperator_Eq_LtE"], TWO_PROFILES),
    (
        "check_arguments",
        "if not isinstance(key, bytes) or len(key) != KEY_LENGTH:",
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        SMALL_INT,
    ),
    (
        "padded_size",
        "if total < 5120:",
        ["ReplaceComparisonOperator_Lt_LtE", "NumberReplacer"],
        CHUNKS,
    ),
    (
        "padded_size",
        "elif total < 20480:",
        ["ReplaceComparisonOperator_Lt_LtE", "NumberReplacer"],
        CHUNKS,
    ),
    (
        "padded_size",
        "elif total < 40960:",
        ["ReplaceComparisonOperator_Lt_LtE", "NumberReplacer"],
        CHUNKS,
    ),
]

PARTS: Listed = [
    (
        "needs_split",
        "return len(padded) + ENCRYPTION_OVERHEAD > MAX_BLOB_SIZE",
        [
            "ReplaceBinaryOperator_Add_Sub",
            "ReplaceBinaryOperator_Add_BitOr",
            "ReplaceBinaryOperator_Add_BitXor",
        ],
        "equivalent: above 40,920 bytes a padded payload is 5,120k - 40 bytes (D19), so none"
        " lies between 76,680 and 81,880, where these differ from `+`",
    ),
    (
        "part_fields",
        "if error.reason == Reason.BT_TRAILING_BYTES:",
        ["ReplaceComparisonOperator_Eq_Is"],
        ENUM,
    ),
    (
        "decode_part",
        'require_payload(len(digest) == HASH_SIZE, PayloadReason.PART_BAD_HASH, f"{len(digest)}'
        ' bytes")',
        ["ReplaceComparisonOperator_Eq_Is"],
        SMALL_INT,
    ),
    (
        "decode_part",
        'require_payload(chunk != b"", PayloadReason.PART_EMPTY_CHUNK)',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        NON_EMPTY,
    ),
    (
        "decode_part",
        'require_payload(chunk != b"", PayloadReason.PART_EMPTY_CHUNK)',
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        EMPTY_BYTES,
    ),
    (
        "decode_part",
        "require_payload(len(elements) == 4, PayloadReason.PART_TRAILING_ELEMENTS,"
        ' f"{len(elements)}")',
        ["ReplaceComparisonOperator_Eq_LtE"],
        "equivalent: the list has a fourth element here (it was read): `<= 4` means `== 4`",
    ),
    (
        "join_parts",
        'require_payload(missing == [], PayloadReason.PARTS_INCOMPLETE, f"missing {missing}")',
        ["ReplaceComparisonOperator_Eq_LtE"],
        "equivalent: a list is at most [] exactly when it is empty",
    ),
    (
        "field",
        'require_payload(position < len(elements), PayloadReason.PART_MALFORMED, "the list ends'
        ' early")',
        ["ReplaceComparisonOperator_Lt_NotEq", "ReplaceComparisonOperator_Lt_IsNot"],
        "equivalent: fields are read in order, so the position is never past the list's length",
    ),
    (
        "",
        "@dataclass(frozen=True)",
        ["ReplaceTrueWithFalse"],
        "equivalent: nothing assigns to a part's fields or hashes a part",
    ),
    (
        "decode_part",
        'require_payload(count[0] > 1, PayloadReason.PART_BAD_COUNT, f"count {count[0]}")',
        ["NumberReplacer"],
        ONE_BYTE,
    ),
    (
        "decode_part",
        'require_payload(index[0] < count[0], PayloadReason.PART_INDEX_RANGE, f"index {index[0]}")',
        ["NumberReplacer"],
        ONE_BYTE,
    ),
    ("decode_part", "return Part(digest, index[0], count[0], chunk)", ["NumberReplacer"], ONE_BYTE),
    (
        "join_parts",
        'payload_hash(padded) == found[0].hash, PayloadReason.PARTS_HASH_MISMATCH, "joined"',
        ["NumberReplacer"],
        "equivalent: parts are collected by their hash, so every part of a set carries one"
        " (the index -1 is killed)",
    ),
]

SIGNING: Listed = [
    (
        "signing_key",
        "if len(sign_key) == 64 and bytes(key.verify_key) != sign_key[32:]:",
        ["ReplaceComparisonOperator_Eq_GtE"],
        "equivalent: a signing key is 32 or 64 bytes here (checked before), so `>= 64` means"
        " `== 64`",
    ),
]

JSON_INTEGER = (
    "unreachable: a request's seqno and lag are JSON integers (the schema refuses booleans)"
)
ASSERTED = "equivalent: an assertion of what the checks before it established"

MESSAGE: Listed = [
    (
        "increment",
        "if self.seqno == INT64_MAX:",
        ["ReplaceComparisonOperator_Eq_GtE"],
        "equivalent: a seqno is never above INT64_MAX",
    ),
    (
        "check_signature_field",
        "isinstance(signature, bytes) and len(signature) == SIGNATURE_LENGTH,",
        ["ReplaceComparisonOperator_Eq_Is"],
        SMALL_INT,
    ),
    (
        "check_lagged",
        "require(len(kept) < 2 or kept[-2][:2] < kept[-1][:2], Reason.LAGGED_UNSORTED,"
        ' f"{item[0]}")',
        ["NumberReplacer"],
        "equivalent for a slice of three fields (a tuple equal to a shorter one in its first"
        " fields is greater: the same refusals) and for the detail text's index",
    ),
    (
        "__init__",
        "verified: bool = False,",
        ["ReplaceFalseWithTrue"],
        "equivalent: only a parsed message carries a signature, and parse names `verified`",
    ),
    (
        "check_seqno",
        "require(first == SEQNO_KEY, Reason.MSG_MISSING_SEQNO)",
        ["ReplaceComparisonOperator_Eq_Is"],
        "equivalent: the key `#` is one byte, and CPython's one-byte strings are single objects",
    ),
    (
        "check_lagged",
        "isinstance(item, list) and item != [] and isinstance(item[0], int),",
        ["ReplaceComparisonOperator_NotEq_Gt"],
        "equivalent: a list is greater than [] exactly when it is not empty",
    ),
    (
        "check_lagged",
        "assert isinstance(item, list) and isinstance(item[0], int)",
        ["ReplaceAndWithOr"],
        ASSERTED,
    ),
    (
        "check_lagged_entry",
        "assert isinstance(entry_seqno, int) and isinstance(entry_hash, bytes)",
        ["ReplaceAndWithOr"],
        ASSERTED,
    ),
    (
        "check_lag",
        "if isinstance(lag, bool) or not isinstance(lag, int) or lag < 1:",
        ["ReplaceOrWithAnd@29"],
        JSON_INTEGER,
    ),
    (
        "new",
        "if isinstance(seqno, bool) or not isinstance(seqno, int):",
        ["ReplaceOrWithAnd"],
        JSON_INTEGER,
    ),
    (
        "",
        "DEFAULT_LAG = 5",
        ["NumberReplacer"],
        "unreachable: the Python API's default lag; every request names its lag",
    ),
    (
        "__repr__",
        'return f"ConfigMessage(seqno={self.seqno}, hash={self.hash.hex()[:16]}…)"',
        ["NumberReplacer"],
        "equivalent: the debugging representation, in no answer",
    ),
]

REASONS: Listed = [
    (
        "__init__",
        'super().__init__(f"{reason.value}: {detail}" if detail else reason.value)',
        ["AddNot"],
        "equivalent: the error's message text, which no answer holds (reason codes only, X5)",
    ),
]

MERGE: Listed = [
    (
        "merge_parsed",
        "if len(remaining) == 1:",
        ["ReplaceComparisonOperator_Eq_LtE"],
        "equivalent: the ignore rules keep at least one message, so `<= 1` means `== 1`",
    ),
    (
        "merge_parsed",
        "return remaining[0]",
        ["NumberReplacer"],
        "equivalent for the index -1: one message remains here (the index 1 is killed)",
    ),
    (
        "merge_messages",
        "if ranked[0].seqno == INT64_MAX:",
        ["ReplaceComparisonOperator_Eq_GtE"],
        "equivalent: a parsed seqno is never above INT64_MAX",
    ),
    (
        "merge",
        'require(valid != [], Reason.NO_VALID_MESSAGE, f"none of {len(messages)} inputs")',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        "equivalent: a list is greater than [] exactly when it is not empty",
    ),
]

COMPRESSION: Listed = [
    (
        "",
        "READ_SIZE = 1 << 16",
        [
            f"ReplaceBinaryOperator_LShift_{name}"
            for name in ("Add", "Mul", "Mod", "Pow", "BitOr", "BitXor")
        ],
        "equivalent: the bound is checked on the running total, so any positive read size"
        " refuses exactly the outputs over it",
    ),
    (
        "inflate_bounded",
        "reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(frames),"
        " read_across_frames=True)",
        ["ReplaceTrueWithFalse"],
        "equivalent: the loop reads until the reader is exhausted, so whether one read crosses"
        " a frame's end does not matter",
    ),
    (
        "decompress",
        'require_payload(message != b"", PayloadReason.ZSTD_EMPTY)',
        ["ReplaceComparisonOperator_NotEq_Gt"],
        NON_EMPTY,
    ),
    (
        "decompress",
        'require_payload(message != b"", PayloadReason.ZSTD_EMPTY)',
        ["ReplaceComparisonOperator_NotEq_IsNot"],
        "equivalent: an empty output is b''.join([]), CPython's one empty byte string",
    ),
    (
        "announced_size",
        "return None if size < 0 else size",
        ["ReplaceComparisonOperator_Lt_Eq", "ReplaceComparisonOperator_Lt_LtE", "NumberReplacer"],
        "equivalent: no size announced (negative) or a size of 0 read either way passes the"
        " bound, and the output is bounded while it is inflated",
    ),
    (
        "frames_complete",
        "return False",
        ["ReplaceFalseWithTrue"],
        "unreachable: frames the decoder refuses were refused by the bounded inflation before",
    ),
    (
        "frames_complete",
        "except zstandard.ZstdError:",
        ["ExceptionReplacer"],
        "unreachable: frames the decoder refuses were refused by the bounded inflation before",
    ),
    (
        "",
        "DEFAULT_LEVEL = 1",
        ["NumberReplacer"],
        "unreachable: the Python API's default level; the protocol's `wrap` names its level",
    ),
    (
        "",
        "READ_SIZE = 1 << 16",
        ["NumberReplacer"],
        "equivalent: the bound is checked on the running total, so any read size refuses"
        " exactly the outputs over it",
    ),
]

EQUIVALENT: dict[tuple[str, str, str, str], str] = {
    (module, function, line, operator): reason
    for module, listed in {
        "bt": BT,
        "data": DATA,
        "diff": DIFF,
        "encryption": ENCRYPTION,
        "client": CLIENT,
        "parts": PARTS,
        "payload": PAYLOAD,
        "merge": MERGE,
        "message": MESSAGE,
        "signing": SIGNING,
        "reasons": REASONS,
        "compression": COMPRESSION,
    }.items()
    for function, line, operators, reason in listed
    for operator in operators
}
"""By module, function, mutated line (whitespace collapsed) and cosmic-ray operator."""
UNREACHABLE: dict[tuple[str, str], str] = {
    ("rules", "implementation"): (
        "unreachable: the rule registry's lookup of a rule's functions, for the docs and the"
        " tests; no operation calls it"
    ),
    ("examples", "*"): (
        "unreachable: the design text's example messages, from which the generator builds the"
        " design_examples vectors; no operation reads them (the vectors hold their bytes)"
    ),
    ("obsolete", "deployed_obsolete_after_merge"): (
        "unreachable: the deployed client's deletions (X12), which the fuzz campaign's mutant"
        " and the reference use and no answer does (its unit tests check it)"
    ),
    ("payload", "check_blob_size"): (
        "unreachable: only a client that does not split (X11, `multipart=False`) refuses a"
        " push; swarmconf's answers split"
    ),
    ("obsolete", "obsolete_after_edit"): (
        "unreachable: what an edit's push deletes (D27), which the client layer computes as it"
        " goes and no operation calls (its unit tests check it)"
    ),
}
"""By module and function (`*`: the whole module): every mutant in code no answer uses."""
