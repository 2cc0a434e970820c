"""`swarmconf kv ...`: keys, grants and revocations, reads and writes, and the node itself.

Keys are given as `HEX|@FILE` (a key file holds a 32-byte Ed25519 seed in hex); grant files hold
a signed grant in hex. Writes are signed here, with the shortest chain found among the given
grant files and the grants the node has stored, and handed to the running node of `--data` over
its control socket; the node applies them exactly as it applies records from peers. Refusals
follow `swarmconf.cliutil`: one line `swarmconf: error: REASON: detail` and its exit status.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from swarmconf.cliutil import KEY_HELP, deferred, examples

DEFAULT_DATA = "kvdata"


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host, int(port)


HELP: dict[str, str] = {
    "keygen": (
        "K/V Gossip entity key: write a new secret key file, print its public key (config-merge "
        "keys: `swarmconf keygen`)."
    ),
    "cluster-key": (
        "Create the cluster secret every node of one cluster is started with (mode 0600)."
    ),
    "serf-config": (
        "Write the Serf config (gossip key, RPC token) for an agent run apart (`--serf-rpc`)."
    ),
    "pubkey": "Print the public key of a secret key.",
    "grant": "Sign a grant to another entity and write it as hex; print its id.",
    "revoke": "Sign a revocation and hand it to the node, which spreads it.",
    "set": "Sign and store a value.",
    "delete": "Sign and store a tombstone.",
    "get": "Print a key's value.",
    "list": "Print every stored key under a prefix.",
    "watch": "Print changes under a prefix as the node stores them.",
    "status": "Print the node's status as JSON.",
    "agent": "Run a node until SIGINT or SIGTERM.",
}
"""Each command's one-line help; its handler is `commands.cmd_<name>`."""


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

    def add(name: str, **kw: Any) -> Any:
        text = HELP[name]
        parser = commands.add_parser(
            name, help=text, description=text, **examples(*EXAMPLES[name]), **kw
        )
        handler = "cmd_" + name.replace("-", "_")
        parser.set_defaults(handler=deferred(f"{__package__}.commands", handler))
        return parser

    def data(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(
            "--data", type=Path, default=Path(DEFAULT_DATA), help="the node's data directory"
        )

    def key(parser: argparse.ArgumentParser, whose: str) -> None:
        parser.add_argument("--key", required=True, metavar=KEY_HELP, help=f"{whose} secret key")

    new_file = "file to create (refuses to overwrite)"
    p = add("keygen")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help=f"secret key {new_file}")
    p = add("cluster-key")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help=f"cluster key {new_file}")
    p = add("serf-config")
    p.add_argument("--cluster-key", type=Path, required=True, help="the cluster key file")
    p.add_argument(
        "-o", "--output", required=True, metavar="FILE", help=f"Serf config JSON {new_file}"
    )
    p = add("pubkey")
    p.add_argument("key", metavar=KEY_HELP, help="a secret key")

    p = add("grant")
    key(p, "the issuer's")
    p.add_argument("--to", required=True, metavar=KEY_HELP, help="the issuee's public key")
    p.add_argument("--pattern", required=True, help="keys the grant covers, e.g. /app/**")
    p.add_argument("--subgrant", action="store_true", help="the issuee may grant further")
    p.add_argument("--expires", type=int, default=0, help="expiry, ms since epoch (0: never)")
    p.add_argument("--at", type=int, help="issue time, ms since epoch (default: now)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help=f"grant {new_file}")

    p = add("revoke")
    data(p)
    key(p, "the grant's issuer's (or the root's)")
    p.add_argument("--grant", required=True, help="the grant file to revoke")
    p.add_argument("--at", type=int, help="revocation time, ms since epoch (default: now)")

    for name in ("set", "delete"):
        p = add(name)
        data(p)
        key(p, "the writer's")
        p.add_argument("--grant", action="append", default=[], help="a grant file (repeatable)")
        p.add_argument("--ts", type=int, help="record time, ms since epoch (default: now)")
        p.add_argument("name", metavar="KEY")
        if name == "set":
            p.add_argument("value", metavar="VALUE", nargs="?")
            p.add_argument("--file", help="read the value from a file (- for stdin)")

    wait = "keep asking for up to SECONDS while the node or the key is not there yet"
    p = add("get")
    data(p)
    p.add_argument("name", metavar="KEY")
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS", help=wait)
    p.add_argument("--raw", action="store_true", help="the value's bytes only, no newline")
    for name in ("list", "watch"):
        p = add(name)
        data(p)
        p.add_argument("prefix", nargs="?", default="")
        if name == "watch":
            p.add_argument("--count", type=int, default=0, help="exit after N changes")
    p = add("status")
    data(p)
    p.add_argument("--wait", type=float, default=0.0, metavar="SECONDS", help=wait)

    p = add("agent")
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
    p.add_argument(
        "--query-timeout",
        type=float,
        default=1.0,
        help="state query timeout per decade of members (s)",
    )
    p.add_argument(
        "--resync",
        type=float,
        default=30.0,
        help="periodic state query up to 32 members, longer past (s)",
    )
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
