"""Encryption (D18, D19, D20) in both profiles, and padding.

Every plaintext (the design's examples m118 and m127, an empty and a one-byte one, and random
messages) is encrypted and decrypted in profile spec and in profile libsession (under a random
domain, padded as the deployed client pushes), and decryptions that must fail. Then bad
arguments (short ciphertexts, keys, domains, profiles), and the padding step on its own. The
random plaintexts, domains and tampered bits come from one generator, drawn in case order.
"""

from __future__ import annotations

import hashlib
import random

from swarmconf.conformance.builder import VALID, Answer, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.values import new_message, random_data
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.conformance.vectors import Json
from swarmconf.spec.configmerge import examples

PAD_SIZES = [0, 1, 100, 215, 216, 217, 471, 472, 473, 4823, 4824, 4825]
LARGE_PAD_SIZES = [5079, 5080, 20439, 20440, 40919, 40920]  # chunk changes, overhead 40 only
DOMAINS = [b"c", b"UserProfile", b"closed-group-keys-24byte"[:24], bytes(range(1, 25))]
"""The libsession domains a round trip draws from."""


def key(label: str) -> bytes:
    return hashlib.sha256(b"swarmconf vectors v1 encryption " + label.encode()).digest()


ARGUMENT_KEY = key("arguments")
"""The key of the bad-argument cases that do not give one."""


def returned(answer: Answer, field: str) -> bytes:
    """The bytes in `field` of a valid answer."""
    return bytes.fromhex(answer.field(field))


case = Catalogue[SuiteBuilder]()


@case
def round_trips(suite: SuiteBuilder) -> None:
    """Every plaintext encrypted and decrypted in both profiles, and decryptions that fail."""
    rng = random.Random("swarmconf encryption v1")
    plaintexts = [
        ("m118", examples.m118()),
        ("m127", examples.m127()),
        ("empty", b""),
        ("one-byte", b"d"),
    ] + [(f"random-{i}", new_message(i, random_data(rng))) for i in range(60)]
    for name, plaintext in plaintexts:
        for profile in ("spec", "libsession"):
            domain = rng.choice(DOMAINS) if profile == "libsession" else None
            round_trip(suite, rng, name, plaintext, profile, domain)


def round_trip(
    suite: SuiteBuilder,
    rng: random.Random,
    name: str,
    plaintext: bytes,
    profile: str,
    domain: bytes | None,
) -> None:
    """`plaintext` encrypted and decrypted under the key named `name` (padded first where there
    is a domain), then decrypted tampered with, under another key and under another domain."""
    extra = {} if domain is None else {"domain": domain.hex()}
    k = key(name)
    rule = "D18" if profile == "spec" else "D19"
    ciphertext = returned(
        suite.case(
            f"encrypt-{profile}-{name}",
            f"encrypt {name} ({len(plaintext)} bytes) with profile {profile}",
            op="encrypt",
            input={"plaintext": plaintext.hex(), "key": k.hex(), "profile": profile, **extra},
            expect=VALID,
            flags=["Encryption"],
            rules=[rule],
        ),
        "ciphertext",
    )
    if domain is not None:
        padded_round_trip(suite, name, plaintext, {"key": k.hex(), **extra})
    suite.case(
        f"decrypt-{profile}-{name}",
        f"decrypt {name} with profile {profile}: the plaintext, whose hash is unchanged",
        op="decrypt",
        input={"ciphertext": ciphertext.hex(), "key": k.hex(), "profile": profile, **extra},
        expect=VALID,
        flags=["Encryption"],
        rules=[rule, "D20"],
    )
    tampered = bytearray(ciphertext)
    tampered[rng.randrange(len(tampered))] ^= 1 << rng.randrange(8)
    failures = [
        ("tampered", bytes(tampered), k, extra),
        ("wrong-key", ciphertext, key(name + " other"), extra),
    ]
    if domain is not None:
        other_domain = domain[:-1] + bytes([domain[-1] ^ 1])
        failures.append(("wrong-domain", ciphertext, k, {"domain": other_domain.hex()}))
    for failure, blob, used_key, used_extra in failures:
        suite.case(
            f"decrypt-{profile}-{name}-{failure}",
            f"decrypt {name} ({failure.replace('-', ' ')}): authentication fails",
            op="decrypt",
            input={
                "ciphertext": blob.hex(),
                "key": used_key.hex(),
                "profile": profile,
                **used_extra,
            },
            expect="DECRYPT_FAILED",
            flags=["Encryption", "Tampered"],
            rules=[rule],
        )


def padded_round_trip(suite: SuiteBuilder, name: str, plaintext: bytes, sealing: Json) -> None:
    """Profile libsession as the deployed client pushes and loads: pad, then encrypt; decrypt,
    then unpad (D19). `sealing` holds the key and the domain."""
    padded = returned(
        suite.case(
            f"pad-message-{name}",
            f"pad {name} to the libsession chunk size before encrypting",
            op="pad",
            input={"plaintext": plaintext.hex(), "overhead": 40},
            expect=VALID,
            flags=["Padding"],
            rules=["D19"],
        ),
        "padded",
    )
    sealing = {**sealing, "profile": "libsession"}
    sealed = returned(
        suite.case(
            f"encrypt-padded-{name}",
            f"encrypt {name} padded to {len(padded)} bytes with profile libsession",
            op="encrypt",
            input={"plaintext": padded.hex(), **sealing},
            expect=VALID,
            flags=["Encryption", "Padding"],
            rules=["D19"],
        ),
        "ciphertext",
    )
    suite.case(
        f"decrypt-padded-{name}",
        f"decrypt padded {name}: the padded plaintext, padding included",
        op="decrypt",
        input={"ciphertext": sealed.hex(), **sealing},
        expect=VALID,
        flags=["Encryption", "Padding"],
        rules=["D19", "D20"],
    )
    suite.case(
        f"unpad-message-{name}",
        f"unpad {name} after decrypting it",
        op="unpad",
        input={"padded": padded.hex()},
        expect=VALID,
        flags=["Padding"],
        rules=["D19"],
    )


