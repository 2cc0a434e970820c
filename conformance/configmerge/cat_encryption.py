"""Encryption (D18, D19, D20) in both profiles, and padding."""

from __future__ import annotations

import hashlib
import random

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import new_message, random_data
from swarmconf.spec.configmerge import examples

PAD_SIZES = [0, 1, 100, 215, 216, 217, 471, 472, 473, 4823, 4824, 4825]
LARGE_PAD_SIZES = [5079, 5080, 20439, 20440, 40919, 40920]  # chunk changes, overhead 40 only


def key(label: str) -> bytes:
    return hashlib.sha256(b"swarmconf vectors v1 encryption " + label.encode()).digest()


class Sealing:
    """The encryption suite (profile spec unless a case says otherwise); the random plaintexts,
    domains and tampered bits come from one generator, drawn in case order."""

    def __init__(self) -> None:
        self.suite = Suite(
            "encryption",
            "Deterministic XChaCha20-Poly1305 (D18 profile spec, D19 profile libsession with"
            " derived key); ciphertext || tag || nonce; padding (D19) a step of its own: the"
            " primitive, pad-then-encrypt, decrypt-then-unpad; hashes stay over the plaintext"
            " (D20).",
            profile="spec",
        )
        self.rng = random.Random("swarmconf encryption v1")
        self.plaintexts = [
            ("m118", examples.m118()),
            ("m127", examples.m127()),
            ("empty", b""),
            ("one-byte", b"d"),
        ] + [(f"random-{i}", new_message(i, random_data(self.rng))) for i in range(60)]

    def argument(self, name: str, op: str, inputs: dict[str, str], reason: str | None) -> None:
        """`op` with a bad (or, where `reason` is None, an edge but good) argument."""
        inputs = {**inputs, "key": inputs.get("key", key("arguments").hex())}
        self.suite.add(
            name,
            f"{op}: {name.replace('-', ' ')}",
            op,
            inputs,
            flags=["EncryptionArguments"],
            rules=["D19"] if inputs.get("profile") == "libsession" else ["D18"],
            expect=reason or "valid",
        )


case = Catalogue[Sealing]()


@case
def round_trips(s: Sealing) -> None:
    """Every plaintext encrypted and decrypted in both profiles, and decryptions that fail."""
    domains = [b"c", b"UserProfile", b"closed-group-keys-24byte"[:24], bytes(range(1, 25))]
    for name, plaintext in s.plaintexts:
        for profile in ("spec", "libsession"):
            domain = s.rng.choice(domains) if profile == "libsession" else None
            round_trip(s, name, plaintext, profile, domain)


def round_trip(s: Sealing, name: str, plaintext: bytes, profile: str, domain: bytes | None) -> None:
    extra = {} if domain is None else {"domain": domain.hex()}
    k = key(name)
    rule = "D18" if profile == "spec" else "D19"
    answer = s.suite.add(
        f"encrypt-{profile}-{name}",
        f"encrypt {name} ({len(plaintext)} bytes) with profile {profile}",
        "encrypt",
        {"plaintext": plaintext.hex(), "key": k.hex(), "profile": profile, **extra},
        flags=["Encryption"],
        rules=[rule],
        expect="valid",
    )
    ciphertext = bytes.fromhex(answer["result"]["ciphertext"])
    if domain is not None:
        padded_round_trip(s.suite, name, plaintext, k, extra)
    s.suite.add(
        f"decrypt-{profile}-{name}",
        f"decrypt {name} with profile {profile}: the plaintext, whose hash is unchanged",
        "decrypt",
        {"ciphertext": ciphertext.hex(), "key": k.hex(), "profile": profile, **extra},
        flags=["Encryption"],
        rules=[rule, "D20"],
        expect="valid",
    )
    tampered = bytearray(ciphertext)
    tampered[s.rng.randrange(len(tampered))] ^= 1 << s.rng.randrange(8)
    failures = [
        ("tampered", bytes(tampered), k, extra),
        ("wrong-key", ciphertext, key(name + " other"), extra),
    ]
    if domain is not None:
        other_domain = domain[:-1] + bytes([domain[-1] ^ 1])
        failures.append(("wrong-domain", ciphertext, k, {"domain": other_domain.hex()}))
    for failure, blob, used_key, used_extra in failures:
        s.suite.add(
            f"decrypt-{profile}-{name}-{failure}",
            f"decrypt {name} ({failure.replace('-', ' ')}): authentication fails",
            "decrypt",
            {"ciphertext": blob.hex(), "key": used_key.hex(), "profile": profile, **used_extra},
            flags=["Encryption", "Tampered"],
            rules=[rule],
            expect="DECRYPT_FAILED",
        )


