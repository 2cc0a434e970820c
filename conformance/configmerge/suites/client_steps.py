"""Client steps (D28..D32): one client's state, what it pushes and deletes, step by step.

From the design text's examples up: a clean client at 124 resolving the simple conflict (under
`spec`, rule 8's 126; under `libsession`, the deployed client's bytes) and the complex one up to
127; conflicts met while dirty; the two-client race, where a client handed the other racer's
resolution agrees only if both pushed the same bytes; read-only clients; an unparseable input
before the survivor (X12); its own message handed back; then random scripts over random
histories; last, a client's bad arguments and edges. Every case runs under both profiles, but
the one of a profile that does not exist.
"""

from __future__ import annotations

import random
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.builder import VALID, BoundGroup, SuiteBuilder
from swarmconf.conformance.configmerge.history import random_history, recent
from swarmconf.conformance.configmerge.suites.signatures import ALICE, ALICE_PUB, BOB, BOB_PUB
from swarmconf.conformance.configmerge.values import btcodec_copy, edited, new_message, random_edits
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge import examples as ex
from swarmconf.spec.configmerge.client import Client

PROFILES = ("spec", "libsession")
STEPS = ["ClientSteps"]
RULES = ["D28", "D29", "D31"]
UNPARSEABLE = b"d1:!i0e1:#i9e1:&de1:=dee"
"""A message of a later major version (a key before `#`): no client of this version parses it."""


def step(action: str, **fields: Any) -> str:
    """One step of a script, as the bt dict the operation reads."""
    return btcodec.encode(
        {b"do": action.encode(), **{k.encode(): v for k, v in fields.items()}}
    ).hex()


def receive(*messages: bytes) -> str:
    return step("receive", msgs=list(messages))


def edit(data: dict[bytes, Any]) -> str:
    return step("edit", data=btcodec_copy(data))


PUSH, CONFIRM = step("push"), step("confirm")
PUBLISH = [PUSH, CONFIRM]


def resolution(profile: str, start: bytes, *polled: bytes) -> bytes:
    """What a clean client at `start` pushes after a poll of `polled` (the spec's client)."""
    client = Client(profile=profile, current=spec.parse(start))
    client.receive(list(polled))
    pushed = client.push()
    assert pushed is not None
    return pushed.message


def script(
    g: BoundGroup,
    name: str,
    comment: str,
    steps: list[str],
    *,
    start: bytes | None = None,
    flags: list[str] | None = None,
    rules: list[str] | None = None,
    keys: dict[str, str] | None = None,
) -> None:
    request: dict[str, Any] = {"steps": steps, **(keys or {})}
    if start is not None:
        request["msg"] = start.hex()
    g.case(
        f"{name}-{g.group.params['profile']}",
        comment,
        input=request,
        expect=VALID,
        flags=STEPS + (flags or []),
        rules=RULES + (rules or []),
    )


