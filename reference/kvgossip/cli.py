"""`swarmconf kv ...`: keys, grants and revocations, reads and writes, and the node itself.

Keys are given as `HEX|@FILE` (a key file holds a 32-byte Ed25519 seed in hex); grant files hold
a signed grant in hex. Writes are signed here, with the shortest chain found among the given
grant files and the grants the node has stored, and handed to the running node of `--data` over
its control socket; the node applies them exactly as it applies records from peers. Refusals
follow `swarmconf.cliutil`: one line `swarmconf: error: REASON: detail` and its exit status.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from swarmconf.cliutil import (
    KEY_HELP,
    CliReason,
    CommandError,
    Exit,
    examples,
    from_hex,
    guarded,
    key_argument,
    read_file,
    write_file,
)
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.chain import decode_pool, find_chain
from swarmconf.spec.kvgossip.grants import decode_grant, issue_grant, revoke_grant
from swarmconf.spec.kvgossip.keys import check_key
from swarmconf.spec.kvgossip.reasons import KvError, KvReason
from swarmconf.spec.kvgossip.records import make_record

from .control import ControlError, ControlServer, call, watch
from .identity import IdentityError
from .membership import (
    ClusterKey,
    MembershipError,
    read_cluster_key,
    write_cluster_key,
    write_serf_secrets,
)
from .node import Node, NodeConfig, NodeStartError
from .privacy import PermissionsError, check_private_file
from .reasons import NodeReason
from .sync import wall_clock_ms

BAD_ARGUMENT = NodeReason.BAD_ARGUMENT
NOT_FOUND = NodeReason.NOT_FOUND
NOT_RUNNING = NodeReason.NODE_NOT_RUNNING
DEFAULT_DATA = "kvdata"


# --- files and arguments ----------------------------------------------------------------------


def _hex_file(path: str) -> bytes:
    return from_hex(read_file(path), path)


def seed_argument(text: str) -> bytes:
    """A secret key (an Ed25519 seed) given as `HEX|@FILE`; refused if others may read FILE."""
    if text.startswith("@"):
        with contextlib.suppress(OSError):  # an unreadable file is reported by `key_argument`
            check_private_file(Path(text[1:]))
    seed = key_argument(text)
    if len(seed) != 32:
        raise CommandError(BAD_ARGUMENT, f"a secret key is 32 bytes, not {len(seed)}", Exit.USAGE)
    return seed


def public_key_arg(text: str) -> bytes:
    """A public key given as `HEX|@FILE`."""
    key = key_argument(text)
    if len(key) != 32:
        raise CommandError(BAD_ARGUMENT, f"a public key is 32 bytes, not {len(key)}", Exit.USAGE)
    return key


def _write_new(path: str, text: str, mode: int = 0o644) -> None:
    write_file(path, (text + "\n").encode(), exclusive=True, mode=mode)


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


def _run(coro: Awaitable[int]) -> int:
    async def main() -> int:
        return await coro

    return asyncio.run(main())


# --- commands ---------------------------------------------------------------------------------


def cmd_keygen(args: argparse.Namespace) -> int:
    """K/V Gossip entity key: write a new secret key file, print its public key (config-merge
    keys: `swarmconf keygen`)."""
    seed = os.urandom(32)
    _write_new(args.output, seed.hex(), 0o600)
    print(crypto.public_key(seed).hex())
    return 0


def cmd_cluster_key(args: argparse.Namespace) -> int:
    """Create the cluster secret every node of one cluster is started with (mode 0600)."""
    write_cluster_key(Path(args.output), ClusterKey.generate())
    return 0


def cmd_serf_config(args: argparse.Namespace) -> int:
    """Write the Serf config (gossip key, RPC token) for an agent run apart (`--serf-rpc`)."""
    write_serf_secrets(Path(args.output), read_cluster_key(args.cluster_key))
    return 0


def cmd_pubkey(args: argparse.Namespace) -> int:
    """Print the public key of a secret key."""
    print(crypto.public_key(seed_argument(args.key)).hex())
    return 0


def cmd_grant(args: argparse.Namespace) -> int:
    """Sign a grant to another entity and write it as hex; print its id."""
    grant = issue_grant(
        seed_argument(args.key),
        public_key_arg(args.to),
        args.pattern,
        subgrant=args.subgrant,
        issued_at=args.at if args.at is not None else wall_clock_ms(),
        expires_at=args.expires,
    )
    _write_new(args.output, grant.encode().hex())
    print(grant.id.hex())
    return 0


def cmd_revoke(args: argparse.Namespace) -> int:
    """Sign a revocation and hand it to the node, which spreads it."""

    async def run() -> int:
        status = (await call(args.data, {"op": "status"}))["status"]
        root = bytes.fromhex(status["root"])
        grant = decode_grant(_hex_file(args.grant))
        at = args.at if args.at is not None else max(wall_clock_ms(), grant.issued_at + 1)
        revocation = revoke_grant(seed_argument(args.key), grant, at, root)
        reply = await call(args.data, {"op": "revoke", "revocation": revocation.encode()})
        print(f"revoked {grant.id.hex()}; purged {len(reply['purged'])} key(s)")
        for key in reply["purged"]:
            print(f"  {key}")
        return 0

    return _run(run())


def _write(args: argparse.Namespace, value: bytes | None) -> int:
    async def run() -> int:
        check_key(args.name)
        seed = seed_argument(args.key)
        signer = crypto.public_key(seed)
        status = (await call(args.data, {"op": "status"}))["status"]
        root = bytes.fromhex(status["root"])
        known = (await call(args.data, {"op": "grants"}))["grants"]
        pool = decode_pool([_hex_file(g) for g in args.grant] + list(known))
        ts = args.ts if args.ts is not None else wall_clock_ms()
        chain = find_chain(args.name, ts, signer, pool, root, frozenset())
        if chain is None:
            detail = f"no grant chain lets this key write {args.name}"
            raise CommandError(KvReason.UNAUTHORIZED, detail)
        record = make_record(seed, args.name, ts, value, chain)
        await call(args.data, {"op": "put", "record": record.encode()})
        return 0

    return _run(run())


def cmd_set(args: argparse.Namespace) -> int:
    """Sign and store a value."""
    if args.file is not None:
        value = read_file(args.file)
    elif args.value is not None:
        value = args.value.encode()
    else:
        raise CommandError(CliReason.USAGE, "give a VALUE or --file", Exit.USAGE)
    return _write(args, value)


def cmd_delete(args: argparse.Namespace) -> int:
    """Sign and store a tombstone."""
    return _write(args, None)


def _ready(reply: dict[str, Any]) -> bool:
    """A `get` found its key; a `status` shows the node connected to its Serf agent."""
    if "record" in reply:
        return reply["record"] is not None
    return bool(reply["status"]["serf_connected"])


async def _patiently(args: argparse.Namespace, request: dict[str, Any]) -> dict[str, Any]:
    """`call`, retried until it succeeds and has a result or `--wait` seconds have passed."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + args.wait
    while True:
        try:
            reply = await call(args.data, request)
        except ControlError:
            if loop.time() >= deadline:
                raise
        else:
            if _ready(reply) or loop.time() >= deadline:
                return reply
        await asyncio.sleep(0.1)


