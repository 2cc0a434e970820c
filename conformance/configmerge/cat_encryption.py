"""Encryption (D18, D19, D20) in both profiles, and padding."""

from __future__ import annotations

import hashlib
import random

from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import new_message, random_data
from swarmconf.spec.configmerge import examples

PAD_SIZES = [0, 1, 100, 215, 216, 217, 471, 472, 473, 4823, 4824, 4825]
LARGE_PAD_SIZES = [5079, 5080, 20439, 20440, 40919, 40920]  # chunk changes, overhead 40 only


def key(label: str) -> bytes:
    return hashlib.sha256(b"swarmconf vectors v1 encryption " + label.encode()).digest()


def build() -> Suite:
    suite = Suite(
        "encryption",
        "Deterministic XChaCha20-Poly1305 (D18 profile spec, D19 profile libsession with"
        " derived key); ciphertext || tag || nonce; padding (D19) a step of its own: the"
        " primitive, pad-then-encrypt, decrypt-then-unpad; hashes stay over the plaintext"
        " (D20).",
        profile="spec",
    )
    rng = random.Random("swarmconf encryption v1")
    plaintexts = [
        ("m118", examples.m118()),
        ("m127", examples.m127()),
        ("empty", b""),
        ("one-byte", b"d"),
    ] + [(f"random-{i}", new_message(i, random_data(rng))) for i in range(60)]
    domains = [b"c", b"UserProfile", b"closed-group-keys-24byte"[:24], bytes(range(1, 25))]
    for name, plaintext in plaintexts:
        for profile in ("spec", "libsession"):
            domain = rng.choice(domains) if profile == "libsession" else None
            extra = {} if domain is None else {"domain": domain.hex()}
            k = key(name)
            answer = suite.add(
                f"encrypt-{profile}-{name}",
                f"encrypt {name} ({len(plaintext)} bytes) with profile {profile}",
                "encrypt",
                {"plaintext": plaintext.hex(), "key": k.hex(), "profile": profile, **extra},
                flags=["Encryption"],
                rules=["D18"] if profile == "spec" else ["D19"],
                expect="valid",
            )
            ciphertext = bytes.fromhex(answer["result"]["ciphertext"])
            if domain is not None:
                padded_round_trip(suite, name, plaintext, k, extra)
            suite.add(
                f"decrypt-{profile}-{name}",
                f"decrypt {name} with profile {profile}: the plaintext, whose hash is unchanged",
                "decrypt",
                {"ciphertext": ciphertext.hex(), "key": k.hex(), "profile": profile, **extra},
                flags=["Encryption"],
                rules=(["D18"] if profile == "spec" else ["D19"]) + ["D20"],
                expect="valid",
            )
            tampered = bytearray(ciphertext)
            tampered[rng.randrange(len(tampered))] ^= 1 << rng.randrange(8)
            other_key = key(name + " other")
            failures = [
                ("tampered", bytes(tampered), k, extra),
                ("wrong-key", ciphertext, other_key, extra),
            ]
            if domain is not None:
                failures.append(
                    (
                        "wrong-domain",
                        ciphertext,
                        k,
                        {"domain": (domain[:-1] + bytes([domain[-1] ^ 1])).hex()},
                    )
                )
            for failure, blob, used_key, used_extra in failures:
                suite.add(
                    f"decrypt-{profile}-{name}-{failure}",
                    f"decrypt {name} ({failure.replace('-', ' ')}): authentication fails",
                    "decrypt",
                    {
                        "ciphertext": blob.hex(),
                        "key": used_key.hex(),
                        "profile": profile,
                        **used_extra,
                    },
                    flags=["Encryption", "Tampered"],
                    rules=["D18"] if profile == "spec" else ["D19"],
                    expect="DECRYPT_FAILED",
                )
    k = key("arguments")
    for name, op, inputs, reason in [
        ("too-short-empty", "decrypt", {"ciphertext": ""}, "DECRYPT_TOO_SHORT"),
        ("too-short-39", "decrypt", {"ciphertext": "00" * 39}, "DECRYPT_TOO_SHORT"),
        (
            "too-short-39-libsession",
            "decrypt",
            {"ciphertext": "00" * 39, "profile": "libsession", "domain": "61"},
            "DECRYPT_TOO_SHORT",
        ),
        ("exactly-overhead-zeros", "decrypt", {"ciphertext": "00" * 40}, "DECRYPT_FAILED"),
        ("key-31", "encrypt", {"plaintext": "64", "key": k[:31].hex()}, "BAD_KEY"),
        ("key-33", "decrypt", {"ciphertext": "00" * 50, "key": (k + b"!").hex()}, "BAD_KEY"),
        ("spec-with-domain", "encrypt", {"plaintext": "64", "domain": "61"}, "BAD_DOMAIN"),
        (
            "libsession-no-domain",
            "encrypt",
            {"plaintext": "64", "profile": "libsession"},
            "BAD_DOMAIN",
        ),
        (
            "libsession-empty-domain",
            "encrypt",
            {"plaintext": "64", "profile": "libsession", "domain": ""},
            "BAD_DOMAIN",
        ),
        (
            "libsession-domain-25",
            "decrypt",
            {"ciphertext": "00" * 50, "profile": "libsession", "domain": "61" * 25},
            "BAD_DOMAIN",
        ),
        (
            "libsession-domain-24",
            "encrypt",
            {"plaintext": "64", "profile": "libsession", "domain": "61" * 24},
            None,
        ),
        ("profile-unknown", "encrypt", {"plaintext": "64", "profile": "aes"}, "BAD_PROFILE"),
        (
            "profile-uppercase",
            "decrypt",
            {"ciphertext": "00" * 50, "profile": "SPEC"},
            "BAD_PROFILE",
        ),
        ("profile-empty", "encrypt", {"plaintext": "64", "profile": ""}, "BAD_PROFILE"),
    ]:
        inputs.setdefault("key", k.hex())
        suite.add(
            name,
            f"{op}: {name.replace('-', ' ')}",
            op,
            inputs,
            flags=["EncryptionArguments"],
            rules=["D19"] if inputs.get("profile") == "libsession" else ["D18"],
            expect=reason or "valid",
        )
    for name, padded in [
        ("all-zero-216", bytes(216)),
        ("all-zero-1", bytes(1)),
        ("nothing", b""),
        ("no-padding", b"d1:#i0e1:&de1:=dee"),
        ("zeros-then-message", bytes(3) + b"d1:#i0e1:&de1:=dee"),
    ]:
        suite.add(
            f"unpad-{name}",
            f"unpad {name.replace('-', ' ')}: every leading zero byte goes (D19)",
            "unpad",
            {"padded": padded.hex()},
            flags=["Padding"],
            rules=["D19"],
            expect="valid",
        )
    sizes = [(size, overhead) for size in PAD_SIZES for overhead in (0, 40, 100)]
    for size, overhead in sizes + [(size, 40) for size in LARGE_PAD_SIZES]:
        suite.add(
            f"pad-{size}-overhead-{overhead}",
            f"pad {size} bytes with overhead {overhead} (D19 chunk sizes)",
            "pad",
            {"plaintext": (b"d" + bytes(size))[:size].hex(), "overhead": overhead},
            flags=["Padding"],
            rules=["D19"],
            expect="valid",
        )
    return suite


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