def design_examples(g: BoundGroup, profile: str) -> None:
    example = ["DesignTextExample"]
    script(
        g,
        "simple-conflict-clean",
        "a clean client at 124 polls 125a and 125b: it resolves, pushes 126 (rule 8's `=` under"
        " spec), deleting 124, 125a and 125b, and is clean once the push is confirmed",
        [receive(ex.m125a(), ex.m125b()), *PUBLISH],
        start=ex.m124(),
        flags=[*example, "Conflict"],
        rules=["D15", "D27", "D30"],
    )
    script(
        g,
        "simple-conflict-polled-again",
        "the same, then the same poll again: its 126 absorbs both, nothing to push",
        [receive(ex.m125a(), ex.m125b()), *PUBLISH, receive(ex.m125a(), ex.m125b())],
        start=ex.m124(),
        flags=[*example, "Conflict", "Included"],
        rules=["D14", "D15", "D30"],
    )
    script(
        g,
        "complex-conflict-then-edit",
        "a clean client at 126a polls 126b, adds 789 to dictA.goodbye and pushes (127 under"
        " spec): a conflict push with an edit keeps only the edit in `=` (D6)",
        [receive(ex.m126b()), edit(spec.parse(ex.m127()).data), *PUBLISH],
        start=ex.m126a(),
        flags=[*example, "Conflict"],
        rules=["D6", "D15", "D30"],
    )
    script(
        g,
        "conflict-while-dirty",
        "a client at 124 edits int1 to 7 and, before pushing, polls 125a and 125b: its own"
        " 125 is a third racer; the merge keeps `=` empty under both profiles (D30)",
        [edit({**spec.parse(ex.m124()).data, b"int1": 7}), receive(ex.m125a(), ex.m125b()), PUSH],
        start=ex.m124(),
        flags=[*example, "Conflict"],
        rules=["D13", "D15", "D30"],
    )
    script(
        g,
        "conflict-while-waiting",
        "a client at 124 edits, pushes, and polls 125a and 125b before the push is confirmed:"
        " it resolves as a clean client does, and the late confirmation changes nothing",
        [
            edit({**spec.parse(ex.m124()).data, b"int1": 7}),
            PUSH,
            receive(ex.m125a(), ex.m125b()),
            CONFIRM,
            PUSH,
        ],
        start=ex.m124(),
        flags=[*example, "Conflict"],
        rules=["D15", "D30"],
    )
    script(
        g,
        "stale-poll",
        "a clean client at 126a polls 120b and 125a: both are stale or included, nothing changes",
        [receive(ex.m120b(), ex.m125a()), PUSH],
        start=ex.m126a(),
        flags=[*example, "Stale", "Included"],
        rules=["D14"],
    )
    script(
        g,
        "adopt-newer",
        "a clean client at 124 polls 125a alone: 125a becomes current, 124 is to be deleted"
        " with the next push, after an edit",
        [receive(ex.m125a()), edit({b"int1": 1}), PUSH],
        start=ex.m124(),
        flags=[*example, "Survivor"],
        rules=["D13", "D14", "D27"],
    )


def race(g: BoundGroup, profile: str) -> None:
    """Two clean clients at 124 resolve 125a and 125b at once; each then polls the other's."""
    polled = (ex.m125a(), ex.m125b())
    for other in PROFILES:
        theirs = resolution(other, ex.m124(), *polled)
        script(
            g,
            f"race-against-{other}",
            f"a clean client at 124 resolves 125a and 125b and pushes; it then polls the"
            f" resolution a {other}-profile racer pushed: the same bytes settle, other bytes"
            " are a new conflict at 126, resolved at 127",
            [receive(*polled), *PUBLISH, receive(*polled, theirs), *PUBLISH],
            start=ex.m124(),
            flags=["Conflict", "Duplicate"],
            rules=["D14", "D15", "D30"],
        )


def read_only(g: BoundGroup, signed: dict[str, bytes]) -> None:
    base, lower, higher = signed["base"], signed["lower"], signed["higher"]
    keys = {"verify_key": ALICE_PUB.hex()}
    script(
        g,
        "read-only-conflict",
        "a read-only client (verifies, cannot sign) polls two signed racers: it takes the"
        " higher-ranked as current (D17), needs no push and pushes nothing",
        [receive(base, lower, higher), PUSH],
        flags=["Signature", "Conflict"],
        rules=["D17", "D32"],
        keys=keys,
    )
    for name, own, other in [("higher", higher, lower), ("lower", lower, higher)]:
        script(
            g,
            f"read-only-own-ranks-{name}",
            f"a read-only client holding one racer ({name}-ranked) polls the other: it keeps"
            " the higher-ranked as current, pushes and deletes nothing",
            [receive(other), PUSH],
            start=own,
            flags=["Signature", "Conflict"],
            rules=["D17", "D32"],
            keys=keys,
        )
    g.case(
        f"read-only-edit-{g.group.params['profile']}",
        "a read-only client cannot change its data",
        input={"steps": [receive(base), edit({b"a": 2})], **keys},
        expect="BAD_KEY",
        flags=[*STEPS, "Signature"],
        rules=[*RULES, "D32"],
    )
    script(
        g,
        "signer-conflict",
        "a client with the signing key polls two signed racers: it pushes a signed merge",
        [receive(base, lower, higher), *PUBLISH],
        flags=["Signature", "Conflict"],
        rules=["D15", "D17", "D30"],
        keys={**keys, "sign_key": ALICE.hex()},
    )


def signed_racers() -> dict[str, bytes]:
    base = new_message(4, {b"a": 1}, sign_key=ALICE)
    racers = [edited(base, {b"a": 2}, sign_key=ALICE), edited(base, {b"b": 1}, sign_key=ALICE)]
    lower, higher = sorted(racers, key=lambda raw: spec.parse(raw).hash)
    return {"base": base, "lower": lower, "higher": higher}


