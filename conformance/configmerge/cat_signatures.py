"""Signatures (D17): signing, verification, what serialization keeps, merges that verify."""

from __future__ import annotations

import hashlib
import random

import nacl.signing

from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import (
    data_hex,
    edited,
    minimal,
    new_message,
    random_data,
    random_edits,
    raw_message,
)


def seed(label: str) -> bytes:
    return hashlib.sha256(b"swarmconf vectors v1 signing " + label.encode()).digest()


def public(seed_bytes: bytes) -> bytes:
    return bytes(nacl.signing.SigningKey(seed_bytes).verify_key)


def build() -> Suite:
    suite = Suite(
        "signatures",
        "Ed25519 signatures (D17): `~` is the last key, exactly 64 bytes; the signed bytes are"
        " the serialization up to `1:~64:`; verification where required; serialization keeps"
        " a verified signature, re-signs with a key, drops an unverified one; merges verify"
        " their inputs and sign their result.",
    )
    alice, bob = seed("alice"), seed("bob")
    alice_pub, bob_pub = public(alice), public(bob)
    rng = random.Random("swarmconf signatures v1")
    for index in range(120):
        message = new_message(rng.randint(1, 99), random_data(rng))
        signer = rng.choice([alice, bob, alice + public(alice)])
        answer = suite.add(
            f"sign-random-{index}",
            "sign a random message (seed or seed+public key)",
            "sign",
            {"msg": message.hex(), "sign_key": signer.hex()},
            flags=["Signature", "RandomData"],
            rules=["D17"],
            expect="valid",
        )
        signed = bytes.fromhex(answer["result"]["msg"])
        right = alice_pub if signer[:32] == alice else bob_pub
        wrong = bob_pub if right == alice_pub else alice_pub
        suite.add(
            f"verify-random-{index}",
            "verify a signed message under its signer's key",
            "verify",
            {"msg": signed.hex(), "verify_key": right.hex()},
            flags=["Signature"],
            rules=["D17"],
            expect="valid",
        )
        suite.add(
            f"verify-wrong-key-{index}",
            "verify a signed message under another key",
            "verify",
            {"msg": signed.hex(), "verify_key": wrong.hex()},
            flags=["Signature", "WrongKey"],
            rules=["D17"],
            expect="SIG_INVALID",
        )
        position = rng.randrange(len(signed) - 70)
        flipped = bytearray(signed)
        flipped[position] ^= 0x01
        suite.add(
            f"verify-tampered-{index}",
            f"a signed message with bit 0 of byte {position} flipped",
            "verify",
            {"msg": bytes(flipped).hex(), "verify_key": right.hex()},
            flags=["Signature", "Tampered"],
            rules=["D10", "D17"],
        )
        sig_flip = bytearray(signed)
        sig_flip[-2 - rng.randrange(64)] ^= 0x80
        suite.add(
            f"verify-tampered-signature-{index}",
            "a signed message with one signature bit flipped",
            "verify",
            {"msg": bytes(sig_flip).hex(), "verify_key": right.hex()},
            flags=["Signature", "Tampered"],
            rules=["D17"],
            expect="SIG_INVALID",
        )
    signed = bytes.fromhex(
        suite.add(
            "sign-minimal",
            "sign the minimal message",
            "sign",
            {"msg": minimal(5).hex(), "sign_key": alice.hex()},
            flags=["Signature"],
            rules=["D17"],
            expect="valid",
        )["result"]["msg"]
    )
    unsigned_extra = raw_message(5, lagged=[], diff={}, extra={b"x": 1})
    for name, inputs, reason, flags, rules in [
        (
            "verify-unsigned",
            {"msg": minimal(5).hex(), "verify_key": alice_pub.hex()},
            "SIG_MISSING",
            ["Signature"],
            ["D17"],
        ),
        (
            "verify-unsigned-extra",
            {"msg": unsigned_extra.hex(), "verify_key": alice_pub.hex()},
            "SIG_MISSING",
            ["Signature", "UnknownTopLevelKey"],
            ["D9", "D17"],
        ),
        (
            "verify-unsigned-merged-signer-key",
            {"msg": minimal(6, {b"a": 1}).hex(), "verify_key": bob_pub.hex()},
            "SIG_MISSING",
            ["Signature"],
            ["D17"],
        ),
        (
            "verify-zero-signature",
            {
                "msg": raw_message(5, lagged=[], diff={}, sig=bytes(64)).hex(),
                "verify_key": alice_pub.hex(),
            },
            "SIG_INVALID",
            ["Signature"],
            ["D17"],
        ),
        (
            "verify-signature-moved",
            {
                "msg": raw_message(6, lagged=[], diff={}, sig=signed[-65:-1]).hex(),
                "verify_key": alice_pub.hex(),
            },
            "SIG_INVALID",
            ["Signature", "Tampered"],
            ["D17"],
        ),
        (
            "verify-malformed-signature",
            {
                "msg": raw_message(5, lagged=[], diff={}, sig=bytes(63)).hex(),
                "verify_key": alice_pub.hex(),
            },
            "SIG_MALFORMED",
            ["Signature"],
            ["D17"],
        ),
        (
            "verify-key-31-bytes",
            {"msg": signed.hex(), "verify_key": alice_pub[:31].hex()},
            "BAD_KEY",
            ["BadKey"],
            ["D17"],
        ),
        (
            "verify-key-64-bytes",
            {"msg": signed.hex(), "verify_key": (alice + alice_pub).hex()},
            "BAD_KEY",
            ["BadKey"],
            ["D17"],
        ),
        (
            "verify-key-empty",
            {"msg": signed.hex(), "verify_key": ""},
            "BAD_KEY",
            ["BadKey"],
            ["D17"],
        ),
    ]:
        suite.add(
            name, name.replace("-", " "), "verify", inputs, flags=flags, rules=rules, expect=reason
        )
    for case_name, key, refusal in [
        ("sign-key-31-bytes", alice[:31], "BAD_KEY"),
        ("sign-key-33-bytes", alice + b"\x00", "BAD_KEY"),
        ("sign-key-wrong-public-half", alice + bob_pub, "BAD_KEY"),
        ("sign-key-64-bytes-matching", alice + alice_pub, None),
        ("sign-resigns-signed", bob, None),
    ]:
        source = signed if case_name == "sign-resigns-signed" else minimal(5)
        suite.add(
            case_name,
            case_name.replace("-", " "),
            "sign",
            {"msg": source.hex(), "sign_key": key.hex()},
            flags=["BadKey"] if refusal else ["Signature"],
            rules=["D17"],
            expect=refusal or "valid",
        )
    for name, inputs, rules in [
        ("serialize-verified-keeps-signature", {"verify_key": alice_pub.hex()}, ["D17"]),
        ("serialize-unverified-drops-signature", {}, ["D17"]),
        ("serialize-resigns-with-key", {"sign_key": bob.hex()}, ["D17"]),
        (
            "serialize-verified-and-resigned",
            {"verify_key": alice_pub.hex(), "sign_key": bob.hex()},
            ["D17"],
        ),
    ]:
        suite.add(
            name,
            name.replace("-", " "),
            "serialize",
            {"msg": signed.hex(), **inputs},
            flags=["Signature"],
            rules=rules,
            expect="valid",
        )
    for name, inputs in [
        ("parse-signed-unverified", {}),
        ("parse-signed-verified", {"verify_key": alice_pub.hex()}),
    ]:
        suite.add(
            name,
            name.replace("-", " "),
            "parse",
            {"msg": signed.hex(), **inputs},
            flags=["Signature"],
            rules=["D17"],
            expect="valid",
        )
    suite.add(
        "parse-signed-wrong-key",
        "parse requiring bob's signature on alice's message",
        "parse",
        {"msg": signed.hex(), "verify_key": bob_pub.hex()},
        flags=["Signature", "WrongKey"],
        rules=["D17"],
        expect="SIG_INVALID",
    )
    increments = [
        ("increment-signed", {"sign_key": alice.hex()}),
        ("increment-verified-unsigned", {"verify_key": alice_pub.hex()}),
    ]
    for name, inputs in increments:
        suite.add(
            name,
            name.replace("-", " "),
            "increment",
            {"msg": signed.hex(), **inputs},
            flags=["Signature", "Hash"] if "sign_key" in inputs else ["Signature"],
            rules=["D1", "D13", "D17"] if "sign_key" in inputs else ["D13", "D17"],
            expect="valid",
        )
    for name, key in [("new-signed-seed", alice), ("new-signed-secret-key", bob + bob_pub)]:
        suite.add(
            name,
            f"{name.replace('-', ' ')}: the hash covers the signature (D1)",
            "new",
            {"seqno": 7, "data": data_hex({b"k": b"v"}), "sign_key": key.hex()},
            flags=["Signature", "Hash"],
            rules=["D1", "D17"],
            expect="valid",
        )
    merge_cases(suite, rng, alice, alice_pub, bob)
    return suite


