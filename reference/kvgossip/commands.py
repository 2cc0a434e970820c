"""The `swarmconf kv ...` commands themselves (their arguments are in `cli`, which imports this
module only when a command runs). Each imports what it needs, so a quick command such as `get`
loads no more than the control client.
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
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

from swarmconf.cliutil import (
    CliReason,
    CommandError,
    Exit,
    from_hex,
    key_argument,
    read_file,
    write_file,
)

from .control import ControlError, call, watch
from .privacy import PermissionsError, check_private_file
from .reasons import NodeReason

BAD_ARGUMENT = NodeReason.BAD_ARGUMENT
NOT_FOUND = NodeReason.NOT_FOUND
NOT_RUNNING = NodeReason.NODE_NOT_RUNNING


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


def _run(coro: Awaitable[int]) -> int:
    async def main() -> int:
        return await coro

    return asyncio.run(main())


# --- commands ---------------------------------------------------------------------------------


def cmd_keygen(args: argparse.Namespace) -> int:
    """K/V Gossip entity key: write a new secret key file, print its public key (config-merge
    keys: `swarmconf keygen`)."""
    from swarmconf.spec.kvgossip import crypto

    seed = os.urandom(32)
    _write_new(args.output, seed.hex(), 0o600)
    print(crypto.public_key(seed).hex())
    return 0


def cmd_cluster_key(args: argparse.Namespace) -> int:
    """Create the cluster secret every node of one cluster is started with (mode 0600)."""
    from .membership import ClusterKey, write_cluster_key

    write_cluster_key(Path(args.output), ClusterKey.generate())
    return 0


def cmd_serf_config(args: argparse.Namespace) -> int:
    """Write the Serf config (gossip key, RPC token) for an agent run apart (`--serf-rpc`)."""
    from .membership import read_cluster_key, write_serf_secrets

    write_serf_secrets(Path(args.output), read_cluster_key(args.cluster_key))
    return 0


def cmd_pubkey(args: argparse.Namespace) -> int:
    """Print the public key of a secret key."""
    from swarmconf.spec.kvgossip import crypto

    print(crypto.public_key(seed_argument(args.key)).hex())
    return 0


def cmd_grant(args: argparse.Namespace) -> int:
    """Sign a grant to another entity and write it as hex; print its id."""
    from swarmconf.spec.kvgossip.grants import issue_grant

    from .sync import wall_clock_ms

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
    from swarmconf.spec.kvgossip.grants import decode_grant, revoke_grant

    from .sync import wall_clock_ms

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
    from swarmconf.spec.kvgossip import crypto
    from swarmconf.spec.kvgossip.chain import decode_pool, find_chain
    from swarmconf.spec.kvgossip.keys import check_key
    from swarmconf.spec.kvgossip.reasons import KvReason
    from swarmconf.spec.kvgossip.records import make_record

    from .sync import wall_clock_ms

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
    from .control import ControlServer
    from .membership import read_cluster_key
    from .node import Node, NodeConfig

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


def refusal(error: Exception) -> CommandError | None:
    """The spec's and the node's errors as the command line reports them."""
    from swarmconf.spec.kvgossip.reasons import KvError

    from .identity import IdentityError
    from .membership import MembershipError
    from .node import NodeStartError

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