def unparseable(g: BoundGroup) -> None:
    first = new_message(3, {b"a": 1})
    second = edited(first, {b"a": 2})
    for place, poll in [("before", [UNPARSEABLE, second]), ("after", [second, UNPARSEABLE])]:
        script(
            g,
            f"unparseable-{place}-survivor",
            f"a clean client at 3 polls its successor 4 with a later major version's message"
            f" {place} it: 4 is current; the unparseable message is kept, never deleted (D27);"
            " an edit's push deletes 3 and 4",
            [receive(*poll), edit({b"a": 3}), PUSH],
            start=first,
            flags=["InvalidMixedIn", "Survivor"],
            rules=["D14", "D27"],
        )


def own_message(g: BoundGroup) -> None:
    first = new_message(3, {b"a": 1})
    script(
        g,
        "own-message-handed-back",
        "a clean client at 3 polls its own message: nothing changes; an edit's push deletes 3",
        [receive(first), edit({b"a": 2}), PUSH],
        start=first,
        flags=["Duplicate"],
        rules=["D14", "D27"],
    )
    client = Client(current=spec.parse(first))
    client.edit({b"a": 2})
    pushed = client.push()
    assert pushed is not None
    script(
        g,
        "own-push-handed-back-while-waiting",
        "a client pushes 4 and polls it before the confirmation: nothing changes; pushing again"
        " while waiting re-pushes 4, deleting nothing (not the message it pushes)",
        [edit({b"a": 2}), PUSH, receive(pushed.message), PUSH, CONFIRM],
        start=first,
        flags=["Duplicate"],
        rules=["D14", "D27"],
    )
    script(
        g,
        "fresh-client",
        "a client with no message edits, pushes and is confirmed; it then polls its own push",
        [edit({b"a": 1}), *PUBLISH, receive(new_message(0, {}))],
        flags=["Stale"],
        rules=["D13"],
    )


def dirty_adopts(g: BoundGroup) -> None:
    first = new_message(3, {b"a": 1})
    far = first
    for value in range(2, 8):
        far = edited(far, {b"a": value})
    script(
        g,
        "dirty-client-left-behind",
        "a client at 3 edits and, before pushing, polls 9: its own 4 is too old and 9 becomes"
        " current, the edit lost; its next edit makes 10",
        [edit({b"b": 1}), receive(far), edit({b"c": 1}), PUSH],
        start=first,
        flags=["Stale"],
        rules=["D13", "D14"],
    )


def random_scripts(g: BoundGroup, rng: random.Random) -> None:
    """A client polls the newest messages of a random history, edits, pushes, confirms."""
    for index in range(60):
        history = random_history(rng, writers=3, steps=rng.randint(3, 8), lag=5)
        start = rng.choice(history)
        steps = []
        data = spec.parse(start).data
        for _ in range(rng.randint(2, 6)):
            kind = rng.choice(["receive", "receive", "edit", "push", "confirm"])
            if kind == "receive":
                steps.append(receive(*recent(history, 5, rng.randint(1, 3), rng)))
            elif kind == "edit":
                data = random_edits(rng, data, 1)
                steps.append(edit(data))
            else:
                steps.append(step(kind))
        script(
            g,
            f"random-{index}",
            "a client at a random message of a 3-writer history: random polls, edits, pushes",
            steps,
            start=start,
            flags=["RandomHistory"],
            rules=["D14", "D15", "D27", "D30"],
        )


def arguments_and_edges(suite: SuiteBuilder) -> None:
    """A client's arguments refused (D28, D17), a poll with nothing valid and no message (D29),
    and a signing client's stored unsigned message entering a merge as it is (D29), under both
    profiles, and the deployed client's edges. In groups of their own, after the cases the
    documentation cites by number."""
    bad = suite.group("client", lag=5, profile="rule8")
    bad.case(
        "unknown-profile",
        "a client of a profile that does not exist",
        input={"steps": [receive()]},
        expect="BAD_PROFILE",
        flags=STEPS,
        rules=["D28", "D30"],
    )
    for profile in PROFILES:
        group = suite.group("client", lag=4, profile=profile)
        edges(group)
        deployed_edges(group)
    for profile in PROFILES:
        signers(suite.group("client", lag=4, profile=profile))


