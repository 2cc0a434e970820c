"""Scenarios: who edits what, with which lag, signed or not. Derived from (campaign, index).

A scenario fixes the shared starting message's data, the lag and each client's edit batches.
In a signed scenario every message must carry a valid signature and only some clients hold the
signing key; the others are read-only (D32): they read, and resolve no conflict (D17: without
the key a merge returns the highest-ranked message unchanged). A "future" client writes an
unknown top-level key into the messages it publishes (D9). Some scenarios seed the swarm with
blobs no client can parse (`blobs`): a message of a later major version, whose first key sorts
before `#` (D8), so it comes before every message in a merge's inputs, and a message whose `&`
is not a dict, at a seqno near the starting one, so it sorts between messages. A push never
deletes them (D27).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .behaviours import Mix, drawn_mixes
from .edits import (
    Data,
    Edit,
    JsonValue,
    edit_from_json,
    edit_to_json,
    random_batch,
    random_data,
    value_from_json,
    value_to_json,
)
from .seeds import derive_bytes, derive_rng

LAGS = (1, 2, 3, 3, 5, 5, 5)
BLOB_CHANCE = 0.3
"""The share of scenarios whose swarm starts with unparseable blobs."""


@dataclass(frozen=True)
class Client:
    batches: tuple[tuple[Edit, ...], ...]
    signer: bool = True
    future: bool = False
    behaviour: str = "reference"
    """Its behaviour (`behaviours.BEHAVIOURS`)."""


@dataclass(frozen=True)
class Scenario:
    lag: int
    base_seqno: int
    base_data: Data
    clients: tuple[Client, ...]
    signed: bool
    key_seed: bytes
    blobs: tuple[bytes, ...] = ()
    """Unparseable blobs the swarm holds from the start (kept by every push, D27)."""

    mix: str = "reference"
    """The name of the mix its behaviours came from (`behaviours.MIXES`), or the behaviours
    `--swarm` gave, comma-separated."""

    @property
    def behaviours(self) -> tuple[str, ...]:
        """Each client's behaviour."""
        return tuple(client.behaviour for client in self.clients)

    @property
    def edit_count(self) -> int:
        """Edits: one a batch of changes a client makes at once (one `edit` step, D29), as
        `swarmconf check --edits` counts them per client."""
        return sum(len(client.batches) for client in self.clients)

    @property
    def change_count(self) -> int:
        """The changes (assignments, removals, set additions) of all edits."""
        return sum(len(batch) for client in self.clients for batch in client.batches)

    @property
    def edits_described(self) -> str:
        """`2 edits per client (12 changes)`, or `edits per client 2, 1 (9 changes)`."""
        per_client = [len(client.batches) for client in self.clients]
        changes = f"({self.change_count} changes)"
        if len(set(per_client)) == 1:
            return f"{per_client[0]} edit{'s' * (per_client[0] != 1)} per client {changes}"
        return f"edits per client {', '.join(map(str, per_client))} {changes}"


def generate_scenario(
    campaign_seed: int, index: int, clients: int | None = None, batches: int | None = None
) -> Scenario:
    """The scenario for (campaign seed, scenario index); `clients` and `batches` (per client)
    fix those sizes instead of drawing them (for benchmarks)."""
    rng = derive_rng("scenario", campaign_seed, index)
    count = clients or rng.choice((2, 2, 3, 3, 4, 5))
    signed = rng.random() < 0.25
    signers = set(rng.sample(range(count), rng.randint(1, count))) if signed else set(range(count))
    future = rng.randrange(count) if rng.random() < 0.25 else -1
    members = tuple(
        Client(
            batches=tuple(random_batch(rng) for _ in range(batches or rng.randint(1, 3))),
            signer=number in signers,
            future=number == future,
        )
        for number in range(count)
    )
    return Scenario(
        lag=rng.choice(LAGS),
        base_seqno=rng.randint(0, 3),
        base_data=random_data(rng),
        clients=members,
        signed=signed,
        key_seed=derive_bytes(32, "key", campaign_seed, index),
        blobs=unparseable_blobs(campaign_seed, index),
    )


