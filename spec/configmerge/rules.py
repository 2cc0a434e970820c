"""The rule registry: every decision D1..D32 and the design text's sections, each with the spec
functions that implement it. Tests check every listed function exists and cites its rule;
the conformance vectors cite the same identifiers in their `rules` field.

`RULES` holds the message's decisions (D1..D20), `PAYLOAD_RULES` those of the payload layer
around it (D21..D27), which the deployed client's source pins rather than the design text,
and `CLIENT_RULES` those of the client around both (D28..D32): its state and steps, what it
pushes and deletes (libsession-util 8762e9d33f6c's `ConfigBase` pins what the text leaves open).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import NamedTuple


class Rule(NamedTuple):
    title: str
    functions: tuple[str, ...]
    """Dotted paths below `swarmconf.spec.configmerge`, e.g. `merge.rank`."""


RULES: dict[str, Rule] = {
    "D1": Rule(
        "Rank by (seqno, hash); hash is BLAKE2b-256", ("merge.rank", "message.message_hash")
    ),
    "D2": Rule("Typos in the examples", ("examples.m125b", "examples.m124")),
    "D3": Rule("124a sets dictB.foo and dictB.answer", ("examples.m124a",)),
    "D4": Rule("No update removes 99 from good", ("examples.m126b",)),
    "D5": Rule("127's lagged diffs of 125a and 125b", ("examples.m127",)),
    "D6": Rule("127's own diff holds only the post-merge edit", ("examples.m127",)),
    "D7": Rule(
        "Lagged entries: window, shape, order",
        ("message.check_lagged", "message.check_lagged_entry", "message.in_window"),
    ),
    "D8": Rule(
        "Top-level keys",
        (
            "message.check_seqno",
            "message.check_data_field",
            "message.check_top_level_keys",
            "message.encode_message",
        ),
    ),
    "D9": Rule("Unknown top-level keys", ("bt.decode", "message.parse", "merge.merge_messages")),
    "D10": Rule("Canonical bt-encoding", ("bt.decode", "bt.encode", "bt.encode_integer")),
    "D11": Rule(
        "Data model and writer limits",
        ("data.check_data", "data.check_set", "data.check_dict", "diff.check_written_limits"),
    ),
    "D12": Rule(
        "Diffs",
        ("diff.diff_data", "diff.change", "diff.addition", "diff.removal", "diff.check_diff"),
    ),
    "D13": Rule("Increment", ("message.ConfigMessage.increment",)),
    "D14": Rule(
        "Ignore rules",
        (
            "merge.parse_valid",
            "merge.apply_ignore_rules",
            "merge.is_too_old",
            "merge.drop_duplicates",
        ),
    ),
    "D15": Rule(
        "Merge and replay",
        ("merge.merge_messages", "merge.build_replay_set", "diff.apply_diff", "diff.replay"),
    ),
    "D16": Rule("Lag is an integer >= 1", ("message.check_lag",)),
    "D17": Rule(
        "Signatures",
        (
            "signing.sign",
            "signing.signature_is_valid",
            "message.check_signature_field",
            "message.verify_signature",
            "merge.merge",
        ),
    ),
    "D18": Rule("Encryption profile spec", ("encryption.spec_nonce", "encryption.seal_spec")),
    "D19": Rule(
        "Encryption profile libsession and padding",
        (
            "encryption.libsession_key",
            "encryption.libsession_nonce",
            "encryption.seal_libsession",
            "encryption.padded_size",
        ),
    ),
    "D20": Rule("Hashes are over the plaintext", ("message.message_hash",)),
}

PAYLOAD_RULES: dict[str, Rule] = {
    "D21": Rule(
        "Compression: zstd level 1 behind `z`, kept only if strictly shorter",
        ("compression.compress", "compression.zstd_compress", "compression.check_level"),
    ),
    "D22": Rule(
        "Push limits: 76,800 bytes a blob, 5,000,000 a payload",
        ("payload.wrap", "payload.check_payload_size", "payload.check_blob_size"),
    ),
    "D23": Rule(
        "Receive: each key in turn, strip the padding, dispatch on `m`, `z`, `d`",
        ("payload.open_blob", "payload.read_plaintext", "payload.read_message", "payload.receive"),
    ),
    "D24": Rule(
        "Decompression bounded at 5,000,000 bytes before it allocates",
        (
            "compression.decompress",
            "compression.announced_size",
            "compression.inflate_bounded",
            "compression.frames_complete",
        ),
    ),
    "D25": Rule(
        "Multi-part: split at 76,710 bytes, part encoding",
        ("parts.needs_split", "parts.split", "parts.encode_part", "parts.payload_hash"),
    ),
    "D26": Rule(
        "Multi-part: refusals, collecting by hash, joining",
        (
            "parts.decode_part",
            "parts.part_fields",
            "parts.field",
            "parts.join_parts",
            "payload.collect_parts",
            "payload.receive_parts",
            "payload.read_joined",
            "payload.unwrap",
        ),
    ),
    "D27": Rule(
        "What a push deletes",
        ("obsolete.obsolete_after_merge", "obsolete.obsolete_after_edit"),
    ),
}

CLIENT_RULES: dict[str, Rule] = {
    "D28": Rule(
        "Client state: clean, dirty or waiting; the current message, its hash; hashes to delete",
        ("client.State", "client.Client", "client.Client.current_hashes"),
    ),
    "D29": Rule(
        "Client steps: receive a poll and merge it with the current message; edit",
        ("client.Client.receive", "client.Client.edit"),
    ),
    "D30": Rule(
        "The conflict resolution a client pushes: `=` empty (spec), every key when clean"
        " (libsession)",
        ("client.Client.resolution",),
    ),
    "D31": Rule(
        "Push only when not clean, with the hashes to delete; confirm",
        (
            "client.Client.needs_push",
            "client.Client.push",
            "client.Client.confirm",
            "client.Client.leave_clean",
        ),
    ),
    "D32": Rule("A read-only client pushes and deletes nothing", ("client.Client.push",)),
}


def implementation(path: str) -> Callable[..., object]:
    """The spec function at a dotted path such as `message.ConfigMessage.increment`."""
    module_name, _, attribute_path = path.partition(".")
    target: object = importlib.import_module(f"swarmconf.spec.configmerge.{module_name}")
    for attribute in attribute_path.split("."):
        target = getattr(target, attribute)
    assert callable(target)
    return target
