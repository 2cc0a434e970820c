"""The campaign bench's accounting: what a world computed, and the limit its costs set."""

from collections import Counter

from bench.fuzz.limit import Costs, Recorded, Work, limit, per_interleaving, played, spread
from swarmconf.fuzz.configmerge.campaign import Task


def test_spread_keeps_at_most_count_evenly_spaced() -> None:
    assert spread(list(range(10)), 4) == [0, 2, 5, 7]
    assert spread([1, 2], 4) == [1, 2]


def test_the_limit_is_interleavings_over_the_merges_and_serializations_time() -> None:
    work = Work(interleavings=10, merges=Counter(reference=20, twins=10))
    work.serializations["reference"] = 5
    measured = Costs({"reference": 1e-4, "spec": 1e-3}, {"reference": 2e-4, "spec": 5e-4})
    # 30 merges of 100 us and 5 serializations of 200 us: 4 ms for 10 interleavings
    assert round(limit(work, measured.of("reference"))) == 2500
    # The twins' 10 merges at 1 ms instead: 13 ms
    assert round(limit(work, measured.own())) == 769


def test_the_third_limit_adds_every_parse_at_its_librarys_cost() -> None:
    work = Work(interleavings=10, merges=Counter(reference=20))
    work.parses.update(reference=10, spec=2)
    measured = Costs(
        {"reference": 1e-4, "spec": 1e-3},
        {"reference": 0, "spec": 0},
        {"reference": 1e-4, "spec": 5e-4},
    )
    # 20 merges of 100 us, 10 reference parses of 100 us and 2 spec parses of 500 us: 4 ms
    assert round(limit(work, measured.own(parses=True))) == 2500
    # Without parses, only the merges: 2 ms
    assert round(limit(work, measured.own())) == 5000


def test_works_add_up_and_read_per_interleaving() -> None:
    total = Work()
    total += Work(interleavings=2, seconds=1.0, steps=10, polls=4, merges=Counter(reference=3))
    total += Work(interleavings=2, seconds=1.0, steps=30, edits=2, merges=Counter(deployed=1))
    assert (total.steps, total.computed, total.merges) == (40, 6, Counter(reference=3, deployed=1))
    line = per_interleaving(total)
    assert line.startswith("10.0 steps, 1.5 computed (edits 0.5, polls 1.0, pushes 0.0)")
    assert "merges 1.0 (reference 0.8, deployed 0.2)" in line
    assert "parses 0.0 ()" in line
    assert line.endswith("2 interleavings per CPU second")


def test_a_played_task_counts_the_merges_its_reference_clients_ran() -> None:
    recorded = Recorded()
    work = played(Task(1, 1, 0, 20, None), recorded)
    assert work.interleavings == 20
    assert work.polls > 0
    assert work.merges["reference"] == len(recorded.merges["reference"]) > 0
    assert work.serializations["reference"] == len(recorded.serializations["reference"]) > 0
    assert work.parses["reference"] == len(recorded.parses["reference"]) > 0
