"""The config-merge commands of `swarmconf`: merge, show, diff, verify, encrypt, decrypt, wrap,
unwrap, keygen.

Refusals follow `swarmconf.cliutil`: one line `swarmconf: error: REASON: detail`; a refused
message exits 1, a bad argument 2. Input is read with a size bound (`--max-size`) before anything
is decoded.
"""

from __future__ import annotations

import argparse
from typing import Any

from swarmconf.cliutil import KEY_HELP, Handler, deferred, examples

DEFAULT_MAX_SIZE = 16 * 1024 * 1024
PROFILE_HELP = "spec (the design text's, default) or libsession (the deployed client's)"


def _profile(text: str) -> str:
    """`--profile`, checked against the encryption profiles when it is given."""
    from swarmconf.spec.configmerge.encryption import PROFILES

    if text not in PROFILES:
        raise argparse.ArgumentTypeError(f"choose from {', '.join(PROFILES)}")
    return text


def _with_hex_flags(command: Handler) -> Handler:
    def run(args: argparse.Namespace) -> int:
        args.hex_in = args.hex_in or args.hex
        args.hex_out = args.hex_out or args.hex
        return command(args)

    return run


# Argument tree


def _add_input(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hex-in", action="store_true", help="inputs are hex text")
    parser.add_argument("--hex", action="store_true", help="hex text in (and out, if binary)")
    parser.add_argument(
        "--max-size",
        type=int,
        default=DEFAULT_MAX_SIZE,
        metavar="BYTES",
        help=f"refuse inputs over this size with INPUT_TOO_LARGE (default {DEFAULT_MAX_SIZE})",
    )


def _add_lag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lag", type=int, default=5, help="the within-N window (D16), default 5")


def _add_output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    parser.add_argument("--hex-out", action="store_true", help="write hex text")


def _add_payload(parser: argparse.ArgumentParser, *, required: bool, many: bool) -> None:
    """The payload options: the encryption key (or keys, tried in turn), the domain, and the
    pinned client's profile."""
    parser.add_argument(
        "--key",
        required=required,
        action="append" if many else "store",
        metavar=KEY_HELP,
        help="the 32-byte encryption key"
        + ("; repeat it to try several in turn" if many else "")
        + ("" if required else ": the inputs are payloads as stored in the swarm"),
    )
    parser.add_argument(
        "--domain", type=_domain, required=required, help="the config type's domain (1-24 bytes)"
    )
    parser.add_argument(
        "--no-multipart",
        action="store_true",
        help="as the pinned deployed client: no parts (refused on push, skipped on receive, X11)",
    )


def _add_command(
    subparsers: Any,
    name: str,
    command: str,
    summary: str,
    example_lines: tuple[str, ...],
    note: str = "",
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=f"{summary} {note}".strip(),
        **examples(*example_lines),
    )
    handler = _with_hex_flags(deferred(f"{__package__}.commands", command))
    parser.set_defaults(handler=handler, hex=False, hex_in=False, hex_out=False)
    return parser


def _domain(text: str) -> bytes:
    return text.encode()


def register(subparsers: Any) -> None:
    """Add the config-merge commands to the `swarmconf` argument tree."""
    p = _add_command(
        subparsers,
        "merge",
        "cmd_merge",
        "Merge competing config messages (D14, D15) and write the result.",
        (
            "swarmconf merge a.bin b.bin -o merged.bin",
            "swarmconf merge --hex --lag 10 a.hex b.hex",
            "swarmconf merge -v --hex-out a.bin b.bin c.bin",
            "cat a.bin | swarmconf merge - b.bin --sign-key @group.key -o merged.bin",
        ),
        "Invalid inputs are skipped; NO_VALID_MESSAGE if none is valid. A single surviving"
        " message is written unchanged.",
    )
    p.add_argument(
        "files", nargs="+", metavar="FILE", help="messages (payloads with --key); - for stdin"
    )
    _add_lag(p)
    _add_payload(p, required=False, many=True)
    p.add_argument("--verify-key", metavar=KEY_HELP, help="require signatures by this public key")
    p.add_argument("--sign-key", metavar=KEY_HELP, help="sign the merge with this secret key")
    p.add_argument("-v", "--verbose", action="store_true", help="report the result on stderr")
    _add_input(p)
    _add_output(p)

    p = _add_command(
        subparsers,
        "show",
        "cmd_show",
        "Print a message: seqno, hash, signature, data tree, lagged entries and diff.",
        (
            "swarmconf show m127.bin",
            "swarmconf show --json --hex-in m127.hex | jq .data",
            "swarmconf show --verify-key @group.pub signed.bin",
            "swarmconf show --key @enc.key --domain UserProfile blob.1 blob.2 blob.3",
        ),
        "Byte strings print as text when printable ASCII, otherwise as 0x-hex. With --key, the"
        " files are the payloads of one message (a blob, or its parts in any order).",
    )
    p.add_argument(
        "files", nargs="+", metavar="FILE", help="a message (with --key, its payloads); - for stdin"
    )
    _add_payload(p, required=False, many=True)
    p.add_argument("--json", action="store_true", help="machine-readable JSON")
    p.add_argument("--verify-key", metavar=KEY_HELP, help="verify the signature with this key")
    _add_lag(p)
    _add_input(p)

    p = _add_command(
        subparsers,
        "diff",
        "cmd_diff",
        "Print the D12 diff from the data of message OLD to that of message NEW.",
        ("swarmconf diff m123.bin m124.bin", "swarmconf diff --json --hex-in old.hex new.hex"),
    )
    p.add_argument("old", metavar="OLD")
    p.add_argument("new", metavar="NEW")
    p.add_argument("--json", action="store_true", help="machine-readable JSON")
    _add_lag(p)
    _add_input(p)

    p = _add_command(
        subparsers,
        "verify",
        "cmd_verify",
        "Check a message's Ed25519 signature (D17); exit 0 only if it is valid.",
        (
            "swarmconf verify --key 3b6a27bc...e5f0 signed.bin",
            "swarmconf verify --key @group.pub - < signed.bin",
        ),
        "Fails with SIG_MISSING, SIG_INVALID or SIG_MALFORMED (or any parse reason).",
    )
    p.add_argument("file", metavar="FILE")
    p.add_argument("--key", required=True, metavar=KEY_HELP, help="the Ed25519 public key")
    _add_lag(p)
    _add_input(p)

    for name, command, summary, example in (
        (
            "encrypt",
            "cmd_encrypt",
            "Encrypt a plaintext message deterministically (D18, D19).",
            (
                "swarmconf encrypt --key @enc.key m127.bin -o m127.enc",
                "swarmconf encrypt --profile libsession --domain UserProfile --key @enc.key m.bin",
            ),
        ),
        (
            "decrypt",
            "cmd_decrypt",
            "Decrypt a message encrypted by `encrypt` (or a deployed client).",
            (
                "swarmconf decrypt --key @enc.key m127.enc | swarmconf show -",
                "swarmconf decrypt --profile libsession --domain UserProfile --key @enc.key m.enc",
            ),
        ),
    ):
        p = _add_command(subparsers, name, command, summary, example)
        p.add_argument("file", metavar="FILE")
        p.add_argument("--key", required=True, metavar=KEY_HELP, help="the 32-byte key")
        p.add_argument("--profile", type=_profile, default="spec", help=PROFILE_HELP)
        p.add_argument("--domain", type=_domain, help="libsession domain, 1 to 24 bytes of text")
        p.add_argument(
            "--no-padding",
            action="store_true",
            help="libsession: the bare primitive, without padding before encryption or"
            " stripping it after decryption",
        )
        _add_input(p)
        _add_output(p)

    p = _add_command(
        subparsers,
        "wrap",
        "cmd_wrap",
        "Write the payload a client stores in the swarm for a message (D21, D22, D25).",
        (
            "swarmconf wrap --key @enc.key --domain UserProfile m127.bin -o m127.blob",
            "swarmconf wrap --key @enc.key --domain UserProfile big.bin -o big.blob"
            "  # big.blob.1 ...",
            "swarmconf wrap --key @enc.key --domain convo --level 3 --hex-out m.bin",
        ),
        "Compressed with zstd when that is shorter, padded, encrypted (profile libsession)."
        " A payload over 76,800 bytes is split into parts, written as OUT.1 to OUT.N (one hex"
        " line each with --hex-out and no -o).",
    )
    p.add_argument("file", metavar="FILE", help="a message; - for stdin")
    _add_payload(p, required=True, many=False)
    p.add_argument("--level", type=int, default=1, help="zstd level 1 to 22, default 1 as deployed")
    p.add_argument("--no-compression", action="store_true", help="never compress")
    _add_input(p)
    _add_output(p)

    p = _add_command(
        subparsers,
        "unwrap",
        "cmd_unwrap",
        "Read the message a payload holds: one blob, or all parts of one message (D23, D26).",
        (
            "swarmconf unwrap --key @enc.key --domain UserProfile m127.blob | swarmconf show -",
            "swarmconf unwrap --key @old.key --key @new.key --domain convo big.blob.* -o big.bin",
        ),
        "Parts may come in any order, repeated. A payload that gives no message is refused with"
        " its reason code.",
    )
    p.add_argument("files", nargs="+", metavar="BLOB", help="payloads; - for stdin")
    _add_payload(p, required=True, many=True)
    _add_input(p)
    _add_output(p)

    p = _add_command(
        subparsers,
        "keygen",
        "cmd_keygen",
        "Config-merge keys: print a fresh Ed25519 key pair and a random 32-byte encryption key,"
        " as hex.",
        ("swarmconf keygen", "swarmconf keygen --json > keys.json"),
        "(K/V Gossip entity keys: `swarmconf kv keygen`.)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable JSON")
