"""A network of Linux namespaces for fault tests: one per node, a veth pair between each two.

Node `i` lives in namespace `<tag>-<i>` with the address `10.77.<subnet>.<i+1>` on its loopback
device, and reaches node `j` over a veth pair of their own (`to<j>` on its side) with a host
route through it. So any set of links can be cut on its own: `cut` takes both ends of a pair
down (the routes through them go with them, and the two nodes' packets to each other fail at
once), `heal` brings every pair back up with its routes. Nothing is created outside the
namespaces, whose names carry a random tag so that runs never meet; `destroy` removes them all,
and the veth pairs with them. Needs root and `ip` (Debian's `iproute2`).
"""

from __future__ import annotations

import itertools
import os
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field

SUBNET_PREFIX = "10.77"


def _ip(*args: str, check: bool = True) -> None:
    subprocess.run(["ip", *args], check=check, capture_output=True)


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
                _ip("-n", self.namespace(node), "link", "set", "lo", "up")
                _ip(
                    "-n",
                    self.namespace(node),
                    "addr",
                    "add",
                    f"{self.address(node)}/32",
                    "dev",
                    "lo",
                )
            for i, j in self.pairs:
                _ip(
                    "link", "add", f"to{j}", "netns", self.namespace(i), "type", "veth",
                    "peer", "name", f"to{i}", "netns", self.namespace(j),
                )  # fmt: skip
                self._up(i, j)
        except BaseException:
            self.destroy()
            raise

    def _up(self, i: int, j: int) -> None:
        for here, there in ((i, j), (j, i)):
            ns, device = self.namespace(here), f"to{there}"
            _ip("-n", ns, "link", "set", device, "up")
            _ip(
                "-n", ns, "route", "replace", f"{self.address(there)}/32",
                "dev", device, "src", self.address(here),
            )  # fmt: skip

    def cut(self, pairs: Iterable[tuple[int, int]]) -> None:
        """Take the links between these pairs of nodes down."""
        for i, j in pairs:
            for here, there in ((i, j), (j, i)):
                _ip("-n", self.namespace(here), "link", "set", f"to{there}", "down")
            self.down.add(frozenset((i, j)))

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
        for pair in list(self.down):
            i, j = sorted(pair)
            self._up(i, j)
            self.down.discard(pair)

    def destroy(self) -> None:
        """Remove every namespace of this mesh (and so its links)."""
        for node in range(self.size):
            _ip("netns", "del", self.namespace(node), check=False)

    def command(self, node: int, argv: list[str]) -> list[str]:
        """`argv` run inside node `node`'s namespace."""
        return ["ip", "netns", "exec", self.namespace(node), *argv]
