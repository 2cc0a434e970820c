"""Bounded-exhaustive checking: the explorer, the config-merge model, the command, on Spark."""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import pickle
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from swarmconf.cliutil import CommandError, Exit, Parser
from swarmconf.fuzz import cli as fuzz_cli
from swarmconf.fuzz.check_spark import (
    CANDIDATES,
    NOTES,
    STATES,
    SparkSearch,
    dedupe_partition,
    expand_partition,
    fingerprints,
    known_for,
    pack,
    parent_in,
    visited_key,
)
from swarmconf.fuzz.configmerge import cli as check_cli
from swarmconf.fuzz.configmerge.case import replay
from swarmconf.fuzz.configmerge.check import Bound
from swarmconf.fuzz.configmerge.model import (
    DECLARED,
    LOSS,
    SOMETIMES,
    Action,
    Model,
    State,
    case_of,
)
from swarmconf.fuzz.explore import Judgement, Transition, explore

# The smallest bound found for each mutant with the plain scripts (lag 1, a future client);
# `replay-lowest` needs the overlap scripts and a lag of 2, `delete-winner` an unparseable blob
# (see the check page)
SMALLEST_BOUNDS = {
    "ties": (2, 2),
    "too-old-off-by-one": (2, 1),
    "window-off-by-one": (2, 1),
    "no-pruning": (2, 2),
    "unknown-keys": (2, 1),
}


@dataclass(frozen=True)
class Counter:
    """A toy space: two counters, each incremented up to `top`; "bad" when both reach it."""

    top: int

    def initial(self) -> tuple[int, int]:
        return (0, 0)

    def fingerprint(self, state: tuple[int, int]) -> bytes:
        return bytes(state)

    def actions(self, state: tuple[int, int]) -> list[int]:
        return [0, 1]

    def step(self, state: tuple[int, int], action: int) -> Transition[tuple[int, int]] | None:
        if state[action] == self.top:
            return None
        following = list(state)
        following[action] += 1
        return Transition((following[0], following[1]))

    def judge(self, state: tuple[int, int]) -> Judgement:
        bad = ("P1 both at the top",) if state == (self.top, self.top) else ()
        return Judgement(bad, ("odd",) if sum(state) % 2 else ())

    def independent(self, state: tuple[int, int], first: int, second: int) -> bool:
        return first != second

    def relabel(self, action: int, renaming: tuple[int, ...]) -> int:
        return action


def test_the_explorer_visits_each_state_once_and_finds_a_shortest_trace() -> None:
    result, search = explore(Counter(3), sleep_sets=True)
    assert result.states == 16 and result.depth == 6 and result.complete
    assert [level.states for level in result.levels] == [1, 2, 3, 4, 3, 2, 1]
    found = result.violations["P1"]
    assert found.count == 1 and found.depth == 6
    assert sorted(search.trace(found)) == [0, 0, 0, 1, 1, 1]
    # Sleep sets skip the second order of each commuting pair, never a state
    without, _ = explore(Counter(3), sleep_sets=False)
    assert without.states == result.states and without.transitions > result.transitions
    stopped, _ = explore(Counter(3), max_depth=2, sleep_sets=True)
    assert stopped.states == 6 and not stopped.complete


def test_two_clients_two_edits_exhausted_without_violation_and_not_vacuous() -> None:
    """The small check of the suite: 2 clients x 2 edits, lag 1, a spec client beside a
    reference client (a few seconds)."""
    bound = Bound(2, 2)
    result, _ = explore(bound.model())
    assert result.complete and not result.violations
    assert set(result.witnesses) == set(bound.sometimes) == set(SOMETIMES) - {DECLARED}
    assert result.depth == len(result.levels) - 1 >= 8


def test_a_step_is_the_interleavings_step() -> None:
    """Each transition is what the campaign's interleaving does from the state: its successor
    and violations are those of `Interleaving.apply` on the same world."""
    model = Bound(2, 2, scripts="overlap", mutant="no-pruning").model()
    from swarmconf.fuzz.configmerge.model import event_of

    checked = 0
    for state in walk_states(model, 120):
        for action in model.actions(state):
            step = model.step(state, action)
            run = model.run_of(state)
            run.apply(event_of(action))
            expected = model.state_of(run, state.histories)
            if expected == state:
                assert step is None
                continue
            assert step is not None and step.state == expected
            assert step.violations == tuple(run.outcome.violations)
            checked += 1
    assert checked > 100


