"""A network of Linux namespaces for fault tests: one per node, a veth pair between each two.

Node `i` lives in namespace `<tag>-<i>` with the address `10.77.<subnet>.<i+1>` on its loopback
device, and reaches node `j` over a veth pair of their own (`to<j>` on its side) with a host
route through it. So any set of links can be cut on its own: `cut` takes both ends of a pair
down (the routes through them go with them, and the two nodes' packets to each other fail at
once), `heal` brings every pair back up with its routes. Nothing is created outside the
namespaces, whose names carry a random tag so that runs never meet; `destroy` removes them all,
and the veth pairs with them. Needs root and `ip` (Debian's `iproute2`).

Every byte a node sends to another crosses its veth to that node, so the veth counters
(`traffic`) are what the node and its Serf agent put on the network, per peer; a node's own
loopback (its control socket is a file, its Serf RPC on loopback) is not counted. `connect`
opens a TCP connection from inside a namespace, for a client in the host's namespace.
"""

from __future__ import annotations

import ctypes
import itertools
import json
import os
import socket
import subprocess
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field

SUBNET_PREFIX = "10.77"
_CLONE_NEWNET = 0x40000000
_NO_IPV6 = ("net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1")
"""No IPv6 on the links: its router solicitations would be counted as the nodes' traffic."""
_SETNS_LOCK = threading.Lock()


def _ip(*args: str, check: bool = True) -> None:
    subprocess.run(["ip", *args], check=check, capture_output=True)


def _batch(lines: list[str], namespace: str | None = None) -> None:
    """Many `ip` commands in one process (`ip -batch`), in `namespace` if given: a 32-node
    mesh is 2,500 of them."""
    where = [] if namespace is None else ["-n", namespace]
    subprocess.run(
        ["ip", *where, "-batch", "-"], input="\n".join(lines).encode(), check=True,
        capture_output=True,
    )  # fmt: skip


def _setns(fd: int) -> None:
    if ctypes.CDLL(None, use_errno=True).setns(fd, _CLONE_NEWNET) != 0:
        raise OSError(ctypes.get_errno(), "setns failed")


@dataclass(frozen=True)
class Traffic:
    """Bytes and packets a node sent and received on its links, summed and per peer."""

    sent: int
    received: int
    packets_sent: int
    by_peer: dict[int, tuple[int, int]]
    """Peer -> (bytes sent to it, bytes received from it)."""

    def __sub__(self, earlier: Traffic) -> Traffic:
        return Traffic(
            self.sent - earlier.sent,
            self.received - earlier.received,
            self.packets_sent - earlier.packets_sent,
            {
                peer: (tx - earlier.by_peer.get(peer, (0, 0))[0],
                       rx - earlier.by_peer.get(peer, (0, 0))[1])
                for peer, (tx, rx) in self.by_peer.items()
            },
        )  # fmt: skip


