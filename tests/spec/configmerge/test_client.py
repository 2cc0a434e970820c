"""The client layer (D28..D32): its rules are registered, and two clients racing to resolve a
conflict settle only when they push the same bytes."""

from __future__ import annotations

import inspect
import re
from functools import partial
from typing import Any

import pytest

import swarmconf.reference.configmerge as reference
from swarmconf.conformance.configmerge.deployed_client import DeployedClient
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge import examples as ex
from swarmconf.spec.configmerge.client import Client
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