def walk_states(model: Model, count: int) -> list[State]:
    """States along random walks of the model."""
    rng = random.Random(7)
    states = []
    while len(states) < count:
        state = model.initial()
        for _ in range(12):
            steps = [s for a in model.actions(state) if (s := model.step(state, a)) is not None]
            if not steps:
                break
            state = rng.choice(steps).state
            states.append(state)
    return states


@pytest.mark.parametrize("mutant", sorted(SMALLEST_BOUNDS))
def test_each_mutant_is_caught_with_a_shortest_trace_the_campaign_replays(mutant: str) -> None:
    clients, edits = SMALLEST_BOUNDS[mutant]
    bound = Bound(clients, edits, mutant=mutant)
    result, search = explore(bound.model(), stop_on_violation=True)
    assert result.violations
    depth = min(found.depth for found in result.violations.values())
    # Breadth first: no violation at a smaller depth, and the trace is that long
    for name, found in result.violations.items():
        actions = search.trace(found)
        assert len(actions) == found.depth >= depth
        case = case_of(bound.model(), actions, judged=found.action is None)
        assert name in replay(case).properties


def test_replay_lowest_is_caught_with_the_overlap_scripts_at_lag_two() -> None:
    """`replay-lowest` only shows when lagged diffs carried by several inputs replay against
    different data, which the overlap scripts make at a lag of 2."""
    bound = Bound(3, 2, 2, mutant="replay-lowest", scripts="overlap")
    result, search = explore(bound.model(), stop_on_violation=True, max_depth=6)
    found = result.violations["P3"]
    case = case_of(bound.model(), search.trace(found), judged=found.action is None)
    assert case.scenario.lag == 2 and "P3" in replay(case).properties
    quiet, _ = explore(
        Bound(3, 2, 1, mutant="replay-lowest", scripts="overlap").model(), max_depth=6
    )
    assert not quiet.violations


def test_an_unparseable_blob_catches_delete_winner() -> None:
    """With a blob sorting before every message, the deployed delete rule (X12) names the
    survivor of the first merge for deletion: the twin's intact rule differs (P3)."""
    bound = Bound(2, 1, mutant="delete-winner", blob=True)
    result, search = explore(bound.model(), stop_on_violation=True)
    found = result.violations["P3"]
    case = case_of(bound.model(), search.trace(found), judged=found.action is None)
    assert case.scenario.blobs and "P3" in replay(case).properties
    passed, _ = explore(Bound(2, 2, blob=True).model())
    assert passed.complete and not passed.violations


def test_the_overlap_scripts_pass_unmutated_and_reach_every_sometimes() -> None:
    bound = Bound(2, 2, scripts="overlap")
    result, _ = explore(bound.model())
    assert result.complete and not result.violations
    assert set(result.witnesses) == set(bound.sometimes)
    scenario = bound.model().scenario
    # Both clients write inside the nested dict, one removes it
    touched = [{edit.path[0] for batch in c.batches for edit in batch} for c in scenario.clients]
    assert all(b"d" in keys for keys in touched)


def test_a_declared_quirk_is_a_sometimes_only_where_one_can_fire() -> None:
    assert DECLARED not in Bound(2, 1).sometimes and LOSS in Bound(2, 1).sometimes
    assert DECLARED in Bound(2, 1, swarm=("deployed",), blob=True).sometimes
    assert DECLARED not in Bound(2, 1, swarm=("libsession",), blob=True).sometimes
    assert LOSS not in Bound(2, 1, lag=2).sometimes


def command(*argv: str) -> argparse.Namespace:
    """The parsed arguments of `swarmconf check ...` or `swarmconf fuzz ...`."""
    parser = Parser(prog="swarmconf")
    commands = parser.add_subparsers()
    check_cli.register(commands)
    fuzz_cli.register(commands)
    return parser.parse_args(list(argv))