BAD_ARGUMENTS: list[tuple[str, str, Json, str]] = [
    ("too-short-empty", "decrypt", {"ciphertext": ""}, "DECRYPT_TOO_SHORT"),
    ("too-short-39", "decrypt", {"ciphertext": "00" * 39}, "DECRYPT_TOO_SHORT"),
    (
        "too-short-39-libsession",
        "decrypt",
        {"ciphertext": "00" * 39, "domain": "61", "profile": "libsession"},
        "DECRYPT_TOO_SHORT",
    ),
    ("exactly-overhead-zeros", "decrypt", {"ciphertext": "00" * 40}, "DECRYPT_FAILED"),
    ("key-31", "encrypt", {"plaintext": "64", "key": ARGUMENT_KEY[:31].hex()}, "BAD_KEY"),
    (
        "key-33",
        "decrypt",
        {"ciphertext": "00" * 50, "key": (ARGUMENT_KEY + b"!").hex()},
        "BAD_KEY",
    ),
    # profile spec takes no domain; libsession needs one of 1 to 24 bytes
    ("spec-with-domain", "encrypt", {"plaintext": "64", "domain": "61"}, "BAD_DOMAIN"),
    ("libsession-no-domain", "encrypt", {"plaintext": "64", "profile": "libsession"}, "BAD_DOMAIN"),
    (
        "libsession-empty-domain",
        "encrypt",
        {"plaintext": "64", "domain": "", "profile": "libsession"},
        "BAD_DOMAIN",
    ),
    (
        "libsession-domain-25",
        "decrypt",
        {"ciphertext": "00" * 50, "domain": "61" * 25, "profile": "libsession"},
        "BAD_DOMAIN",
    ),
    (
        "libsession-domain-24",
        "encrypt",
        {"plaintext": "64", "domain": "61" * 24, "profile": "libsession"},
        VALID,
    ),
    ("profile-unknown", "encrypt", {"plaintext": "64", "profile": "aes"}, "BAD_PROFILE"),
    ("profile-uppercase", "decrypt", {"ciphertext": "00" * 50, "profile": "SPEC"}, "BAD_PROFILE"),
    ("profile-empty", "encrypt", {"plaintext": "64", "profile": ""}, "BAD_PROFILE"),
]
"""`encrypt` or `decrypt` with a bad (or an edge but good) argument, under `ARGUMENT_KEY`
unless the case gives a key, in profile spec unless it gives a profile."""


@case
def bad_arguments(suite: SuiteBuilder) -> None:
    """Each of `BAD_ARGUMENTS`."""
    for name, op, given, expect in BAD_ARGUMENTS:
        suite.case(
            name,
            f"{op}: {name.replace('-', ' ')}",
            op=op,
            input={"key": ARGUMENT_KEY.hex(), **given},
            expect=expect,
            flags=["EncryptionArguments"],
            rules=["D19"] if given.get("profile") == "libsession" else ["D18"],
        )


@case
def unpad(suite: SuiteBuilder) -> None:
    """Unpadding on its own: every leading zero byte goes, whatever follows."""
    for name, padded in [
        ("all-zero-216", bytes(216)),
        ("all-zero-1", bytes(1)),
        ("nothing", b""),
        ("no-padding", b"d1:#i0e1:&de1:=dee"),
        ("zeros-then-message", bytes(3) + b"d1:#i0e1:&de1:=dee"),
    ]:
        suite.case(
            f"unpad-{name}",
            f"unpad {name.replace('-', ' ')}: every leading zero byte goes (D19)",
            op="unpad",
            input={"padded": padded.hex()},
            expect=VALID,
            flags=["Padding"],
            rules=["D19"],
        )


@case
def pad_sizes(suite: SuiteBuilder) -> None:
    """Padding on its own, around each chunk size, under three overheads."""
    sizes = [(size, overhead) for size in PAD_SIZES for overhead in (0, 40, 100)]
    for size, overhead in sizes + [(size, 40) for size in LARGE_PAD_SIZES]:
        suite.case(
            f"pad-{size}-overhead-{overhead}",
            f"pad {size} bytes with overhead {overhead} (D19 chunk sizes)",
            op="pad",
            input={"plaintext": (b"d" + bytes(size))[:size].hex(), "overhead": overhead},
            expect=VALID,
            flags=["Padding"],
            rules=["D19"],
        )


def build() -> SuiteBuilder:
    suite = new_suite(
        "encryption",
        "Deterministic XChaCha20-Poly1305 (D18 profile spec, D19 profile libsession with"
        " derived key); ciphertext || tag || nonce; padding (D19) a step of its own: the"
        " primitive, pad-then-encrypt, decrypt-then-unpad; hashes stay over the plaintext"
        " (D20).",
        profile="spec",
    )
    return case.fill(suite)