@case
def ciphertext_too_short(s: Sealing) -> None:
    s.argument("too-short-empty", "decrypt", {"ciphertext": ""}, "DECRYPT_TOO_SHORT")
    s.argument("too-short-39", "decrypt", {"ciphertext": "00" * 39}, "DECRYPT_TOO_SHORT")
    libsession = {"ciphertext": "00" * 39, "profile": "libsession", "domain": "61"}
    s.argument("too-short-39-libsession", "decrypt", libsession, "DECRYPT_TOO_SHORT")
    s.argument("exactly-overhead-zeros", "decrypt", {"ciphertext": "00" * 40}, "DECRYPT_FAILED")


@case
def bad_keys(s: Sealing) -> None:
    k = key("arguments")
    s.argument("key-31", "encrypt", {"plaintext": "64", "key": k[:31].hex()}, "BAD_KEY")
    s.argument("key-33", "decrypt", {"ciphertext": "00" * 50, "key": (k + b"!").hex()}, "BAD_KEY")


@case
def domains(s: Sealing) -> None:
    """Profile spec takes no domain; libsession needs one of 1 to 24 bytes."""
    s.argument("spec-with-domain", "encrypt", {"plaintext": "64", "domain": "61"}, "BAD_DOMAIN")
    for name, op, inputs, reason in [
        ("libsession-no-domain", "encrypt", {"plaintext": "64"}, "BAD_DOMAIN"),
        ("libsession-empty-domain", "encrypt", {"plaintext": "64", "domain": ""}, "BAD_DOMAIN"),
        (
            "libsession-domain-25",
            "decrypt",
            {"ciphertext": "00" * 50, "domain": "61" * 25},
            "BAD_DOMAIN",
        ),
        ("libsession-domain-24", "encrypt", {"plaintext": "64", "domain": "61" * 24}, None),
    ]:
        s.argument(name, op, {**inputs, "profile": "libsession"}, reason)


@case
def profiles(s: Sealing) -> None:
    s.argument("profile-unknown", "encrypt", {"plaintext": "64", "profile": "aes"}, "BAD_PROFILE")
    uppercase = {"ciphertext": "00" * 50, "profile": "SPEC"}
    s.argument("profile-uppercase", "decrypt", uppercase, "BAD_PROFILE")
    s.argument("profile-empty", "encrypt", {"plaintext": "64", "profile": ""}, "BAD_PROFILE")


@case
def unpad(s: Sealing) -> None:
    for name, padded in [
        ("all-zero-216", bytes(216)),
        ("all-zero-1", bytes(1)),
        ("nothing", b""),
        ("no-padding", b"d1:#i0e1:&de1:=dee"),
        ("zeros-then-message", bytes(3) + b"d1:#i0e1:&de1:=dee"),
    ]:
        s.suite.add(
            f"unpad-{name}",
            f"unpad {name.replace('-', ' ')}: every leading zero byte goes (D19)",
            "unpad",
            {"padded": padded.hex()},
            flags=["Padding"],
            rules=["D19"],
            expect="valid",
        )


@case
def pad_sizes(s: Sealing) -> None:
    sizes = [(size, overhead) for size in PAD_SIZES for overhead in (0, 40, 100)]
    for size, overhead in sizes + [(size, 40) for size in LARGE_PAD_SIZES]:
        s.suite.add(
            f"pad-{size}-overhead-{overhead}",
            f"pad {size} bytes with overhead {overhead} (D19 chunk sizes)",
            "pad",
            {"plaintext": (b"d" + bytes(size))[:size].hex(), "overhead": overhead},
            flags=["Padding"],
            rules=["D19"],
            expect="valid",
        )


def build() -> Suite:
    return case.fill(Sealing()).suite


def padded_round_trip(
    suite: Suite, name: str, plaintext: bytes, k: bytes, extra: dict[str, str]
) -> None:
    """Profile libsession as the deployed client pushes and loads: pad, then encrypt; decrypt,
    then unpad (D19)."""
    padded = bytes.fromhex(
        suite.add(
            f"pad-message-{name}",
            f"pad {name} to the libsession chunk size before encrypting",
            "pad",
            {"plaintext": plaintext.hex(), "overhead": 40},
            flags=["Padding"],
            rules=["D19"],
            expect="valid",
        )["result"]["padded"]
    )
    inputs = {"key": k.hex(), "profile": "libsession", **extra}
    sealed = suite.add(
        f"encrypt-padded-{name}",
        f"encrypt {name} padded to {len(padded)} bytes with profile libsession",
        "encrypt",
        {"plaintext": padded.hex(), **inputs},
        flags=["Encryption", "Padding"],
        rules=["D19"],
        expect="valid",
    )["result"]["ciphertext"]
    suite.add(
        f"decrypt-padded-{name}",
        f"decrypt padded {name}: the padded plaintext, padding included",
        "decrypt",
        {"ciphertext": sealed, **inputs},
        flags=["Encryption", "Padding"],
        rules=["D19", "D20"],
        expect="valid",
    )
    suite.add(
        f"unpad-message-{name}",
        f"unpad {name} after decrypting it",
        "unpad",
        {"padded": padded.hex()},
        flags=["Padding"],
        rules=["D19"],
        expect="valid",
    )
