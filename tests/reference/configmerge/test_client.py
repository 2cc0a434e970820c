"""The reference's client (D28..D32) agrees with the spec's, step by step, on random scripts."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import swarmconf.reference.configmerge as reference
from swarmconf.reference.configmerge.client import Client as ReferenceClient
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge.client import Client as SpecClient


def pool() -> list[bytes]:
    """Messages of one swarm: a chain from seqno 3, forks of it, and an unparseable one."""
    first = spec.ConfigMessage.new(3)
    first.data.update({b"a": 1, b"s": {1, 2}})
    chain = [first.serialize()]
    for value in range(2, 5):
        message = spec.parse(chain[-1]).increment()
        message.data[b"a"] = value
        chain.append(message.serialize())
    forks = []
    for parent, key in [(chain[0], b"x"), (chain[1], b"y"), (chain[1], b"z"), (chain[3], b"w")]:
        message = spec.parse(parent).increment()
        message.data[key] = {b"k": 1}
        forks.append(message.serialize())
    return [*chain, *forks, b"d1:!i0e1:#i9e1:&de1:=dee"]


POOL = pool()
DATA = st.dictionaries(
    st.sampled_from([b"a", b"b", b"s"]),
    st.one_of(st.integers(-3, 3), st.frozensets(st.integers(0, 3), min_size=1).map(set)),
    max_size=3,
)
STEP = st.one_of(
    st.tuples(st.just("receive"), st.lists(st.sampled_from(POOL), max_size=4)),
    st.tuples(st.just("edit"), DATA),
    st.tuples(st.just("push"), st.none()),
    st.tuples(st.just("confirm"), st.none()),
)


def play(client: Any, steps: list[tuple[str, Any]]) -> list[Any]:
    """Each step's outcome: what it pushed and deleted, the current hashes, needs_push."""
    outcomes = []
    for action, argument in steps:
        pushed = None
        if action == "receive":
            client.receive(argument)
        elif action == "edit":
            client.edit(argument)
        elif action == "push":
            pushed = client.push()
        else:
            client.confirm()
        pushed_fields = None if pushed is None else (pushed.message, pushed.hash, pushed.deleted)
        outcomes.append((pushed_fields, client.current_hashes(), client.needs_push()))
    return outcomes


@settings(max_examples=300, deadline=None)
@given(
    profile=st.sampled_from(["spec", "libsession"]),
    start=st.one_of(st.none(), st.sampled_from(POOL[:-1])),
    steps=st.lists(STEP, max_size=8),
)
def test_reference_client_agrees_with_the_spec(
    profile: str, start: bytes | None, steps: list[tuple[str, Any]]
) -> None:
    spec_client = SpecClient(profile=profile, current=None if start is None else spec.parse(start))
    reference_client = ReferenceClient(
        profile=profile, current=None if start is None else reference.parse(start)
    )
    assert play(reference_client, steps) == play(spec_client, steps)


def test_profiles_differ_only_in_a_clean_clients_conflict_push() -> None:
    """Under `libsession` a clean client's resolution lists every data key in `=` (D30)."""
    pushes = {}
    for profile in ("spec", "libsession"):
        client = SpecClient(profile=profile, current=spec.parse(POOL[0]))
        client.receive([POOL[4], POOL[1]])  # two children of the current message: a conflict
        pushed = client.push()
        assert pushed is not None
        pushes[profile] = spec.parse(pushed.message)
    assert pushes["spec"].diff == {}
    assert set(pushes["libsession"].diff) == set(pushes["libsession"].data)
    assert pushes["spec"].data == pushes["libsession"].data