def test_the_check_command_writes_a_non_vacuous_passing_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = command("check", "--clients", "2", "--edits", "2", "-o", str(tmp_path))
    assert args.handler(args) == Exit.OK
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["passed"] and summary["complete"]
    assert summary["verdict"].startswith("P1-P7 hold on all")
    assert set(summary["violations"]) == {"P1", "P2", "P3", "P4", "P5", "P6", "P7"}
    assert not any(summary["violations"].values())
    assert summary["sometimes"]["conflict"] > 0
    assert sum(level["states"] for level in summary["levels"]) == summary["states"]
    page = (tmp_path / "report.html").read_text()
    assert "Passed" in page and summary["verdict"] in page
    # The bound in words, where the search ran in plain English
    assert "2 clients \N{MULTIPLICATION SIGN} 2 edits, lag 1, plain scripts" in page
    assert "clients spec, reference" in page
    assert "in process, 1 core" in page and '"clients"' not in page
    assert "hold on all" in capsys.readouterr().out


def test_a_mutant_fails_the_command_and_its_counterexample_replays(tmp_path: Path) -> None:
    args = command(
        "check", "--clients", "2", "--edits", "1", "--mutant", "unknown-keys", "-o", str(tmp_path)
    )
    with pytest.raises(CommandError) as failure:
        check_cli.run_check(args)
    assert failure.value.status == Exit.FAILED
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert not summary["passed"] and summary["violations"]["P6"] > 0
    written = {item["property"]: item for item in summary["counterexamples"]}
    assert written["P6"]["replays"] and written["P3"]["replays"]
    path = Path(written["P6"]["path"])
    assert json.loads(path.read_text())["regenerate"].startswith("swarmconf check")
    replayed = command("fuzz", "replay", str(path))
    with pytest.raises(CommandError):
        fuzz_cli.replay_command(replayed)
    assert "Failed" in (tmp_path / "report.html").read_text()


def test_the_command_takes_the_overlap_scripts_and_regenerates_with_them(tmp_path: Path) -> None:
    args = command(
        "check",
        *("--clients", "3", "--edits", "2", "--lag", "2", "--scripts", "overlap"),
        *("--mutant", "replay-lowest", "-o", str(tmp_path)),
    )
    with pytest.raises(CommandError):
        check_cli.run_check(args)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["bound"]["scripts"] == "overlap" and summary["depth"] == 6
    written = summary["counterexamples"][0]
    assert written["property"] == "P3" and written["replays"]
    case = json.loads(Path(written["path"]).read_text())
    assert "--scripts overlap" in case["regenerate"]


def test_the_command_refuses_an_unknown_mutant(tmp_path: Path) -> None:
    args = command("check", "--mutant", "nothing", "-o", str(tmp_path))
    with pytest.raises(CommandError) as failure:
        check_cli.run_check(args)
    assert failure.value.status == Exit.USAGE


def test_model_paths_replay_as_campaign_cases_with_the_same_verdict() -> None:
    """Random paths of a mutant's model: the properties the model sees on the path and in
    its end state's lockstep rounds are those `swarmconf fuzz replay` sees."""
    model = Bound(2, 2, mutant="ties").model()
    rng = random.Random(3)
    verdicts = set()
    for _ in range(40):
        state, actions, seen = model.initial(), [], set()
        for _ in range(rng.randint(1, 8)):
            options = [(a, s) for a in model.actions(state) if (s := model.step(state, a))]
            if not options:
                break
            action, step = rng.choice(options)
            actions.append(action)
            seen.update(text.split(" ", 1)[0] for text in step.violations)
            state = step.state
        order = model.failing_order(state)
        settled = model.settled(state, order[0]).outcome.violations
        seen.update(text.split(" ", 1)[0] for text in settled)
        assert set(replay(case_of(model, actions, judged=True)).properties) == seen
        verdicts.add(bool(seen))
    assert verdicts == {True, False}


@pytest.mark.parametrize("driver_limit", [0, 5, 1000])
def test_the_spark_search_finds_the_same_states(spark: SparkSession, driver_limit: int) -> None:
    """Every level on Spark (0), the small first and last levels on the driver with the others
    on Spark (5: the search moves to the executors and back), every level on the driver."""
    bound = Bound(2, 1)
    local, _ = explore(bound.model())
    searcher = SparkSearch(spark, bound.model, 4, driver_limit=driver_limit)
    on_spark = searcher.run()
    assert on_spark.complete and not on_spark.violations
    assert [level.states for level in on_spark.levels] == [level.states for level in local.levels]
    assert on_spark.transitions == local.transitions
    assert set(on_spark.witnesses) == set(local.witnesses)
    sizes = [level.states for level in local.levels]
    assert searcher.driver_levels == sum(1 for size in sizes if size <= driver_limit)
    if driver_limit == 5:
        assert sizes[0] <= 5 < max(sizes) and sizes[-1] <= 5


