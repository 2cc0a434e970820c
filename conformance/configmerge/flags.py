"""Every flag a vector may carry: its bug type (Wycheproof style) and what it means.

A vector file's `notes` define exactly the flags its cases use, copied from here.
"""

from __future__ import annotations

from swarmconf.conformance.vectors import Flag

_DIVERGE = "Clients that disagree here compute different data or hashes and stop converging."

FLAGS: dict[str, Flag] = {
    "BadKey": Flag(
        "MODIFIED_PARAMETER",
        "A signing or verification key of the wrong length"
        " or with a mismatched public half (BAD_KEY).",
    ),
    "BadLag": Flag("MODIFIED_PARAMETER", "Lag below 1 is a usage error (D16, X4)."),
    "ContainerInSet": Flag(
        "API_LIMIT",
        "Data a client writes holds a set with a list or a dict in it, which a typed API cannot"
        " even express: not applicable to a client declaring `container-set-elements`.",
        limit="container-set-elements",
    ),
    "CanonicalEncoding": Flag(
        "BASIC",
        "A canonical bt value in some position of a message;"
        " the answer depends on what the position allows.",
    ),
    "ClientSteps": Flag(
        "FUNCTIONALITY",
        "A script of client steps (poll, edit, push, confirm) on one client: its state, what"
        " it pushes and deletes and when (D28..D32).",
        "A client that pushes or deletes otherwise than its swarm's clients keeps conflicts"
        " alive or deletes what others still need.",
    ),
    "Chain": Flag("FUNCTIONALITY", "A chain of increments before the one under test (D13)."),
    "CheckOrder": Flag(
        "ORDERING",
        "The input breaks two rules; the check made first reports"
        " (API contract: parse order of checks).",
        "A client checking in another order reports another reason code.",
    ),
    "Conflict": Flag(
        "CONFLICT",
        "Several valid messages survive the ignore rules and are merged (D15).",
        _DIVERGE,
    ),
    "DataRules": Flag(
        "BASIC", "Set order, scalar-only sets, no empty sets or nested dicts in the data (D11)."
    ),
    "DeployedClientAccepts": Flag(
        "DEPLOYED_QUIRK",
        "The deployed client accepts this non-canonical input, hashing the bytes as received"
        " (X1); swarmconf refuses it (D10).",
        "Accepting it makes one logical message have many hashes.",
        quirk="X1",
    ),
    "DeployedClientAborts": Flag(
        "DEPLOYED_QUIRK",
        "Some bad inputs fail the deployed client's whole merge instead of being skipped (X2):"
        " an input that is not a dict (or is empty) makes it refuse every input"
        " (NO_VALID_MESSAGE); an empty dict aborts it, and so does a merge that must replay an"
        " unreplayable set diff or an integer beyond int64 in a set diff (an exception, not an"
        " assertion: debug and release builds alike). swarmconf skips the input (D14). The"
        " deployed parse accepts the unreplayable set diff.",
        quirk="X2",
    ),
    "DeployedClientLoops": Flag(
        "DEPLOYED_QUIRK",
        "An integer value inside a diff makes the deployed client's parser loop forever (X3);"
        " swarmconf refuses it (D12).",
        quirk="X3",
    ),
    "DeployedClientIgnoresLag": Flag(
        "DEPLOYED_QUIRK",
        "Lag below 1: the deployed client's merge fails an assertion and aborts (a debug build;"
        " a release build, NDEBUG, runs on into undefined behaviour), and parses or increments"
        " keeping no lagged entry (X4); swarmconf refuses it as a usage error (D16).",
        quirk="X4",
    ),
    "DeployedClientWrapsSeqno": Flag(
        "DEPLOYED_QUIRK",
        "At seqno 2^63-1 the deployed client's increment wraps to -2^63 and its merge aborts on"
        " the X4 assertion (a debug build; a release build, NDEBUG, runs on into undefined"
        " behaviour) (X6); swarmconf refuses with SEQNO_OVERFLOW.",
        quirk="X6",
    ),
    "DeployedClientNoLimits": Flag(
        "DEPLOYED_QUIRK",
        "The deployed client has no writer limits and no nesting limit (X7): it writes keys"
        " over 128 bytes and strings over 4,096, and parses any depth.",
        quirk="X7",
    ),
    "DeployedClientSignature": Flag(
        "DEPLOYED_QUIRK",
        "The deployed client keeps a verified signature over re-signing, and signs with a"
        " 64-byte key as given even when its public half does not match (X8); swarmconf"
        " re-signs, and refuses the key (D17).",
        quirk="X8",
    ),
    "DeployedClientZeroPlaintext": Flag(
        "DEPLOYED_QUIRK",
        "The deployed client strips padding only when some byte is non-zero (X9): an all-zero"
        " padded plaintext stays as it is, and its receive path hands it on whole, to the"
        " parser; swarmconf strips it to the empty plaintext (D19) and skips the blob"
        " (PAYLOAD_EMPTY, D23).",
        quirk="X9",
    ),
    "DeployedClientCheckOrder": Flag(
        "DEPLOYED_QUIRK",
        "The input breaks two rules; the deployed client's streaming pass meets the other one"
        " first and refuses for it (X10).",
        "Strict reason codes cannot match the deployed client here; it refuses all the same.",
        quirk="X10",
    ),
    "DeployedClientNoParts": Flag(
        "DEPLOYED_QUIRK",
        "The pinned deployed client neither splits nor joins (X11): it refuses a push whose blob"
        " is over 76,800 bytes (PUSH_TOO_LARGE) and skips every part"
        " (PAYLOAD_MULTIPART_UNSUPPORTED); swarmconf splits and joins (D25, D26).",
        quirk="X11",
    ),
    "DeployedClientDeletesSurvivor": Flag(
        "DEPLOYED_QUIRK",
        "After a merge the deployed client deletes the hash at every position of an input that"
        " parses but the kept one's, found by the result's position among the inputs that"
        " parse, counted among all inputs (X12): with an unparseable input before the result it"
        " deletes the result, and a repeated input brings the result's hash in; swarmconf"
        " deletes what D27 says.",
        "A client that deletes the only holder of the current configuration loses it.",
        quirk="X12",
    ),
    "DeployedClientUnboundedMessage": Flag(
        "DEPLOYED_QUIRK",
        "The deployed push bounds the blob only, not the message (X13): a message over"
        " 5,000,000 bytes that compresses into one blob is pushed; swarmconf refuses it"
        " (PAYLOAD_TOO_LARGE, D22), and its reader refuses what it inflates to"
        " (ZSTD_TOO_LARGE, D24).",
        "A deployed client's push that swarmconf's readers skip: the two never converge on it.",
        quirk="X13",
    ),
    "DeployedClientUncheckedDiff": Flag(
        "DEPLOYED_QUIRK",
        "Inside `=` and `<` the deployed client checks neither key order nor integer range as it"
        " does in `&` (X14): unsorted or repeated keys and integers up to 2^64-1 are accepted,"
        " the message hashed as received; swarmconf refuses them (D10).",
        "Accepting it makes one logical message have many hashes.",
        quirk="X14",
    ),
    "DeployedClientInflatesUnbounded": Flag(
        "DEPLOYED_QUIRK",
        "The deployed receive path inflates a `z` payload with no maximum (X15): a payload"
        " over 5,000,000 bytes is read whole and handed on; swarmconf refuses it before"
        " allocating (ZSTD_TOO_LARGE, D24).",
        "A few hundred bytes in the swarm cost a reader megabytes, one 76,800-byte blob"
        " 2.5 GB: memory exhaustion for every deployed client reading a hostile swarm.",
        quirk="X15",
    ),
    "DeployedClientUncheckedLevel": Flag(
        "DEPLOYED_QUIRK",
        "The deployed push does not check the compression level (X16): 0 means no compression,"
        " a level above 22 compresses at 22, a negative one at zstd's fast level; swarmconf"
        " refuses a level outside 1..22 (BAD_LEVEL, D21).",
        quirk="X16",
    ),
    "DeployedClientConflictPush": Flag(
        "DEPLOYED_QUIRK",
        "After a merge the deployed client makes current and pushes other messages than rule 8"
        " (X17): a clean or waiting client's conflict resolution lists every data key in `=`"
        " (the libsession profile does the same, D30); a dirty client that adopts another"
        " message burns a seqno; a merge that leaves its seqno unchanged changes nothing and"
        " asserts its own message was kept, so a read-only client holding a lower-ranked racer"
        " of its seqno aborts (a debug build; a release build keeps its own message).",
        "A spec-profile client racing a deployed client resolves every conflict with other"
        " bytes: a new conflict at each round, never settling.",
        quirk="X17",
    ),
    "DeployedClientNoOpEdit": Flag(
        "DEPLOYED_QUIRK",
        "An edit that changes nothing does not dirty the deployed client (X18): it neither"
        " increments nor pushes, and a read-only client's is not refused (the libsession"
        " profile does the same, D29); under the spec profile it is an edit like any other.",
        quirk="X18",
    ),
    "DeployedClientFreshPoll": Flag(
        "DEPLOYED_QUIRK",
        "A deployed client with no message merges the poll alone (X19): a first input that"
        " does not parse aborts it (a debug build; a release build goes on as X12 says, and"
        " refuses a poll with nothing valid), an empty poll is refused (NO_VALID_MESSAGE), and"
        " a survivor of seqno 0 is not adopted; swarmconf skips what does not parse, changes"
        " nothing on a poll with nothing valid and adopts the survivor (D14, D29).",
        quirk="X19",
    ),
    "DeployedClientSignerVerifies": Flag(
        "DEPLOYED_QUIRK",
        "A deployed client with a signing key also verifies with its public half (X20): it"
        " drops an unsigned input, signs its stored message before merging it, and refuses a"
        " verification key that is not that half (the libsession profile does the same, D28);"
        " under the spec profile a signing key only signs.",
        quirk="X20",
    ),
    "DesignTextExample": Flag(
        "DESIGN_TEXT_EXAMPLE",
        "A fact of the design text's examples as examples.md pins it, with the corrections D2..D6.",
    ),
    "DiffShape": Flag("BASIC", "The shape of a diff for a given edit (D12)."),
    "Duplicate": Flag("FUNCTIONALITY", "The same message given more than once (D14)."),
    "EdgeInteger": Flag(
        "EDGE_CASE",
        "Integers at the limits of signed 64 bits or of the unknown-key range [-2^63, 2^64-1].",
    ),
    "Compression": Flag(
        "BASIC",
        "zstd at level 1 behind `z`, kept only when strictly shorter; identical bytes need"
        " libzstd's level-1 output (D21, D24).",
        "Clients that compress differently push different blobs for one message, which the"
        " swarm cannot deduplicate.",
    ),
    "Encryption": Flag(
        "BASIC", "Deterministic XChaCha20-Poly1305 in profile spec (D18) or libsession (D19)."
    ),
    "EncryptionArguments": Flag(
        "MODIFIED_PARAMETER",
        "Bad key, domain or profile arguments, or a ciphertext too short to hold tag and nonce.",
    ),
    "Exhaustive": Flag(
        "EXHAUSTIVE",
        "One merge of the bounded-exhaustive enumeration; the"
        " scope is stated in the file's header.",
        _DIVERGE,
    ),
    "Hash": Flag("BASIC", "A message hash: BLAKE2b-256 of the bytes as received (D1)."),
    "Included": Flag("STALE", "A message listed in another's lagged entries is ignored (D14)."),
    "IncrementRule": Flag(
        "FUNCTIONALITY", "What an increment keeps, appends and drops (D13, D9, D17)."
    ),
    "InvalidMixedIn": Flag(
        "FUNCTIONALITY",
        "Invalid inputs are skipped by a merge, never fatal unless none is valid (D14).",
    ),
    "LargeInput": Flag(
        "EDGE_CASE",
        "A large valid message; the design sets no size limit, a client may have one.",
        "Refusing it is acceptable (INPUT_TOO_LARGE).",
    ),
    "LagWindow": Flag(
        "STALE", "Lagged entries outside the window S-lag < seqno < S are dropped unread (D7, D16)."
    ),
    "MultiPart": Flag(
        "FUNCTIONALITY",
        "A payload over one blob split into parts of at most 76,710 bytes, collected by hash in"
        " any order, repeats ignored, joined and checked (D25, D26).",
    ),
    "NestingLimit": Flag("EDGE_CASE", "Lists and dicts nested up to and beyond 64 levels."),
    "NonCanonicalEncoding": Flag(
        "NONCANONICAL_ENCODING",
        "A non-canonical or malformed bt fragment: the first violation read is reported (D10).",
        "Accepting it makes messages malleable.",
    ),
    "Ordering": Flag("ORDERING", "Elements or entries out of their required order, or duplicated."),
    "PartEncoding": Flag(
        "MODIFIED_PARAMETER",
        "A part that is not `m` and a list of exactly four byte strings (32-byte hash, one-byte"
        " index below a one-byte count of at least 2, a non-empty chunk) followed by at most"
        " four NUL bytes (D26).",
    ),
    "Payload": Flag(
        "BASIC",
        "What a client stores in the swarm: compressed, padded and encrypted, opened with each"
        " key in turn (D21..D23).",
    ),
    "PayloadCheckOrder": Flag(
        "ORDERING",
        "The input breaks two rules of the payload layer; the check made first reports (D21,"
        " D22, D24: wrap's level, size, key, domain; a `z` payload's header, frames, message).",
        "A client checking in another order reports another reason code.",
    ),
    "Padding": Flag("EDGE_CASE", "Padding sizes around the chunk boundaries of D19."),
    "RandomData": Flag("BASIC", "Random data from a fixed seed."),
    "RandomHistory": Flag(
        "CONFLICT",
        "Messages drawn from a random history of concurrent writers who edit and merge.",
        _DIVERGE,
    ),
    "RemovalRace": Flag(
        "CONFLICT", "One writer removes or retypes what another assigns.", _DIVERGE
    ),
    "Reserialize": Flag(
        "BASIC",
        "A parsed message written back: unknown keys in place,"
        " `<` and `=` always written (D8, D9).",
    ),
    "Shuffled": Flag("CONFLICT", "Merge inputs in random order: the result must not depend on it."),
    "Signature": Flag("BASIC", "Ed25519 signatures (D17)."),
    "SplitBoundary": Flag(
        "EDGE_CASE",
        "A padded payload of 76,760 bytes encrypts to exactly 76,800 and is one blob; one byte"
        " more and it is split (D25).",
    ),
    "Stale": Flag("STALE", "A message or entry too old to matter (D7, D14)."),
    "Structure": Flag("BASIC", "The outer structure of a message (D8)."),
    "Survivor": Flag(
        "FUNCTIONALITY", "One message survives the ignore rules and is returned unchanged (D14)."
    ),
    "Tampered": Flag(
        "AUTH_BYPASS",
        "A signed message or ciphertext with bits flipped.",
        "Accepting it lets anyone forge configuration.",
    ),
    "TrailingBytes": Flag("MALLEABILITY", "Bytes after the message's final `e` (D10, X1)."),
    "Truncated": Flag("EDGE_CASE", "A valid message cut short."),
    "TypeChange": Flag(
        "EDGE_CASE", "A value changing kind (scalar, set, dict) (D12, D15).", _DIVERGE
    ),
    "Undecryptable": Flag(
        "AUTH_BYPASS",
        "A blob that no key given opens under the domain: the reader tries each key in turn"
        " and skips it (D23).",
    ),
    "UnknownTopLevelKey": Flag(
        "FUNCTIONALITY",
        "Top-level keys this version does not know: kept verbatim, dropped by merges (D9).",
    ),
    "WideDataInteger": Flag(
        "API_LIMIT",
        "Data a client writes holds an integer outside signed 64 bits, which a typed API"
        " cannot even express: not applicable to a client declaring `wide-data-integers`.",
        limit="wide-data-integers",
    ),
    "WriterLimit": Flag(
        "EDGE_CASE", "The 128-byte key and 4096-byte string limits bind writers, not parsers (D11)."
    ),
    "WriterType": Flag(
        "MODIFIED_PARAMETER",
        "Data a writer may not write: integers beyond 64 bits, sets holding lists or dicts.",
    ),
    "ZstdStream": Flag(
        "EDGE_CASE",
        "A `z` payload that is not whole zstd frames, inflates to nothing, or would inflate"
        " past 5,000,000 bytes: refused before the output is materialised (D24).",
        "A reader that inflates first can be exhausted by a few hundred bytes.",
    ),
    "WrongKey": Flag(
        "AUTH_BYPASS",
        "A message signed by someone else than the required signer.",
        "Accepting it lets anyone forge configuration.",
    ),
}

QUIRK_FLAGS: dict[str, str] = {flag.quirk: name for name, flag in FLAGS.items() if flag.quirk}
"""The flag of each deployed-client quirk, by decision (X1..X20)."""