def edges(g: BoundGroup) -> None:
    """Keys of the wrong length, nothing valid polled, an unsigned message held by a signer."""
    short = ALICE_PUB[:31].hex()
    for field, rule in (("verify_key", "D32"), ("sign_key", "D17")):
        g.case(
            f"{field.replace('_', '-')}-of-31-bytes-{g.group.params['profile']}",
            f"a client given a {field} of 31 bytes, refused before any step",
            input={"steps": [receive()], field: short},
            expect="BAD_KEY",
            flags=[*STEPS, "BadKey"],
            rules=["D17", "D28", rule],
        )
    script(
        g,
        "nothing-valid-no-message",
        "a client with no message polls only a later major version's message: nothing to"
        " merge, nothing changes",
        [receive(UNPARSEABLE), PUSH],
        flags=["InvalidMixedIn"],
        rules=["D14"],
    )
    first = new_message(3, {b"a": 1})
    script(
        g,
        "signer-holds-unsigned-message",
        "a client with a signing key whose stored message is unsigned polls that message: it"
        " enters the merge as stored, not signed again, so the two are one message and nothing"
        " changes; an edit's push is signed",
        [receive(first), edit({b"a": 2}), PUSH],
        start=first,
        flags=["Duplicate", "Signature"],
        rules=["D14", "D17"],
        keys={"sign_key": ALICE.hex()},
    )


def deployed_edges(g: BoundGroup) -> None:
    """Where the deployed client's `ConfigBase` does what no rule predicts (X12, X17..X20), one
    case each; the `libsession` profile follows X18 and X20 (D28, D29)."""
    profile = g.group.params["profile"]
    first = new_message(3, {b"a": 1})
    second = edited(first, {b"a": 2})
    script(
        g,
        "no-op-edit",
        "a clean client at 3 sets its data to what it is and pushes: under spec an edit like"
        " any other (it pushes 4, deleting 3); under libsession, as the deployed client, it"
        " changes nothing and pushes nothing (X18)",
        [edit({b"a": 1}), PUSH],
        start=first,
        rules=["D13"],
    )
    script(
        g,
        "no-op-edit-no-message",
        "a client with no message sets empty data and pushes: under spec it makes seqno 1 (the"
        " empty seqno-0 message incremented) and pushes it; under libsession nothing changes",
        [edit({}), PUSH],
        rules=["D13"],
    )
    base = new_message(4, {b"a": 1}, sign_key=ALICE)
    g.case(
        f"read-only-no-op-edit-{profile}",
        "a read-only client sets its data to what it is: refused under spec (D32); under"
        " libsession, as the deployed client, not refused, since nothing changes (X18)",
        input={"steps": [edit({b"a": 1}), PUSH], "msg": base.hex(), "verify_key": ALICE_PUB.hex()},
        expect="BAD_KEY" if profile == "spec" else VALID,
        flags=[*STEPS, "Signature"],
        rules=[*RULES, "D32"],
    )
    script(
        g,
        "empty-poll-no-message",
        "a client with no message polls nothing: nothing changes (the deployed client's merge"
        " throws, having no message to keep: X19)",
        [receive(), PUSH],
        rules=["D14"],
    )
    script(
        g,
        "unparseable-first-no-message",
        "a client with no message polls a later major version's message, then a valid one: it"
        " skips the first and adopts the second (the deployed client's debug build aborts on"
        " a first input that does not parse: X19)",
        [receive(UNPARSEABLE, second), edit({b"a": 3}), PUSH],
        flags=["InvalidMixedIn", "Survivor"],
        rules=["D14", "D27"],
    )
    script(
        g,
        "seqno-0-poll-no-message",
        "a client with no message polls a message of seqno 0: it adopts it, clean (the"
        " deployed client, whose own empty message is seqno 0 too, changes nothing: X19)",
        [receive(new_message(0, {b"a": 1})), edit({b"a": 2}), PUSH],
        flags=["Survivor"],
        rules=["D14"],
    )
    unsigned = edited(base, {b"a": 2})
    script(
        g,
        "signer-polls-unsigned",
        "a client with the signing key (and no verification key) at a signed 4 polls an"
        " unsigned successor: under spec it adopts it; under libsession, as the deployed"
        " client, its key verifies too and drops it: nothing changes (X20)",
        [receive(unsigned), edit({b"a": 3}), PUSH],
        start=base,
        flags=["Signature"],
        rules=["D17"],
        keys={"sign_key": ALICE.hex()},
    )
    g.case(
        f"signer-with-another-verify-key-{profile}",
        "a client given a signing key and a verification key that is not its public half:"
        " under spec each does its own part; under libsession, as the deployed client, refused",
        input={
            "steps": [receive(base), PUSH],
            "sign_key": ALICE.hex(),
            "verify_key": BOB_PUB.hex(),
        },
        expect=VALID if profile == "spec" else "BAD_KEY",
        flags=[*STEPS, "Signature", "BadKey"],
        rules=[*RULES, "D17"],
    )
    client = Client(current=spec.parse(first))
    client.edit({b"a": 2})
    pushed = client.push()
    assert pushed is not None
    script(
        g,
        "own-push-handed-back-twice-while-waiting",
        "a client pushes 4 and polls two copies of it before the confirmation: nothing"
        " changes, and pushing again while waiting deletes nothing (the deployed client"
        " deletes the message it re-pushes: X12)",
        [edit({b"a": 2}), PUSH, receive(pushed.message, pushed.message), PUSH, CONFIRM],
        start=first,
        flags=["Duplicate"],
        rules=["D14", "D27"],
    )


