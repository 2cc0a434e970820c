"""Tasks run with Python's cycle collector paused and leave it as they found it."""

import gc
import weakref
from collections.abc import Iterator

import pytest

from swarmconf.fuzz.configmerge import campaign, hostile
from swarmconf.fuzz.configmerge.campaign import Task, run_task
from swarmconf.fuzz.configmerge.hostile import HostileTask, run_hostile_task
from swarmconf.fuzz.heap import collector_paused


@pytest.fixture
def collector_enabled() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_collector_is_paused_inside_and_restored_after(collector_enabled: None) -> None:
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("the block fails")
    assert gc.isenabled()
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_tasks_run_with_the_collector_paused(
    collector_enabled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []

    def spying(function):  # type: ignore[no-untyped-def]
        def call(*args, **kwargs):  # type: ignore[no-untyped-def]
            seen.append(gc.isenabled())
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(campaign, "play", spying(campaign.play))
    monkeypatch.setattr(hostile, "outcome", spying(hostile.outcome))
    run_task(Task(1, 0, 0, 3, None))
    run_hostile_task(HostileTask(1, 0, 20))
    assert seen and not any(seen)
    assert gc.isenabled()


def test_a_task_frees_its_world_before_the_collector_resumes(
    collector_enabled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    freed: list[bool] = []

    def world(*args, **kwargs):  # type: ignore[no-untyped-def]
        made = campaign_world(*args, **kwargs)
        weakref.finalize(made, lambda: freed.append(gc.isenabled()))
        return made

    campaign_world = campaign.World
    monkeypatch.setattr(campaign, "World", world)
    run_task(Task(1, 0, 0, 3, None))
    assert freed == [False]