def cmd_get(args: argparse.Namespace) -> int:
    """Print a key's value."""

    async def run() -> int:
        record = (await _patiently(args, {"op": "get", "key": args.name}))["record"]
        if record is None:
            raise CommandError(NOT_FOUND, args.name)
        if record["state"] == "deleted":
            raise CommandError(NOT_FOUND, f"{args.name} was deleted at {record['ts']}")
        sys.stdout.buffer.write(record["value"] if args.raw else record["value"] + b"\n")
        return 0

    return _run(run())


def _line(record: dict[str, Any]) -> str:
    value = record.get("value", b"").decode("utf-8", "backslashreplace")
    return f"{record['key']}\t{record.get('ts', '-')}\t{record['state']}\t{value}"


def cmd_list(args: argparse.Namespace) -> int:
    """Print every stored key under a prefix."""

    async def run() -> int:
        reply = await call(args.data, {"op": "list", "prefix": args.prefix})
        for record in reply["records"]:
            print(_line(record))
        return 0

    return _run(run())


def cmd_watch(args: argparse.Namespace) -> int:
    """Print changes under a prefix as the node stores them."""

    async def run() -> int:
        changes = await watch(args.data, args.prefix)
        seen = 0
        try:
            async for change in changes:
                print(_line(change), flush=True)
                seen += 1
                if args.count and seen >= args.count:
                    break
        finally:
            changes.close()
        return 0

    return _run(run())


def cmd_status(args: argparse.Namespace) -> int:
    """Print the node's status as JSON."""

    async def run() -> int:
        status = (await _patiently(args, {"op": "status"}))["status"]
        print(json.dumps(status, indent=2, sort_keys=True))
        return 0

    return _run(run())


