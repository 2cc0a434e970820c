"""Seeds derived with a cryptographic hash: stable across processes, never Python's `hash()`."""

from __future__ import annotations

import hashlib
import random


def derive_seed(*parts: int | str) -> int:
    """A 64-bit seed from the given parts (e.g. campaign seed, scenario index, schedule index)."""
    text = "/".join(str(part) for part in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8, person=b"swarmconf-fuzz").digest())


def derive_rng(*parts: int | str) -> random.Random:
    """A generator seeded from `derive_seed(*parts)`."""
    return random.Random(derive_seed(*parts))


def derive_bytes(size: int, *parts: int | str) -> bytes:
    """`size` deterministic bytes (key seeds) from the given parts."""
    text = "/".join(str(part) for part in parts).encode()
    return hashlib.blake2b(text, digest_size=size, person=b"swarmconf-keys").digest()
