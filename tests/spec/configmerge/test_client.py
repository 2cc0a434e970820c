"""The client layer (D28..D32): its rules are registered, and two clients racing to resolve a
conflict settle only when they push the same bytes."""

from __future__ import annotations

import inspect
import re
from functools import partial
from typing import Any

import nacl.signing
import pytest

import swarmconf.reference.configmerge as reference
from swarmconf.conformance.configmerge.deployed_client import Abort, DeployedClient
from swarmconf.reference.configmerge.client import Client as ReferenceClient
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge import examples as ex
from swarmconf.spec.configmerge.client import Client
from swarmconf.spec.configmerge.message import message_hash
from swarmconf.spec.configmerge.reasons import ConfigError, UsageError
from swarmconf.spec.configmerge.rules import CLIENT_RULES, implementation


def test_client_rules_are_registered() -> None:
    assert set(CLIENT_RULES) == {f"D{n}" for n in range(28, 33)}


@pytest.mark.parametrize("rule", sorted(CLIENT_RULES))
def test_client_rule_functions_cite_the_rule(rule: str) -> None:
    for path in CLIENT_RULES[rule].functions:
        docstring = inspect.getdoc(implementation(path)) or ""
        assert re.search(rf"\b{rule}\b", docstring), f"{path} does not cite {rule}"


def deployed() -> DeployedClient:
    return DeployedClient(
        lag=5, profile="libsession", parse=partial(reference.parse, lag=5), current=None
    )


def race(clients: list[Any], rounds: int) -> list[int]:
    """Every client polls the same snapshot, then each pushes what it needs to (deleting what
    it says) and is confirmed; the seqno of the newest message after each round, while the
    swarm holds more than one current message."""
    swarm = {spec.parse(raw).hash: raw for raw in (ex.m124(), ex.m125a(), ex.m125b())}
    for client in clients:
        client.receive([ex.m124()])
    conflicts = []
    for _ in range(rounds):
        snapshot = list(swarm.values())
        for client in clients:
            client.receive(snapshot)
        for client in clients:
            pushed = client.push()
            if pushed is not None:
                swarm[pushed.hash] = pushed.message
                for digest in pushed.deleted:
                    swarm.pop(digest, None)
                client.confirm()
        current = {client.current_hashes()[0] for client in clients}
        if len(current) == 1:
            break
        conflicts.append(max(spec.parse(raw).seqno for raw in swarm.values()))
    return conflicts


def test_a_spec_profile_client_racing_a_deployed_client_never_settles() -> None:
    conflicts = race([Client(profile="spec"), deployed()], rounds=6)
    assert conflicts == [126, 127, 128, 129, 130, 131]


def test_a_libsession_profile_client_racing_a_deployed_client_settles_at_once() -> None:
    assert race([Client(profile="libsession"), deployed()], rounds=6) == []


def test_two_spec_profile_clients_settle_at_once() -> None:
    assert race([Client(profile="spec"), Client(profile="spec")], rounds=6) == []


UNPARSEABLE = b"d1:!i0e1:#i9e1:&de1:=dee"
"""A later major version's message: no client of this version parses it."""
SEED = bytes(range(32))


def deployed_build(debug: bool, **keys: Any) -> DeployedClient:
    verify = keys.get("verify_key")
    return DeployedClient(
        lag=5,
        profile="spec",
        parse=partial(reference.parse, lag=5, verify_key=verify),
        debug=debug,
        **keys,
    )


def signed_racers() -> tuple[bytes, bytes, bytes]:
    """A signed 4 and two signed successors, lower-ranked first."""
    base = spec.ConfigMessage.new(4)
    base.data[b"a"] = 1
    parent = base.serialize(SEED)
    racers = []
    for key in (b"b", b"c"):
        child = spec.parse(parent).increment()
        child.data[key] = 1
        racers.append(child.serialize(SEED))
    lower, higher = sorted(racers, key=lambda raw: spec.parse(raw).hash)
    return parent, lower, higher


def test_a_read_only_deployed_client_keeping_its_lower_racer_aborts_only_in_debug() -> None:
    _parent, lower, higher = signed_racers()
    public = bytes(nacl.signing.SigningKey(SEED).verify_key)
    for debug in (True, False):
        client = deployed_build(debug, verify_key=public, current=reference.parse(lower, lag=5))
        if debug:
            with pytest.raises(Abort, match="X17"):
                client.receive([higher])
        else:
            client.receive([higher])
            assert client.current_hashes() == [spec.parse(lower).hash]  # its own, not D17's


def test_a_deployed_client_with_no_message_aborts_on_an_unparseable_first_input_in_debug() -> None:
    valid = spec.ConfigMessage.new(3).serialize()
    with pytest.raises(Abort, match="X19"):
        deployed_build(True).receive([UNPARSEABLE, valid])
    release = deployed_build(False)
    release.receive([UNPARSEABLE, valid])
    assert release.current_hashes() == [message_hash(UNPARSEABLE)]  # X12's index
    with pytest.raises(ConfigError, match="no valid"):
        deployed_build(False, catches=False).receive([])


@pytest.mark.parametrize("impl", [Client, ReferenceClient])
def test_the_libsession_profile_follows_the_no_op_edit_and_the_verifying_signer(impl: Any) -> None:
    first = spec.ConfigMessage.new(3)
    first.data[b"a"] = 1
    stored = first.serialize(SEED)
    unsigned = spec.parse(stored).increment()
    unsigned.data[b"a"] = 2
    for profile, pushes, adopts in (("spec", True, True), ("libsession", False, False)):
        parse = spec.parse if impl is Client else partial(reference.parse, lag=5)
        client = impl(profile=profile, sign_key=SEED, current=parse(stored))
        client.edit({b"a": 1})
        assert client.needs_push() is pushes
        client = impl(profile=profile, sign_key=SEED, current=parse(stored))
        client.receive([unsigned.serialize()])
        assert (client.current_hashes() == [unsigned.hash]) is adopts
    with pytest.raises(UsageError, match="not the signing key"):
        impl(profile="libsession", sign_key=SEED, verify_key=bytes(32))