def signers(g: BoundGroup) -> None:
    """A signing client's own message entering a merge as it would push it (D29, X20), stored
    or edited, and a verification key on the other side of its signing key's public half
    (X20). In groups after the cases the documentation cites by number."""
    profile = g.group.params["profile"]
    lagging = signed_chain(8)
    script(
        g,
        "signer-holds-message-lagging-past-its-window",
        "a client with the signing key and a lag of 4 holds a signed 8 written with a lag of 5,"
        " whose oldest lagged entry (4) is outside its window, and polls that very message:"
        " under spec the stored bytes enter the merge as stored, one message, and nothing"
        " changes; under libsession its stored message enters signed again (X20) without that"
        " entry, another message of seqno 8, and it pushes their merge, 9, deleting 8",
        [receive(lagging[-1]), PUSH],
        start=lagging[-1],
        flags=["Duplicate", "Signature"],
        rules=["D14", "D15", "D17"],
        keys={"sign_key": ALICE.hex()},
    )
    racer = edited(lagging[2], {b"c": 1}, sign_key=ALICE)
    script(
        g,
        "signer-edits-then-polls-a-racer",
        "a client with the signing key at a signed 3 edits, then polls another signed 4: its"
        " edited 4 enters the merge signed, as it would push it (D29), and it pushes their"
        " merge, 5, deleting the racer",
        [edit({b"a": 9}), receive(racer), PUSH],
        start=lagging[2],
        flags=["Signature"],
        rules=["D14", "D15", "D17", "D27"],
        keys={"sign_key": ALICE.hex(), "verify_key": ALICE_PUB.hex()},
    )
    g.case(
        f"signer-with-another-verify-key-below-{profile}",
        "a client given a signing key and a verification key below its public half (BOB's"
        " signing key, ALICE's verification key): under spec each does its own part; under"
        " libsession, as the deployed client, refused",
        input={
            "steps": [receive(lagging[2]), PUSH],
            "sign_key": BOB.hex(),
            "verify_key": ALICE_PUB.hex(),
        },
        expect=VALID if profile == "spec" else "BAD_KEY",
        flags=[*STEPS, "Signature", "BadKey"],
        rules=[*RULES, "D17"],
    )


def signed_chain(top: int) -> list[bytes]:
    """Messages 1 to `top`, each an increment of the one before, written with a lag of 5 and
    signed with ALICE's key."""
    chain = [new_message(1, {b"a": 1}, sign_key=ALICE)]
    while len(chain) < top:
        chain.append(edited(chain[-1], {b"a": len(chain) + 1}, sign_key=ALICE))
    return chain


def build() -> SuiteBuilder:
    suite = new_suite(
        "client_steps",
        "Client steps (D28..D32): a script of polls, edits, pushes and confirmations played on"
        " one client; per step its current hashes, what it pushes and deletes, whether it"
        " needs a push; under the spec profile (rule 8) and the libsession profile (D30).",
    )
    signed = signed_racers()
    for profile in PROFILES:
        g = suite.group("client", lag=5, profile=profile)
        design_examples(g, profile)
        race(g, profile)
        read_only(g, signed)
        unparseable(g)
        own_message(g)
        dirty_adopts(g)
        random_scripts(g, random.Random(f"client_steps {profile}"))
    arguments_and_edges(suite)
    return suite