def with_behaviours(scenario: Scenario, behaviours: tuple[str, ...], mix: str = "") -> Scenario:
    """The scenario whose client i has behaviour i, the list repeating over the clients;
    `mix` names the list (default: the behaviours, comma-separated)."""
    clients = tuple(
        replace(client, behaviour=behaviours[number % len(behaviours)])
        for number, client in enumerate(scenario.clients)
    )
    return replace(scenario, clients=clients, mix=mix or ",".join(dict.fromkeys(behaviours)))


def draw_mix(campaign_seed: int, index: int) -> Mix:
    """The mix of behaviours of scenario (campaign seed, index), drawn from a generator of its
    own (swarm testing): each mix that should settle, by its weight."""
    mixes = drawn_mixes()
    rng = derive_rng("mix", campaign_seed, index)
    return rng.choices(mixes, weights=[mix.weight for mix in mixes])[0]


def scenario_for(
    campaign_seed: int,
    index: int,
    behaviours: tuple[str, ...] | None = None,
    clients: int | None = None,
    batches: int | None = None,
) -> Scenario:
    """The scenario of (campaign seed, index), its clients of `behaviours` (repeated over
    them) or, without, of the mix its seed draws."""
    scenario = generate_scenario(campaign_seed, index, clients, batches)
    if behaviours:
        return with_behaviours(scenario, behaviours)
    mix = draw_mix(campaign_seed, index)
    return with_behaviours(scenario, mix.behaviours, mix.name)


def unparseable_blobs(campaign_seed: int, index: int) -> tuple[bytes, ...]:
    """The blobs seeded into a scenario's swarm, from a generator of their own (so the rest of
    the scenario is that of its seeds without blobs): none in most scenarios, else a future
    major version (MSG_VERSION_BREAK), one whose data is not a dict (MSG_BAD_DATA), or both."""
    rng = derive_rng("blobs", campaign_seed, index)
    if rng.random() >= BLOB_CHANCE:
        return ()
    seqno = rng.randint(0, 6)
    future = b"d1:!i1e1:#i%de1:&dee" % seqno
    broken = b"d1:#i%de1:&i%dee" % (seqno, rng.randint(0, 9))
    return rng.choice(((future,), (broken,), (future, broken)))


def scenario_to_json(scenario: Scenario) -> JsonValue:
    return {
        "lag": scenario.lag,
        "base_seqno": scenario.base_seqno,
        "base_data": value_to_json(scenario.base_data),
        "signed": scenario.signed,
        "key_seed": scenario.key_seed.hex(),
        "blobs": [blob.hex() for blob in scenario.blobs],
        "mix": scenario.mix,
        "clients": [
            {
                "signer": client.signer,
                "future": client.future,
                "batches": [[edit_to_json(edit) for edit in batch] for batch in client.batches],
                "behaviour": client.behaviour,
            }
            for client in scenario.clients
        ],
    }


def scenario_from_json(obj: JsonValue) -> Scenario:
    base = value_from_json(obj["base_data"])
    assert isinstance(base, dict)
    clients = tuple(
        Client(
            batches=tuple(
                tuple(edit_from_json(edit) for edit in batch) for batch in client["batches"]
            ),
            signer=bool(client["signer"]),
            future=bool(client["future"]),
            behaviour=str(client["behaviour"]),
        )
        for client in obj["clients"]
    )
    return Scenario(
        lag=int(obj["lag"]),
        base_seqno=int(obj["base_seqno"]),
        base_data=base,
        clients=clients,
        signed=bool(obj["signed"]),
        key_seed=bytes.fromhex(obj["key_seed"]),
        blobs=tuple(bytes.fromhex(blob) for blob in obj.get("blobs", ())),
        mix=str(obj.get("mix") or ",".join(dict.fromkeys(client.behaviour for client in clients))),
    )
