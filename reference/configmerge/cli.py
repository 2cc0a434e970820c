"""The config-merge commands of `swarmconf`: merge, show, diff, verify, encrypt, decrypt, wrap,
unwrap, keygen.

Refusals follow `swarmconf.cliutil`: one line `swarmconf: error: REASON: detail`; a refused
message exits 1, a bad argument 2. Input is read with a size bound (`--max-size`) before anything
is decoded.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from swarmconf.cliutil import (
    KEY_HELP,
    CliReason,
    CommandError,
    Exit,
    Handler,
    examples,
    from_hex,
    guarded,
    key_argument,
    optional_key,
    read_file,
    write_file,
)
from swarmconf.spec.configmerge.encryption import PROFILES
from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

from . import crypto, payload
from .data import make_diff, sorted_set, to_bt
from .merge import merge
from .message import ConfigMessage, parse

DEFAULT_MAX_SIZE = 16 * 1024 * 1024


# Reading input


def read_input(name: str, *, hex_text: bool, max_size: int) -> bytes:
    """The bytes of file `name` (`-` is stdin), hex-decoded with `hex_text`, at most `max_size`."""
    limit = max_size * 2 + 4096 if hex_text else max_size
    raw = read_file(name, limit)
    if len(raw) > limit:
        raise ConfigError(Reason.INPUT_TOO_LARGE, f"{name} is over {max_size} bytes")
    if hex_text:
        raw = from_hex(raw, name)
        if len(raw) > max_size:
            raise ConfigError(Reason.INPUT_TOO_LARGE, f"{name} is over {max_size} bytes")
    return raw


def write_output(data: bytes, args: argparse.Namespace) -> None:
    """Binary output to `--output` or stdout, as hex text with `--hex`."""
    write_file(args.output, (data.hex() + "\n").encode() if args.hex_out else data)


# Rendering values


def text_of(value: bytes) -> str:
    """Printable ASCII as itself, anything else (or text that looks like hex) as 0x-hex."""
    if value.isascii() and value.decode().isprintable() and not value.startswith(b"0x"):
        return value.decode()
    return "0x" + value.hex()


def to_json(value: Any) -> Any:
    """Data, diffs and lagged entries as JSON values (bytes through `text_of`, sets as lists)."""
    t = type(value)
    if t is bytes:
        return text_of(value)
    if t is dict:
        return {text_of(k): to_json(v) for k, v in sorted(value.items())}
    if t is set:
        return [to_json(v) for v in sorted_set(value)]
    if t is list or t is tuple:
        return [to_json(v) for v in value]
    return value


def _inline(value: Any) -> str:
    t = type(value)
    if t is bytes:
        return json.dumps(text_of(value))
    if t is set or t is list:
        items = sorted_set(value) if t is set else value
        return "[" + ", ".join(_inline(v) for v in items) + "]"
    if t is dict:
        return (
            "{" + ", ".join(f"{text_of(k)}: {_inline(v)}" for k, v in sorted(value.items())) + "}"
        )
    return str(value)


def tree_lines(value: dict[bytes, Any], indent: str = "  ") -> list[str]:
    """A dict as indented `key: value` lines, nested dicts one level further in."""
    lines: list[str] = []
    for key in sorted(value):
        item = value[key]
        if type(item) is dict and item:
            lines.append(f"{indent}{text_of(key)}:")
            lines += tree_lines(item, indent + "  ")
        else:
            lines.append(f"{indent}{text_of(key)}: {_inline(item)}")
    return lines or [f"{indent}(empty)"]


def message_view(msg: ConfigMessage) -> dict[str, Any]:
    return {
        "seqno": msg.seqno,
        "hash": msg.hash.hex(),
        "signature": None if msg.signature is None else msg.signature.hex(),
        "data": to_json(msg.data),
        "lagged": [
            {"seqno": e.seqno, "hash": e.hash.hex(), "diff": to_json(e.diff)} for e in msg.lagged
        ],
        "diff": to_json(msg.diff),
        "extra": {text_of(k): v.hex() for k, v in sorted(msg.extra.items())},
    }


def message_lines(msg: ConfigMessage, verified: bool) -> list[str]:
    if msg.signature is None:
        signature = "none"
    else:
        signature = f"{msg.signature.hex()} ({'verified' if verified else 'not verified'})"
    lines = [f"seqno: {msg.seqno}", f"hash: {msg.hash.hex()}", f"signature: {signature}", "data:"]
    lines += tree_lines(msg.data)
    lines.append("lagged:")
    lines += [f"  {e.seqno} {e.hash.hex()}: {_inline(e.diff)}" for e in msg.lagged] or ["  (none)"]
    lines.append(f"diff: {_inline(msg.diff)}")
    lines += [f"extra: {text_of(k)} = {v.hex()}" for k, v in sorted(msg.extra.items())]
    return lines


# Commands


def read_messages(args: argparse.Namespace) -> tuple[list[str], list[bytes]]:
    """The inputs of `args.files` and their names; with `--key`, the messages the payloads hold,
    a payload that gives none reported with `--verbose` (D23)."""
    inputs = [read_input(n, hex_text=args.hex_in, max_size=args.max_size) for n in args.files]
    if not args.key:
        return args.files, inputs
    received = payload.receive(
        inputs, [key_argument(k) for k in args.key], domain(args), multipart=not args.no_multipart
    )
    if args.verbose:
        for skip in received.skipped:
            names = ", ".join(args.files[n] for n in skip.blobs)
            print(f"skipping {names}: {skip.reason}", file=sys.stderr)
    return [f"message {n + 1}" for n in range(len(received.messages))], received.messages


def domain(args: argparse.Namespace) -> bytes:
    """`--domain`, required with payloads."""
    if args.domain is None:
        raise CommandError(CliReason.USAGE, "payloads need --domain", Exit.USAGE)
    return bytes(args.domain)


def cmd_merge(args: argparse.Namespace) -> int:
    names, messages = read_messages(args)
    verify_key = optional_key(args.verify_key)
    if args.verbose:
        for name, data in zip(names, messages, strict=True):
            try:
                parse(data, lag=args.lag, verify_key=verify_key)
            except ConfigError as error:
                print(f"skipping {name}: {error}", file=sys.stderr)
    result = merge(
        messages,
        lag=args.lag,
        verify_key=verify_key,
        sign_key=optional_key(args.sign_key),
    )
    write_output(result.serialize(), args)
    if args.verbose:
        kind = "merged into" if result.merged else "kept"
        print(f"{kind} seqno {result.seqno} hash {result.hash.hex()}", file=sys.stderr)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    if args.key:
        blobs = [read_input(n, hex_text=args.hex_in, max_size=args.max_size) for n in args.files]
        keys = [key_argument(k) for k in args.key]
        data = payload.unwrap(blobs, keys, domain(args), multipart=not args.no_multipart)
    elif len(args.files) == 1:
        data = read_input(args.files[0], hex_text=args.hex_in, max_size=args.max_size)
    else:
        raise CommandError(
            CliReason.USAGE, "several files are the payloads of one message: give --key", Exit.USAGE
        )
    msg = parse(data, lag=args.lag, verify_key=optional_key(args.verify_key))
    if args.json:
        print(json.dumps(message_view(msg), indent=2))
    else:
        print("\n".join(message_lines(msg, verified=args.verify_key is not None)))
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    old, new = (
        parse(read_input(n, hex_text=args.hex_in, max_size=args.max_size), lag=args.lag)
        for n in (args.old, args.new)
    )
    diff = make_diff(to_bt(old.data), to_bt(new.data))
    print(json.dumps(to_json(diff), indent=2) if args.json else _inline(diff))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    data = read_input(args.file, hex_text=args.hex_in, max_size=args.max_size)
    msg = parse(data, lag=args.lag, verify_key=key_argument(args.key))
    print(f"valid signature: seqno {msg.seqno} hash {msg.hash.hex()}")
    return 0


def _padded(args: argparse.Namespace) -> bool:
    """Profile libsession pads before encrypting and strips after decrypting, unless told not
    to (D19); profile spec never pads."""
    return args.profile == "libsession" and not args.no_padding


def cmd_encrypt(args: argparse.Namespace) -> int:
    data = read_input(args.file, hex_text=args.hex_in, max_size=args.max_size)
    plaintext = crypto.pad(data) if _padded(args) else data
    write_output(
        crypto.encrypt(plaintext, key_argument(args.key), profile=args.profile, domain=args.domain),
        args,
    )
    return 0


def cmd_decrypt(args: argparse.Namespace) -> int:
    data = read_input(args.file, hex_text=args.hex_in, max_size=args.max_size)
    key = key_argument(args.key)
    plaintext = crypto.decrypt(data, key, profile=args.profile, domain=args.domain)
    write_output(crypto.unpad(plaintext) if _padded(args) else plaintext, args)
    return 0


def cmd_wrap(args: argparse.Namespace) -> int:
    message = read_input(args.file, hex_text=args.hex_in, max_size=args.max_size)
    blobs = payload.wrap(
        message,
        key_argument(args.key),
        domain(args),
        level=None if args.no_compression else args.level,
        multipart=not args.no_multipart,
    )
    if len(blobs) == 1:
        write_output(blobs[0], args)
        return 0
    if args.output in (None, "-"):
        if not args.hex_out:
            detail = (
                f"the message takes {len(blobs)} parts: give -o OUT (OUT.1 to OUT.{len(blobs)})"
            )
            raise CommandError(CliReason.USAGE, detail + " or --hex-out", Exit.USAGE)
        write_file(None, b"".join(blob.hex().encode() + b"\n" for blob in blobs))
        return 0
    names = [f"{args.output}.{n}" for n in range(1, len(blobs) + 1)]
    for name, blob in zip(names, blobs, strict=True):
        write_file(name, (blob.hex() + "\n").encode() if args.hex_out else blob)
    print(f"{len(blobs)} parts: {' '.join(names)}", file=sys.stderr)
    return 0


def cmd_unwrap(args: argparse.Namespace) -> int:
    blobs = [read_input(n, hex_text=args.hex_in, max_size=args.max_size) for n in args.files]
    keys = [key_argument(k) for k in args.key]
    write_output(payload.unwrap(blobs, keys, domain(args), multipart=not args.no_multipart), args)
    return 0


def cmd_keygen(args: argparse.Namespace) -> int:
    seed, public = crypto.keypair()
    keys = {
        "seed": seed.hex(),
        "secret": (seed + public).hex(),
        "public": public.hex(),
        "encryption": crypto.random_key().hex(),
    }
    if args.json:
        print(json.dumps(keys, indent=2))
    else:
        print("\n".join(f"{name}: {value}" for name, value in keys.items()))
    return 0


def refusal(error: Exception) -> CommandError | None:
    """The library's errors as the command line reports them: bad arguments are usage errors."""
    if isinstance(error, UsageError):
        return CommandError(error.reason, error.detail, Exit.USAGE)
    if isinstance(error, ConfigError):
        return CommandError(error.reason, error.detail, Exit.FAILED)
    return None


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
    command: Callable[[argparse.Namespace], int],
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
    handler = guarded(_with_hex_flags(command), refusal)
    parser.set_defaults(handler=handler, hex=False, hex_in=False, hex_out=False)
    return parser


def _domain(text: str) -> bytes:
    return text.encode()


def register(subparsers: Any) -> None:
    """Add the config-merge commands to the `swarmconf` argument tree."""
    p = _add_command(
        subparsers,
        "merge",
        cmd_merge,
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
        cmd_show,
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
        cmd_diff,
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
        cmd_verify,
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
            cmd_encrypt,
            "Encrypt a plaintext message deterministically (D18, D19).",
            (
                "swarmconf encrypt --key @enc.key m127.bin -o m127.enc",
                "swarmconf encrypt --profile libsession --domain UserProfile --key @enc.key m.bin",
            ),
        ),
        (
            "decrypt",
            cmd_decrypt,
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
        p.add_argument("--profile", choices=PROFILES, default="spec", help="default spec")
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
        cmd_wrap,
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
        cmd_unwrap,
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
        cmd_keygen,
        "Config-merge keys: print a fresh Ed25519 key pair and a random 32-byte encryption key,"
        " as hex.",
        ("swarmconf keygen", "swarmconf keygen --json > keys.json"),
        "(K/V Gossip entity keys: `swarmconf kv keygen`.)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable JSON")
