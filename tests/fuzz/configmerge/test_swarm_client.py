"""A client played through an adapter (`swarm_client`) is what its answers say: its state key,
the data an edit changes and P1 reads; a poll the app catches, a stop the deployed client makes
too, and C1 findings the deployed client's own answers explain."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from swarmconf.fuzz.configmerge.behaviours import Setting
from swarmconf.fuzz.configmerge.campaign import Task, task_scenario, world_of
from swarmconf.fuzz.configmerge.check import Bound
from swarmconf.fuzz.configmerge.interleaving import play
from swarmconf.fuzz.configmerge.model import UNPARSEABLE_BLOB, check_scenario
from swarmconf.fuzz.configmerge.scenario import Scenario, with_behaviours
from swarmconf.fuzz.configmerge.schedule import Event, Schedule, generate_schedule
from swarmconf.fuzz.configmerge.swarm_client import AdapterClient, AdapterError, Refused
from swarmconf.fuzz.configmerge.world import World
from swarmconf.fuzz.explore import explore
from swarmconf.spec.configmerge import ConfigMessage

EMULATION = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed"
STALE = f"{sys.executable} {Path(__file__).with_name('stale_adapter.py')}"
EXAMPLE = f"{sys.executable} {Path(__file__).parents[3] / 'docs/examples/conformance_adapter.py'}"
BOTH_EDIT = Schedule((Event("edit", 0), Event("edit", 1)), 0)
BASE = ConfigMessage.new(0).serialize()
"""A stored message of seqno 0: the deployed client holding it counts as holding none (X19)."""


def beside_libsession(blob: bool = False) -> Scenario:
    return with_behaviours(check_scenario(2, 1, 1, blob=blob), ("libsession", "client"))


def client(command: str, quirks: frozenset[str]) -> AdapterClient:
    request: dict[str, Any] = {"op": "client", "lag": 1, "profile": "libsession"}
    return AdapterClient(command, 10.0, {**request, "msg": BASE.hex()}, quirks)


def test_p1_reads_the_message_the_adapter_answers() -> None:
    """The stale adapter pushes what the reference pushes but answers its starting message as
    its own: the swarm settles on the edits, and the client is judged on what it says it
    holds. A client answering its message truly settles clean."""
    stale = play(World(beside_libsession(), Setting(STALE)), BOTH_EDIT)
    assert "P1 client 1 (client) holds other data than the swarm" in stale.violations
    honest = play(World(beside_libsession(), Setting(EXAMPLE)), BOTH_EDIT)
    assert honest.violations == [] and honest.merges >= 1


def test_c1_compares_the_message_a_client_answers_before_it_pushes() -> None:
    """The stale adapter's edit answers its starting message where the spec's client holds
    the edited one: C1 at that edit, not only once a push shows it."""
    world = World(beside_libsession(), Setting(STALE))
    step = world.edit(world.start(1), 1, 0)
    assert step.violations == ("C1 the client's answer to its edit differs from the spec's",)
    honest = World(beside_libsession(), Setting(EXAMPLE))
    assert honest.edit(honest.start(1), 1, 0).violations == ()


def test_a_clients_state_is_its_last_answer() -> None:
    """A poll that changes nothing leads to the state it started in, whatever the script; an
    edit leads to the state the deployed client's emulation holds in process."""
    scenario = beside_libsession()
    world = World(scenario, Setting(EMULATION))
    start = world.start(1)
    assert world.poll(start, (world.messages.base,)).key == start
    assert world.objects[start].steps == ()
    edited = world.edit(start, 1, 0).key
    answered = world.objects[edited].answer
    assert edited.state == "dirty" and edited.message == answered.message.raw != start.message
    in_process = World(with_behaviours(scenario, ("libsession", "deployed")))
    assert in_process.edit(in_process.start(1), 1, 0).key[1:] == edited[1:]


def test_a_check_through_the_emulation_ends_with_the_states_of_the_emulation_in_process() -> None:
    """`swarmconf check --swarm libsession,client --client EMULATION --clients 2 --edits 1`:
    every state searched, none failing, as many as beside the emulation in process."""
    through, _ = explore(Bound(2, 1, swarm=("libsession", "client"), client=EMULATION).model())
    in_process, _ = explore(Bound(2, 1, swarm=("libsession", "deployed")).model())
    assert through.complete and not through.violations
    assert through.states == in_process.states > 1


@pytest.mark.parametrize(
    ("seed", "scenario", "schedule", "explained"),
    [(1, 1, 7, "X17 C1 the client's answer to its poll differs"), (0, 3, 0, "X19 C2")],
)
def test_a_campaign_through_the_emulation_fails_nothing_its_quirks_explain(
    seed: int, scenario: int, schedule: int, explained: str
) -> None:
    """An interleaving where the emulation answers otherwise than the spec's client (X17: a
    dirty client adopting a message increments it), and one where it aborts (X19: its seqno-0
    message counts as none, so the unparseable blob first in a poll is its index 0)."""
    task = Task(seed, scenario, schedule, 1, None, True, ("libsession", "client"), EMULATION)
    found = task_scenario(task)
    outcome = play(world_of(task, found), generate_schedule(found, seed, scenario, schedule))
    assert outcome.violations == []
    assert any(finding.startswith(explained) for finding in outcome.acceptable)


def test_a_poll_refused_for_nothing_valid_changes_nothing_where_x19_is_declared() -> None:
    declared = client(EMULATION, frozenset({"X19"}))
    declared.receive([])
    assert declared.steps == () and declared.current_hash is not None
    with pytest.raises(Refused, match="NO_VALID_MESSAGE"):
        client(EMULATION, frozenset({"X12"})).receive([])


def test_an_abort_is_acceptable_only_where_the_deployed_client_aborts_by_a_declared_quirk() -> None:
    for quirks, finding in ((frozenset({"X19"}), "X19 C2 "), (frozenset({"X12"}), "C2 ")):
        with pytest.raises(AdapterError) as stopped:
            client(EMULATION, quirks).receive([UNPARSEABLE_BLOB, BASE])
        assert stopped.value.finding.startswith(finding) and "crashed" in stopped.value.finding


def test_the_deployed_clients_quirks_explain_only_its_own_answers() -> None:
    """A seqno-0 client polling its own message meets X19 (it merges the poll alone); the
    emulation's answers are the deployed client's, the stale adapter's after an edit are not."""
    for command, quirks, explained in (
        (EMULATION, {"X19"}, True),
        (EMULATION, {"X12"}, False),
        (STALE, {"X19"}, False),
    ):
        played = client(command, frozenset(quirks))
        played.receive([BASE])
        played.edit({b"a": 1})
        found = played.as_deployed("C1 finding")
        assert found == (("X19 C1 finding (as the deployed client answers)",) if explained else ())
