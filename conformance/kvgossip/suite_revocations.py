"""Revocation validity vectors (notes 1.2; table row 13; section 5 case 19)."""

from __future__ import annotations

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.grants import revocation_body, revoke_grant

from .base import Flag, Suite, add
from .craft import signed
from .world import ALICE, BOB, G_ALICE, G_BOB, MALLORY, ROOT, T0

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
RULES = ("notes:1.2", "row:13")


def crafted(seed: bytes, revoker: bytes, at: int) -> bytes:
    """A revocation of alice's grant to bob naming `revoker`, signed with `seed`."""
    return signed(seed, revocation_body(G_BOB, revoker, at))


class Revoking:
    """The suite and its one group: check a revocation under the root key."""

    def __init__(self, strict: bool) -> None:
        self.suite = Suite("revocations", HEADER, FLAGS)
        self.group = self.suite.group("revocation", rootKey=ROOT.pk.hex())
        self.strict = strict
        # Made when the suite is built (under a mutant, if one is active).
        self.by_issuer = revoke_grant(ALICE.seed, G_BOB, T0 + 1, ROOT.pk)

    def case(
        self,
        name: str,
        comment: str,
        flags: list[str],
        data: bytes,
        want: str,
        reason: str | None = None,
        rules: tuple[str, ...] = RULES,
    ) -> None:
        add(
            self.suite,
            self.group,
            name,
            comment,
            flags=flags,
            rules=list(rules),
            input={"revocation": data.hex()},
            want=want,
            reason=reason,
            strict=self.strict,
        )


case = Catalogue[Revoking]()


@case
def issuer_or_root_revokes(r: Revoking) -> None:
    r.case(
        "by-issuer", "alice revokes her grant to bob.", ["ByIssuer"], r.by_issuer.encode(), "valid"
    )
    by_root = revoke_grant(ROOT.seed, G_BOB, T0 + 1, ROOT.pk)
    r.case(
        "by-root-of-intermediate-grant",
        "The root revokes alice's grant to bob.",
        ["ByRoot"],
        by_root.encode(),
        "valid",
    )
    r.case(
        "by-root-of-own-grant",
        "The root revokes its grant to alice.",
        ["ByIssuer"],
        revoke_grant(ROOT.seed, G_ALICE, T0 + 5, ROOT.pk).encode(),
        "valid",
    )


@case
def nobody_else_revokes(r: Revoking) -> None:
    for name, comment, revoker in [
        ("by-issuee", "bob tries to revoke his own grant.", BOB),
        ("by-third-party", "mallory revokes alice's grant to bob.", MALLORY),
    ]:
        r.case(
            name,
            comment,
            ["BadRevoker"],
            crafted(revoker.seed, revoker.pk, T0 + 1),
            "invalid",
            "REVOCATION_BAD_REVOKER",
            (*RULES, "attack:19"),
        )
    r.case(
        "revoker-field-forged",
        "Names alice as revoker, signed by mallory.",
        ["Tampered"],
        crafted(MALLORY.seed, ALICE.pk, T0 + 1),
        "invalid",
        "BAD_SIGNATURE",
    )


@case
def revoked_after_issue(r: Revoking) -> None:
    r.case(
        "at-issue-time",
        "revoked_at == issued_at.",
        ["TimeOrder"],
        crafted(ALICE.seed, ALICE.pk, T0),
        "invalid",
        "REVOCATION_NOT_AFTER_ISSUE",
        (*RULES, "attack:19"),
    )
    r.case(
        "one-ms-after-issue",
        "revoked_at == issued_at + 1.",
        ["TimeOrder"],
        crafted(ALICE.seed, ALICE.pk, T0 + 1),
        "valid",
    )


@case
def tampered(r: Revoking) -> None:
    tampered_grant = encode([G_BOB.body, crypto.sign(MALLORY.seed, G_BOB.body)])
    body = encode(["kvg/revoke/1", tampered_grant, ALICE.pk, T0 + 1])
    r.case(
        "embedded-grant-bad-signature",
        "The revoked grant's signature is not the issuer's.",
        ["Tampered"],
        signed(ALICE.seed, body),
        "invalid",
        "BAD_SIGNATURE",
    )
    sig = bytearray(r.by_issuer.signature)
    sig[0] ^= 1
    r.case(
        "signature-bit-flipped",
        "One bit of the revocation signature flipped.",
        ["Tampered"],
        encode([r.by_issuer.body, bytes(sig)]),
        "invalid",
        "BAD_SIGNATURE",
    )


def build(strict: bool = True) -> Suite:
    return case.fill(Revoking(strict)).suite
