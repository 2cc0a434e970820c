"""Scenarios drawn from a seed: nodes, grants, faults, writes, revocations and partitions."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from swarmconf.spec.kvgossip.fixtures import Entity, entity
from swarmconf.spec.kvgossip.grants import Grant, issue_grant

from .network import Faults

KEYS = ("/k/a", "/k/b", "/k/b/c", "/k/d")
VALUES = (b"0", b"1", None)
PATTERNS = ("/k/**", "/k/a", "/k/*", "/k/b/**", "/k/*/c")
T0 = 1_700_000_000_000
ISSUED = T0 - 60_000
"""Grants predate every node clock."""


@dataclass
class Op:
    """One scripted action at simulated time `at`."""

    at: int
    kind: str
    """write, conflict, revoke, attack."""
    node: str
    key: str = ""
    value: bytes | None = None
    other: str = ""
    grant: int = 0
    pick: int = 0


@dataclass
class Scenario:
    """A whole run, generated from one seed."""

    seed: int
    root: Entity
    identities: dict[str, Entity]
    grants: list[Grant]
    issuers: list[str]
    """The node holding each grant's issuer key (the root's holder for root grants)."""
    offsets: dict[str, int]
    latency: dict[tuple[str, str], int]
    faults: Faults
    ops: list[Op]
    partition: tuple[int, int, list[frozenset[str]]] | None
    attacker: str | None
    churn: tuple[str, int, int] | None = None
    """(node, leave, back): the honest node leaves the cluster at `leave` and joins again at
    `back` with the store it had; one leaving at 0 is a node joining late, with an empty store."""
    query_period_ms: int = 5000
    settle_limit_ms: int = 150_000
    notes: dict[str, object] = field(default_factory=dict)


def generate(
    seed: int, skew_ms: int = 30_000, fast_clock_rate: float = 0.15, churn_rate: float = 0.25
) -> Scenario:
    """The scenario of `seed`: 3-5 honest nodes, maybe an attacker, 3-14 operations, and in a
    share `churn_rate` of scenarios one honest node that leaves and joins again, or joins
    late."""
    rng = random.Random(seed)
    root = entity("root")
    honest = [f"n{i}" for i in range(rng.randint(3, 5))]
    attacker = "m" if rng.random() < 0.4 else None
    names = honest + ([attacker] if attacker else [])
    identities = {n: entity(f"sim-{n}") for n in names}
    identities["n0"] = root
    grants = [issue_grant(root.seed, identities["n1"].pk, "/k/**", subgrant=True, issued_at=ISSUED)]
    issuers = ["n0"]
    for name in honest[2:]:
        via_n1 = rng.random() < 0.5
        issuer = identities["n1"] if via_n1 else root
        grants.append(
            issue_grant(
                issuer.seed,
                identities[name].pk,
                rng.choice(PATTERNS),
                subgrant=rng.random() < 0.5,
                issued_at=ISSUED,
            )
        )
        issuers.append("n1" if via_n1 else "n0")
        if rng.random() < 0.3:
            grants.append(
                issue_grant(
                    root.seed,
                    identities[name].pk,
                    rng.choice(PATTERNS),
                    subgrant=False,
                    issued_at=ISSUED,
                )
            )
            issuers.append("n0")
    if attacker:
        # A sloppy issuer: n1 hands the attacker a grant wider than its own.
        grants.append(
            issue_grant(
                identities["n1"].seed,
                identities[attacker].pk,
                "/**",
                subgrant=False,
                issued_at=ISSUED,
            )
        )
        issuers.append("n1")
    offsets = {n: rng.randint(-skew_ms // 2, skew_ms // 2) for n in names}
    latency: dict[tuple[str, str], int] = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            latency[(a, b)] = latency[(b, a)] = rng.randint(1, 60)
    faults = Faults(
        loss=rng.choice((0.0, 0.05, 0.2)),
        duplicate=rng.choice((0.0, 0.05, 0.2)),
        jitter_ms=rng.choice((0, 30, 300)),
        stream_loss=random.Random(f"{seed}/stream").choice((0.0, 0.0, 0.01, 0.05)),
    )
    ops = []
    for _ in range(rng.randint(3, 14)):
        at = rng.randint(0, 20_000)
        roll = rng.random()
        if roll < 0.75:
            ops.append(Op(at, "write", rng.choice(honest), rng.choice(KEYS), rng.choice(VALUES)))
        elif roll < 0.88:
            a, b = rng.sample(honest, 2)
            ops.append(Op(at, "conflict", a, rng.choice(KEYS), rng.choice(VALUES), other=b))
        else:
            ops.append(Op(at, "revoke", "", grant=rng.randrange(len(grants))))
    if attacker:
        for _ in range(rng.randint(1, 4)):
            ops.append(
                Op(
                    rng.randint(2_000, 24_000),
                    "attack",
                    attacker,
                    other=rng.choice(honest),
                    pick=rng.randrange(1 << 30),
                )
            )
    partition = None
    if rng.random() < 0.5:
        start = rng.randint(0, 15_000)
        cut = set(rng.sample(names, rng.randint(1, len(names) - 1)))
        partition = (
            start,
            start + rng.randint(1_000, 15_000),
            [frozenset(cut), frozenset(set(names) - cut)],
        )
    # In a share `fast_clock_rate` of scenarios one clock runs beyond the skew: its writes are
    # deferred until the others catch up. Drawn from a stream of its own, so the rest of the
    # scenario does not depend on it.
    clock_rng = random.Random(f"{seed}/clock")
    if clock_rng.random() < fast_clock_rate:
        offsets[clock_rng.choice(honest)] = skew_ms + clock_rng.randint(1, 20_000)
    # Membership churn, from a stream of its own too.
    churn_rng = random.Random(f"{seed}/members")
    churn = None
    if churn_rng.random() < churn_rate:
        leave = 0 if churn_rng.random() < 0.3 else churn_rng.randint(0, 15_000)
        churn = (churn_rng.choice(honest), leave, leave + churn_rng.randint(1_000, 15_000))
    return Scenario(
        seed,
        root,
        identities,
        grants,
        issuers,
        offsets,
        latency,
        faults,
        sorted(ops, key=lambda o: (o.at, o.kind, o.node)),
        partition,
        attacker,
        churn=churn,
    )