@pytest.mark.parametrize("driver_limit", [0, 3])
def test_a_spark_counterexample_is_traced_through_the_levels(
    spark: SparkSession, driver_limit: int
) -> None:
    bound = Bound(2, 2, mutant="ties")
    searcher = SparkSearch(spark, bound.model, 4, driver_limit=driver_limit)
    result = searcher.run(stop_on_violation=True)
    assert "P3" in result.violations, (result.violations, [level.states for level in result.levels])
    found = result.violations["P3"]
    actions: list[Action] = searcher.trace(found)
    assert len(actions) == found.depth
    assert "P3" in replay(case_of(bound.model(), actions, judged=found.action is None)).properties


@dataclass(frozen=True)
class HashedCounter(Counter):
    """The toy space with 16-byte fingerprints, as the Spark search keys states."""

    def fingerprint(self, state: tuple[int, int]) -> bytes:
        return hashlib.blake2b(bytes(state), digest_size=16).digest()


def states_record(space: HashedCounter, states: list[tuple[int, int]]) -> tuple[bytes, bytes]:
    values = [(space.fingerprint(s), (s, frozenset[int](), None, None)) for s in states]
    return visited_key(0) + STATES, pack(values)


def shipped(records: list[tuple[bytes, object]]) -> set[tuple[int, int]]:
    return {
        value[0]
        for key, blob in records
        if key != NOTES
        for value in pickle.loads(blob).values()  # type: ignore[arg-type]
    }


def test_a_worker_drops_only_the_successors_its_level_would_find_visited() -> None:
    space = HashedCounter(3)
    token = "a search"
    expand = functools.partial(expand_partition, lambda: space, 1, False, token, 2, True)
    first = list(expand([states_record(space, [(1, 0)])]))
    assert shipped(first) == {(2, 0), (1, 1)}
    # Run again (a retry): what it shipped at level 1 is visited from level 2 on only
    assert shipped(list(expand([states_record(space, [(1, 0)])]))) == {(2, 0), (1, 1)}
    known = known_for(token)
    assert known[space.fingerprint((1, 0))] == 1 and known[space.fingerprint((1, 1))] == 2
    # At level 2, (1, 1) is visited: another state's successor (1, 1) is not shipped again
    later = functools.partial(expand_partition, lambda: space, 2, False, token, 2, True)
    assert shipped(list(later([states_record(space, [(0, 1)])]))) == {(0, 2)}
    (notes,) = [value for key, value in later([states_record(space, [(0, 1)])]) if key == NOTES]
    assert notes[2] == 2  # both transitions counted, whatever was shipped


def test_the_dedupe_keeps_new_states_once_with_the_least_parent() -> None:
    space = HashedCounter(3)
    fp = space.fingerprint
    seen, new = fp((1, 0)), fp((1, 1))
    parents = sorted([fp((0, 1)), fp((1, 0))])
    batch_a = {
        new: ((1, 1), frozenset[int](), parents[1], 0),
        seen: ((1, 0), frozenset[int](), fp((0, 0)), 0),
    }
    batch_b = {new: ((1, 1), frozenset[int](), parents[0], 1)}
    records: list[tuple[bytes, object]] = [
        (visited_key(0), (fp((0, 0)) + seen, {})),
        (visited_key(0) + STATES, pack([])),
        (visited_key(0) + CANDIDATES, pack(batch_a)),
        (visited_key(0) + CANDIDATES, pack(batch_b)),
    ]
    out = dict(dedupe_partition(2, records))
    visited, links = out[visited_key(0)]
    assert fingerprints(visited) == {fp((0, 0)), seen, new}
    assert parent_in(links[2], new) == (parents[0], 1) and parent_in(links[2], seen) is None
    assert [value[0] for _, value in pickle.loads(out[visited_key(0) + STATES])] == [(1, 1)]