def merge_cases(
    suite: Suite, rng: random.Random, alice: bytes, alice_pub: bytes, bob: bytes
) -> None:
    for index in range(60):
        base_data = random_data(rng)
        base = new_message(rng.randint(1, 50), base_data, sign_key=alice)
        forks = [
            edited(base, random_edits(rng, base_data, 2), sign_key=alice)
            for _ in range(rng.randint(2, 3))
        ]
        forged = edited(base, random_edits(rng, base_data, 2), sign_key=bob)
        mode = index % 4
        if mode == 0:
            inputs = {"verify_key": alice_pub.hex(), "sign_key": alice.hex()}
            comment = "verified and signed merge of forks signed by alice"
        elif mode == 1:
            inputs = {"verify_key": alice_pub.hex()}
            comment = "verification without a signing key: the top message, unmerged (D17)"
        elif mode == 2:
            inputs = {"verify_key": alice_pub.hex(), "sign_key": alice.hex()}
            forks.append(forged)
            comment = "a fork signed by bob is skipped when alice's signature is required"
        else:
            inputs = {"sign_key": alice.hex()}
            forks.append(forged)
            comment = "no verification: all forks merge, the result signed by alice"
        rng.shuffle(forks)
        suite.add(
            f"merge-signed-{index}",
            comment,
            "merge",
            {"msgs": [blob.hex() for blob in forks], **inputs},
            flags=["Signature", "Conflict"] + (["WrongKey"] if mode == 2 else []),
            rules=["D14", "D15", "D17"],
            expect="valid",
        )