@dataclass
class Mesh:
    """`size` namespaces, each pair joined by a veth pair of its own."""

    size: int
    subnet: int = field(default_factory=lambda: int.from_bytes(os.urandom(1)) % 200 + 20)
    tag: str = field(default_factory=lambda: "kvf" + os.urandom(3).hex())
    down: set[frozenset[int]] = field(default_factory=set)
    """The pairs cut now."""

    def namespace(self, node: int) -> str:
        return f"{self.tag}-{node}"

    def address(self, node: int) -> str:
        return f"{SUBNET_PREFIX}.{self.subnet}.{node + 1}"

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return list(itertools.combinations(range(self.size), 2))

    def create(self) -> None:
        """Create the namespaces and every link; on failure, remove what was made."""
        try:
            for node in range(self.size):
                _ip("netns", "add", self.namespace(node))
                subprocess.run(
                    self.command(node, ["sysctl", "-q", "-w", *_NO_IPV6]),
                    check=True, capture_output=True,
                )  # fmt: skip
            _batch(
                [f"link add to{j} address {self.mac(i, j)} netns {self.namespace(i)} type veth "
                 f"peer name to{i} address {self.mac(j, i)} netns {self.namespace(j)}"
                 for i, j in self.pairs]
            )  # fmt: skip
            for node in range(self.size):
                here = self.address(node)
                self._each(
                    {node: ["link set lo up", f"addr add {here}/32 dev lo"]},
                    ((node, there) for there in range(self.size) if there != node),
                )
        except BaseException:
            self.destroy()
            raise

    def mac(self, here: int, there: int) -> str:
        """The hardware address of node `here`'s end of its link to `there`."""
        octets = (2, self.subnet, here >> 8, here & 255, there >> 8, there & 255)
        return ":".join(f"{octet:02x}" for octet in octets)

    def _up_lines(self, here: int, there: int) -> list[str]:
        """`ip` commands in `here`'s namespace that bring its link to `there` up: the link, the
        host route through it and the peer's hardware address, fixed (a permanent entry
        takes no room in the kernel's neighbour table, which all namespaces share: a learnt
        one per node and peer overflows its 1,024 entries at 33 nodes)."""
        device = f"to{there}"
        return [
            f"link set {device} up",
            f"route replace {self.address(there)}/32 dev {device} src {self.address(here)}",
            f"neigh replace {self.address(there)} lladdr {self.mac(there, here)} dev {device} "
            "nud permanent",
        ]

    def _each(self, first: dict[int, list[str]], ends: Iterable[tuple[int, int]]) -> None:
        """One `ip -batch` per namespace: `first`, then each (here, there) end brought up."""
        lines = {node: list(commands) for node, commands in first.items()}
        for here, there in ends:
            lines.setdefault(here, []).extend(self._up_lines(here, there))
        for node, commands in lines.items():
            _batch(commands, self.namespace(node))

    def cut(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Take the links between these pairs of nodes down."""
        lines: dict[int, list[str]] = {}
        for i, j in pairs:
            for here, there in ((i, j), (j, i)):
                lines.setdefault(here, []).append(f"link set to{there} down")
            self.down.add(frozenset((i, j)))
        for node, commands in lines.items():
            _batch(commands, self.namespace(node))

    def partition(self, *sides: Iterable[int]) -> None:
        """Cut every link between nodes on different sides (a node on no side keeps its links:
        a bridge between them)."""
        groups = [set(side) for side in sides]
        self.cut(
            (i, j)
            for i, j in self.pairs
            for a, b in itertools.combinations(groups, 2)
            if (i in a and j in b) or (i in b and j in a)
        )

    def heal(self) -> None:
        """Bring every cut link back up, with its routes."""
        pairs = [tuple(sorted(pair)) for pair in self.down]
        self._each({}, ((here, there) for i, j in pairs for here, there in ((i, j), (j, i))))
        self.down.clear()

    def destroy(self) -> None:
        """Remove every namespace of this mesh (and so its links)."""
        for node in range(self.size):
            _ip("netns", "del", self.namespace(node), check=False)

    def traffic(self, node: int) -> Traffic:
        """What node `node` has sent and received on its links so far."""
        out = subprocess.run(
            ["ip", "-n", self.namespace(node), "-s", "-j", "link", "show"],
            check=True, capture_output=True,
        ).stdout  # fmt: skip
        by_peer, packets = {}, 0
        for link in json.loads(out):
            name = str(link["ifname"]).split("@")[0]
            if name.startswith("to"):
                stats = link["stats64"]
                by_peer[int(name[2:])] = (int(stats["tx"]["bytes"]), int(stats["rx"]["bytes"]))
                packets += int(stats["tx"]["packets"])
        return Traffic(
            sum(tx for tx, _ in by_peer.values()),
            sum(rx for _, rx in by_peer.values()),
            packets,
            by_peer,
        )

    def connect(self, node: int, port: int) -> socket.socket:
        """A TCP connection to `port` on node `node`'s address, made inside its namespace (a
        socket keeps the namespace it was made in)."""
        with _SETNS_LOCK, open("/proc/thread-self/ns/net") as home:
            with open(f"/run/netns/{self.namespace(node)}") as target:
                _setns(target.fileno())
            try:
                return socket.create_connection((self.address(node), port), timeout=5)
            finally:
                _setns(home.fileno())

    def command(self, node: int, argv: list[str]) -> list[str]:
        """`argv` run inside node `node`'s namespace."""
        return ["ip", "netns", "exec", self.namespace(node), *argv]