def cmd_agent(args: argparse.Namespace) -> int:
    """Run a node until SIGINT or SIGTERM."""
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(message)s",
    )
    config = NodeConfig(
        data_dir=args.data,
        root=public_key_arg(args.root),
        name=args.name,
        host=args.bind,
        sync_port=args.sync_port,
        advertise_port=args.advertise_port,
        serf_rpc=args.serf_rpc,
        serf_port=args.serf_port,
        serf_rpc_port=args.serf_rpc_port,
        join=tuple(args.join),
        query_timeout=args.query_timeout,
        resync_interval=args.resync,
        synchronous=args.synchronous,
        push=not args.no_push,
        cluster_key=None if args.cluster_key is None else read_cluster_key(args.cluster_key),
        insecure=args.insecure,
    )

    async def run() -> int:
        node = Node(config)
        if args.metrics is not None:
            port = node.metrics.serve(*args.metrics)
            logging.getLogger("swarmconf.reference.kvgossip").info("metrics on port %d", port)
        control = ControlServer(node)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        await node.start()
        await control.start()
        print(
            f"node {config.name}: sync {config.host}:{node.sync_port}, control {control.path}",
            flush=True,
        )
        await stop.wait()
        await control.stop()
        await node.stop()
        return 0

    return _run(run())


# --- the argparse tree ------------------------------------------------------------------------


def refusal(error: Exception) -> CommandError | None:
    """The spec's and the node's errors as the command line reports them."""
    if isinstance(error, KvError):
        return CommandError(error.reason, error.detail)
    if isinstance(error, ControlError):
        status = Exit.UNAVAILABLE if error.reason == NOT_RUNNING else Exit.FAILED
        return CommandError(error.reason, error.detail, status)
    if isinstance(error, (IdentityError, MembershipError, NodeStartError, PermissionsError)):
        return CommandError(error.reason, error.detail, Exit.USAGE)
    if isinstance(error, OSError):
        return CommandError(BAD_ARGUMENT, str(error), Exit.USAGE)
    return None


