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
from swarmconf.fuzz.configmerge.model import SOMETIMES, Action, Model, State
from swarmconf.fuzz.configmerge.mutants import MUTANTS
from swarmconf.fuzz.configmerge.trace import case_of
from swarmconf.fuzz.explore import Judgement, Transition, explore

# The smallest bound found for each mutant with the plain scripts (lag 1, a future client);
# `replay-lowest` needs the overlap scripts and a lag of 2 (see the check page)
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
    """The small check of the suite: 2 clients x 2 edits, lag 1 (a second or so)."""
    result, _ = explore(Bound(2, 2).model())
    assert result.complete and not result.violations
    assert set(result.witnesses) == set(SOMETIMES)
    assert result.depth == len(result.levels) - 1 >= 8


@pytest.mark.parametrize(
    "bound", [Bound(2, 2), Bound(3, 1), Bound(3, 1, shared=True, symmetry=True)]
)
def test_sleep_sets_keep_every_state_of_these_bounds(bound: Bound) -> None:
    model = bound.model()
    with_sleep, search = explore(model, sleep_sets=True)
    without, full = explore(model)
    assert set(search.parents) == set(full.parents)
    assert with_sleep.slept > 0 and with_sleep.transitions < without.transitions
    assert {name: found.count for name, found in with_sleep.violations.items()} == {}


def test_symmetry_keeps_one_state_per_renaming_class() -> None:
    plain, plain_search = explore(Bound(2, 2, shared=True).model())
    model = Bound(2, 2, shared=True, symmetry=True).model()
    reduced, reduced_search = explore(model)
    assert reduced.complete and not reduced.violations and reduced.states < plain.states
    # Every state of the plain search has its representative among the reduced search's
    plain_model = Bound(2, 2, shared=True).model()
    states = walk_states(plain_model, 300)
    assert all(
        model.fingerprint(model.canonical(state)[0]) in reduced_search.parents for state in states
    )
    assert len(plain_search.parents) == plain.states


@pytest.mark.parametrize("mutant", [None, "no-pruning"])
def test_steps_taken_without_a_campaign_run_are_the_runs_steps(mutant: str | None) -> None:
    """Going offline, coming back with nothing queued and a sync that makes no new message are
    taken without `Run`: each gives the state and violations `Run` itself gives."""
    model = Bound(2, 2, scripts="overlap", mutant=mutant).model()
    local = 0
    for state in walk_states(model, 200):
        for action in model.actions(state):
            if action.kind == "edit":
                continue
            step = model.step(state, action)
            run = model.run_of(state)
            if action.kind == "sync":
                model.sync(run, action.client, state.swarm if action.view is None else action.view)
            else:
                run.toggle(action.client, action.kind == "online")
            expected = model.state_of(run, state, action.client)
            if expected == state:
                assert step is None
                continue
            assert step is not None and step.state == expected
            assert step.violations == tuple(run.outcome.violations)
            local += not run.learned
    assert local > 100


def test_a_judgement_is_its_flushed_states() -> None:
    """States that flush to the same state share one judgement, which is the one worked out
    from each of them."""
    model = Bound(3, 1, mutant="window-off-by-one").model()
    states = walk_states(model, 300)
    verdicts = {model.judge(state) for state in states}
    assert all(model.judge(state) == model.judgement(state, None, None) for state in states)
    assert len(model.judged) < len(set(states)) and len(verdicts) > 1


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
def test_each_mutant_is_caught_with_a_shortest_trace_the_campaign_replays(
    mutant: str, tmp_path: Path
) -> None:
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
    # A smaller bound of the same shape does not catch it
    if edits > 1:
        smaller, _ = explore(Bound(clients, edits - 1, mutant=mutant).model())
        assert not smaller.violations


