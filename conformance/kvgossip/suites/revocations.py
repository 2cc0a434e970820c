"""Revocation validity vectors (notes 1.2; table row 13; section 5 case 19)."""

from __future__ import annotations

from swarmconf.conformance.builder import BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.vectors import Flag, Json
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.grants import Revocation, revocation_body, revoke_grant

from ..craft import signed
from ..vocabulary import new_suite
from ..world import ALICE, BOB, G_ALICE, G_BOB, MALLORY, ROOT, T0

FLAGS = {
    "ByIssuer": Flag("BASIC", "Signed by the revoked grant's issuer.", "Accepted."),
    "ByRoot": Flag(
        "FUNCTIONALITY",
        "Signed by the root for a grant an intermediate issued (Go refuses this).",
        "Accepted: the root may revoke any grant.",
    ),
    "BadRevoker": Flag(
        "AUTH_BYPASS", "Signed by neither the issuer nor the root.", "Rejected, no state change."
    ),
    "TimeOrder": Flag(
        "EDGE_CASE", "revoked_at against the grant's issued_at.", "Must be strictly after."
    ),
    "Tampered": Flag("AUTH_BYPASS", "Signature or embedded grant altered.", "Rejected."),
}


HEADER = [
    "Decode and check one signed revocation; valid gives the revoked grant's id and the",
    "revoker. A revocation applies to that grant id forever.",
]
RULES = ["notes:1.2", "row:13"]


def crafted(seed: bytes, revoker: bytes, at: int) -> bytes:
    """A revocation of alice's grant to bob naming `revoker`, signed with `seed`."""
    return signed(seed, revocation_body(G_BOB, revoker, at))


def by_issuer() -> Revocation:
    """alice revokes her grant to bob at T0+1 (made when called: under a mutant, if active)."""
    return revoke_grant(ALICE.seed, G_BOB, T0 + 1, ROOT.pk)


def checks(revocation: bytes) -> Json:
    """The input: is this signed revocation valid?"""
    return {"revocation": revocation.hex()}


case = Catalogue[BoundGroup]()


@case
def issuer_or_root_revokes(g: BoundGroup) -> None:
    for name, comment, flag, revocation in [
        ("by-issuer", "alice revokes her grant to bob.", "ByIssuer", by_issuer()),
        (
            "by-root-of-intermediate-grant",
            "The root revokes alice's grant to bob.",
            "ByRoot",
            revoke_grant(ROOT.seed, G_BOB, T0 + 1, ROOT.pk),
        ),
        (
            "by-root-of-own-grant",
            "The root revokes its grant to alice.",
            "ByIssuer",
            revoke_grant(ROOT.seed, G_ALICE, T0 + 5, ROOT.pk),
        ),
    ]:
        g.case(
            name,
            comment,
            flags=[flag],
            input=checks(revocation.encode()),
            expect="valid",
            rules=RULES,
        )


@case
def nobody_else_revokes(g: BoundGroup) -> None:
    for name, comment, revoker in [
        ("by-issuee", "bob tries to revoke his own grant.", BOB),
        ("by-third-party", "mallory revokes alice's grant to bob.", MALLORY),
    ]:
        g.case(
            name,
            comment,
            flags=["BadRevoker"],
            input=checks(crafted(revoker.seed, revoker.pk, T0 + 1)),
            expect="REVOCATION_BAD_REVOKER",
            rules=[*RULES, "attack:19"],
        )
    g.case(
        "revoker-field-forged",
        "Names alice as revoker, signed by mallory.",
        flags=["Tampered"],
        input=checks(crafted(MALLORY.seed, ALICE.pk, T0 + 1)),
        expect="BAD_SIGNATURE",
        rules=RULES,
    )


@case
def revoked_after_issue(g: BoundGroup) -> None:
    g.case(
        "at-issue-time",
        "revoked_at == issued_at.",
        flags=["TimeOrder"],
        input=checks(crafted(ALICE.seed, ALICE.pk, T0)),
        expect="REVOCATION_NOT_AFTER_ISSUE",
        rules=[*RULES, "attack:19"],
    )
    g.case(
        "one-ms-after-issue",
        "revoked_at == issued_at + 1.",
        flags=["TimeOrder"],
        input=checks(crafted(ALICE.seed, ALICE.pk, T0 + 1)),
        expect="valid",
        rules=RULES,
    )


@case
def tampered(g: BoundGroup) -> None:
    tampered_grant = encode([G_BOB.body, crypto.sign(MALLORY.seed, G_BOB.body)])
    body = encode(["kvg/revoke/1", tampered_grant, ALICE.pk, T0 + 1])
    revocation = by_issuer()
    flipped = bytes([revocation.signature[0] ^ 1, *revocation.signature[1:]])
    for name, comment, data in [
        (
            "embedded-grant-bad-signature",
            "The revoked grant's signature is not the issuer's.",
            signed(ALICE.seed, body),
        ),
        (
            "signature-bit-flipped",
            "One bit of the revocation signature flipped.",
            encode([revocation.body, flipped]),
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["Tampered"],
            input=checks(data),
            expect="BAD_SIGNATURE",
            rules=RULES,
        )


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("revocations", " ".join(HEADER), FLAGS, strict=strict)
    case.fill(suite.group("kv_revocation", rootKey=ROOT.pk.hex()))
    return suite
