"""Deterministic entities for vectors, tests and the simulation: keys from fixed seeds."""

from __future__ import annotations

from dataclasses import dataclass

from . import crypto


@dataclass(frozen=True, slots=True)
class Entity:
    """A named key pair derived from the label's fixed seed."""

    name: str
    seed: bytes
    pk: bytes


def entity(name: str) -> Entity:
    """The entity `name`, with seed `SHA-256("kvg/test-seed/" + name)`."""
    seed = crypto.seed_from_label(name)
    return Entity(name, seed, crypto.public_key(seed))


ROOT = entity("root")
ALICE = entity("alice")
BOB = entity("bob")
CAROL = entity("carol")
MALLORY = entity("mallory")