def test_the_overlap_scripts_catch_every_mutant_at_three_clients_two_edits_lag_two() -> None:
    """The one bound catching all six merge mutants: `replay-lowest` only shows when lagged
    diffs carried by several inputs replay against different data, which the overlap scripts
    make. (`delete-winner` needs an unparseable blob, see below.)"""
    found = {}
    for mutant in sorted(set(MUTANTS) - {"delete-winner"}):
        bound = Bound(3, 2, 2, mutant=mutant, scripts="overlap")
        result, search = explore(bound.model(), stop_on_violation=True, max_depth=5)
        assert result.violations, mutant
        for name, item in result.violations.items():
            actions = search.trace(item)
            assert len(actions) == item.depth
            case = case_of(bound.model(), actions, judged=item.action is None)
            assert name in replay(case).properties
            assert case.scenario.lag == 2
        found[mutant] = min(item.depth for item in result.violations.values())
    assert found["replay-lowest"] == 5


def test_replay_lowest_needs_the_overlap_scripts_and_a_lag_over_one() -> None:
    """At lag 1 a message carries no lagged entries (D7), so each replayed diff has one source;
    with the plain scripts the source never changes a merge at this bound and depth."""
    for scripts, lag in (("plain", 2), ("overlap", 1)):
        bound = Bound(3, 2, lag, mutant="replay-lowest", scripts=scripts)
        result, _ = explore(bound.model(), stop_on_violation=True, max_depth=5)
        assert not result.violations, (scripts, lag)


def test_the_overlap_scripts_pass_unmutated_and_reach_every_sometimes() -> None:
    result, _ = explore(Bound(2, 2, scripts="overlap").model())
    assert result.complete and not result.violations
    assert set(result.witnesses) == set(SOMETIMES)
    scenario = Bound(2, 2, scripts="overlap").model().scenario
    # Both clients write inside the nested dict, one removes it
    touched = [{edit.path[0] for batch in c.batches for edit in batch} for c in scenario.clients]
    assert all(b"d" in keys for keys in touched)


def test_an_unparseable_blob_catches_delete_winner_before_any_event(tmp_path: Path) -> None:
    """With a blob sorting before every message, the deployed delete rule (X12) deletes the
    merge's survivor at the first settle: P1 in the initial state, a case of no events."""
    bound = Bound(2, 1, mutant="delete-winner", blob=True)
    result, search = explore(bound.model(), stop_on_violation=True)
    found = result.violations["P1"]
    assert found.depth == 0 and search.trace(found) == []
    case = case_of(bound.model(), [], judged=True)
    assert case.scenario.blobs and "P1" in replay(case).properties
    # The delete rule itself keeps the blob and passes; without the blob X12 deletes right
    for clean in (Bound(2, 2, blob=True), Bound(2, 2, mutant="delete-winner")):
        passed, _ = explore(clean.model())
        assert passed.complete and not passed.violations


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
    assert summary["verdict"].startswith(f"P1-P6 hold on all {summary['states']:,} states")
    assert set(summary["violations"]) == {"P1", "P2", "P3", "P4", "P5", "P6"}
    assert not any(summary["violations"].values())
    assert summary["sometimes"]["conflict"] > 0
    assert sum(level["states"] for level in summary["levels"]) == summary["states"]
    page = (tmp_path / "report.html").read_text()
    assert "Passed" in page and summary["verdict"] in page
    # The bound in words, where the search ran in plain English
    assert "2 clients \N{MULTIPLICATION SIGN} 2 edits, lag 1, plain scripts" in page
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
    assert written["P6"]["replays"]
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
    assert summary["bound"]["scripts"] == "overlap" and summary["depth"] == 5
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
    its end state's quiescence are those `swarmconf fuzz replay` sees."""
    model = Bound(2, 2, mutant="window-off-by-one").model()
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
        seen.update(text.split(" ", 1)[0] for text in model.quiescence(state, order)[0])
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
    bound = Bound(2, 1, mutant="window-off-by-one")
    searcher = SparkSearch(spark, bound.model, 4, driver_limit=driver_limit)
    result = searcher.run(stop_on_violation=True)
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