EXAMPLES: dict[str, tuple[str, ...]] = {
    "kv": (
        "swarmconf kv keygen -o root.key > root.pub",
        "swarmconf kv cluster-key -o cluster.key",
        "swarmconf kv agent --data a --name a --root @root.pub --cluster-key cluster.key &",
        "swarmconf kv set --data a --key @root.key /demo/greeting hello",
    ),
    "keygen": ("swarmconf kv keygen -o alice.key > alice.pub",),
    "cluster-key": ("swarmconf kv cluster-key -o cluster.key",),
    "serf-config": ("swarmconf kv serf-config --cluster-key cluster.key -o serf.json",),
    "pubkey": ("swarmconf kv pubkey @alice.key",),
    "grant": (
        "swarmconf kv grant --key @root.key --to @alice.pub --pattern '/demo/**' -o alice.grant",
        "swarmconf kv grant --key @root.key --to @bob.pub --pattern '/a/*' --subgrant -o bob.grant",
    ),
    "revoke": ("swarmconf kv revoke --data a --key @root.key --grant alice.grant",),
    "set": (
        "swarmconf kv set --data b --key @alice.key --grant alice.grant /demo/color blue",
        "swarmconf kv set --data b --key @alice.key --file - /demo/blob < blob.bin",
    ),
    "delete": ("swarmconf kv delete --data b --key @alice.key /demo/color",),
    "get": ("swarmconf kv get --data c /demo/color", "swarmconf kv get --wait 5 --raw /demo/blob"),
    "list": ("swarmconf kv list --data a /demo/",),
    "watch": ("swarmconf kv watch --data a --count 1 /demo/",),
    "status": ("swarmconf kv status --data a --wait 10",),
    "agent": (
        "swarmconf kv agent --data a --name a --root @root.pub --cluster-key cluster.key "
        "--serf-port 7946",
        "swarmconf kv agent --data b --name b --root @root.pub --cluster-key cluster.key "
        "--serf-port 7947 --serf-rpc-port 7374 --join 127.0.0.1:7946",
        "swarmconf kv agent --data x --name x --root @root.pub --insecure --metrics 127.0.0.1:9100",
    ),
}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `kv` and its sub-commands to the `swarmconf` command line."""
    summary = "K/V Gossip: keys, grants, values and the node"
    kv = subparsers.add_parser("kv", help=summary, description=summary, **examples(*EXAMPLES["kv"]))
    commands = kv.add_subparsers(dest="kv_command", metavar="COMMAND", required=True)

    def add(name: str, command: Callable[[argparse.Namespace], int], **kw: Any) -> Any:
        text = " ".join((command.__doc__ or "").split())
        parser = commands.add_parser(
            name, help=text, description=text, **examples(*EXAMPLES[name]), **kw
        )
        parser.set_defaults(handler=guarded(command, refusal))
        return parser

    def data(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--data", type=Path, default=Path(DEFAULT_DATA), help="the node's data directory"
        )

    def key(parser: argparse.ArgumentParser, whose: str) -> None:
        parser.add_argument("--key", required=True, metavar=KEY_HELP, help=f"{whose} secret key")

    new_file = "file to create (refuses to overwrite)"
    p = add("keygen", cmd_keygen)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help=f"secret key {new_file}")
    p = add("cluster-key", cmd_cluster_key)
    p.add_argument("-o", "--output", required=True, metavar="FILE", help=f"cluster key {new_file}")
    p = add("serf-config", cmd_serf_config)
    p.add_argument("--cluster-key", type=Path, required=True, help="the cluster key file")
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help=f"Serf config JSON {new_file}"
    )
    p = add("pubkey", cmd_pubkey)
    p.add_argument("key", metavar=KEY_HELP, help="a secret key")

    p = add("grant", cmd_grant)
    key(p, "the issuer's")
    p.add_argument("--to", required=True, metavar=KEY_HELP, help="the issuee's public key")
    p.add_argument("--pattern", required=True, help="keys the grant covers, e.g. /app/**")
    p.add_argument("--subgrant", action="store_true", help="the issuee may grant further")
    p.add_argument("--expires", type=int, default=0, help="expiry, ms since epoch (0: never)")
    p.add_argument("--at", type=int, help="issue time, ms since epoch (default: now)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help=f"grant {new_file}")

    p = add("revoke", cmd_revoke)
    data(p)
    key(p, "the grant's issuer's (or the root's)")
    p.add_argument("--grant", required=True, help="the grant file to revoke")
    p.add_argument("--at", type=int, help="revocation time, ms since epoch (default: now)")

    for name, command in (("set", cmd_set), ("delete", cmd_delete)):
        p = add(name, command)
        data(p)
        key(p, "the writer's")
        p.add_argument("--grant", action="append", default=[], help="a grant file (repeatable)")
        p.add_argument("--ts", type=int, help="record time, ms since epoch (default: now)")
        p.add_argument("name", metavar="KEY")
        if name == "set":
            p.add_argument("value", metavar="VALUE", nargs="?")
            p.add_argument("--file", help="read the value from a file (- for stdin)")

    wait = "keep asking for up to SECONDS while the node or the key is not there yet"
    p = add("get", cmd_get)
    data(p)
    p.add_argument("name", metavar="KEY")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS", help=wait)
    p.add_argument("--raw", action="store_true", help="the value's bytes only, no newline")
    for name, command in (("list", cmd_list), ("watch", cmd_watch)):
        p = add(name, command)
        data(p)
        p.add_argument("prefix", nargs="?", default="")
        if name == "watch":
            p.add_argument("--count", type=int, default=0, help="exit after N changes")
    p = add("status", cmd_status)
    data(p)
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS", help=wait)

    p = add("agent", cmd_agent)
    data(p)
    p.add_argument("--root", required=True, metavar=KEY_HELP, help="the root public key")
    p.add_argument("--name", required=True, help="this node's Serf name")
    p.add_argument("--bind", default="127.0.0.1", help="address for sync and Serf")
    p.add_argument("--sync-port", type=int, default=0, help="TCP sync port (0: any free)")
    p.add_argument(
        "--advertise-port",
        type=int,
        default=0,
        metavar="PORT",
        help="sync port announced to peers, if they reach this node through a forwarder",
    )
    p.add_argument(
        "--serf-port", type=int, default=7946, help="gossip port of the Serf agent (0: any free)"
    )
    p.add_argument(
        "--serf-rpc-port", type=int, default=7373, help="RPC port of the Serf agent (0: any free)"
    )
    p.add_argument(
        "--serf-rpc", type=_address, help="use the Serf agent at HOST:PORT instead of starting one"
    )
    p.add_argument("--join", action="append", default=[], help="HOST:PORT of a Serf member")
    p.add_argument(
        "--cluster-key", type=Path, help="the cluster key file (`kv cluster-key` creates it)"
    )
    p.add_argument(
        "--insecure",
        action="store_true",
        help="run without a cluster key (loopback only): anyone on the host can sync",
    )
    p.add_argument(
        "--metrics", type=_address, metavar="HOST:PORT", help="serve Prometheus metrics there"
    )
    p.add_argument("--query-timeout", type=float, default=1.0, help="state query timeout (s)")
    p.add_argument("--resync", type=float, default=30.0, help="periodic state query (s)")
    p.add_argument(
        "--synchronous",
        choices=("NORMAL", "FULL"),
        default="NORMAL",
        help="SQLite sync level: FULL also survives power loss, at one disk flush per apply",
    )
    p.add_argument(
        "--no-push",
        action="store_true",
        help="send no pushes: writes spread by kvg-ch, fetch and sessions alone (for tests)",
    )
    p.add_argument("-v", "--verbose", action="store_true")
