"""The config-merge commands themselves (their arguments are in `cli`, which imports this
module only when one of them runs).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from swarmconf.cliutil import (
    CliReason,
    CommandError,
    Exit,
    Handler,
    from_hex,
    key_argument,
    optional_key,
    read_file,
    write_file,
)
from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

from . import crypto, payload
from .data import make_diff, sorted_set, to_bt
from .merge import merge
from .message import ConfigMessage, parse

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
