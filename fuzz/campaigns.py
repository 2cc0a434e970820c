"""The kinds of campaign the designs register, and how shared code finds them.

A design lists its kinds of campaign as `Campaign` records in a module that the
`swarmconf.campaigns` entry-point group names (pyproject.toml), loaded the first time a record
is asked for. The Spark job, the reports and the `swarmconf fuzz` commands drive a record and
never name a design: a new kind of campaign is a new record, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

    from swarmconf.conformance.adapter import Adapter

    from .config import Config

GROUP = "swarmconf.campaigns"
"""The entry-point group: each entry names a sequence of `Campaign` records."""

ClientUse = Literal["never", "optional", "only"]
"""Whether a campaign runs without `--client` (never), with or without it, or only with it."""


def unit_cost(task: object) -> int:
    """Every task costs the same."""
    return 1


def no_opening(config: Config) -> list[str]:
    """Nothing to say before the progress."""
    return []


@dataclass(frozen=True)
class CaseOptions:
    """What `swarmconf fuzz replay` or `shrink` was told besides the case."""

    mutant: str | None = None
    """Replay under this mutant instead of the case's own."""
    client: str | None = None
    """Check the case through this conformance adapter command."""
    client_timeout: float = 10.0
    output: Path | None = None
    """Where `shrink` writes the smaller case (None: beside the working directory)."""
    swarm: tuple[str, ...] | None = None
    """The behaviours of a case id's clients (a campaign that takes `--behaviours`)."""


@dataclass(frozen=True)
class Replayed:
    """A case run again: its name, lines describing it, its violations (none: it passes) and
    the properties they break."""

    name: str
    lines: list[str]
    violations: list[str]
    properties: list[str]


@dataclass(frozen=True)
class Shrunk:
    """A case shrunk and written: lines saying what was cut and where it went, and the command
    that replays it."""

    lines: list[str]
    replay: str


@dataclass(frozen=True)
class Cases:
    """How a campaign's counterexample files are read again, replayed and shrunk.

    - `load(obj, options)`: the case a counterexample file holds (its JSON object); raises
      ValueError or KeyError when the file is not one;
    - `replay(case, options)`: the case run again, as `Replayed`;
    - `shrink(case, options)`: a smaller case failing the same way, written to a file, as
      `Shrunk`; raises ValueError when the case does not fail, OSError when it cannot write;
    - `parse(text, options)`: the case an id on the command line names (ValueError when `text`
      is not one), or None when cases have no such id;
    - `export(case, options)`: the case written as conformance vectors under
      `options.output` (a folder), what it wrote as `Shrunk`'s lines and the command that
      runs them; None when its cases have no vectors.

    A counterexample file names its campaign in a `system` field, which `replay` and `shrink`
    look up; a file without one belongs to the default campaign.
    """

    load: Callable[[dict[str, Any], CaseOptions], Any]
    replay: Callable[[Any, CaseOptions], Replayed]
    shrink: Callable[[Any, CaseOptions], Shrunk]
    parse: Callable[[str, CaseOptions], Any] | None = None
    export: Callable[[Any, CaseOptions], Shrunk] | None = None


@dataclass(frozen=True)
class Closing:
    """What `swarmconf fuzz` prints once the outputs are written, and why it fails, if it
    does (the detail of FUZZ_FAILED)."""

    lines: list[str]
    failure: str | None


@dataclass(frozen=True)
class Campaign:
    """One kind of campaign of one design, as the shared job and commands drive it.

    - `system`: its `--system` name; two records may share it when `clients` tells them apart
      (one run without `--client`, one only with it);
    - `title`: what its report calls it;
    - `properties`: what it checks, each property's name to a line saying what holds;
    - `plan(config)`: the campaign's tasks (picklable), with its seed, size and mutant;
    - `cost(task)`: a task's relative cost, by which tasks are dealt into partitions;
    - `run(tasks)`: the rows of one partition's tasks, in any order (a pure function of them);
    - `schema()`: the Spark schema of a row (see `rows.schema_of` for a typed row);
    - `write(cases, config, seconds, master)`: writes summary.json, report.html and any
      counterexample files from the rows read back, and returns the summary;
    - `closing(summary)`: what the command prints after the run, and whether it failed;
    - `mutants()`: the names `--mutant` accepts;
    - `clients`: whether it runs with `--client` (see `ClientUse`);
    - `cases`: how its counterexample files replay and shrink (None: it writes none);
    - `mutant_adapter(name)`: a context holding a conformance adapter that answers with mutant
      `name` in place (`python -m swarmconf.fuzz.mutant_adapter NAME` serves it), or None;
    - `default`: the campaign run without `--system` (one record says so);
    - `behaviours`: the client behaviours `--behaviours` may give it, each to a line saying what it
      is (empty: it takes no `--behaviours`); a behaviour named `client` is the adapter `--client`
      names;
    - `aliases`: other `system` names its case files may carry;
    - `unit`: what `--interleavings` counts, in the plural (interleavings, inputs);
    - `opening(config)`: the lines a run prints before its progress, saying what it runs.
    """

    system: str
    title: str
    properties: Mapping[str, str]
    plan: Callable[[Config], list[Any]]
    run: Callable[[Iterable[Any]], Iterator[Any]]
    schema: Callable[[], StructType]
    write: Callable[[DataFrame, Config, float, str], dict[str, Any]]
    closing: Callable[[dict[str, Any]], Closing]
    mutants: Callable[[], Collection[str]]
    cost: Callable[[Any], int] = unit_cost
    clients: ClientUse = "never"
    cases: Cases | None = None
    mutant_adapter: Callable[[str], AbstractContextManager[Adapter]] | None = None
    default: bool = False
    behaviours: Mapping[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    """Other `system` names its case files may carry (a campaign it took over)."""
    unit: str = "cases"
    opening: Callable[[Config], list[str]] = no_opening

    def takes(self, client: bool) -> bool:
        """Whether it runs with a client (`client`) or without one."""
        return self.clients == "optional" or (self.clients == "only") == client


class UnknownCampaign(LookupError):
    """No registered campaign has this `--system` name, or none runs with (or without) a
    client; the message says which exist."""


@cache
def campaigns() -> tuple[Campaign, ...]:
    """Every registered record, in entry-point name order, then each design's own order."""
    found: list[Campaign] = []
    for point in sorted(entry_points(group=GROUP), key=lambda point: point.name):
        found.extend(point.load())
    return tuple(found)


def systems(aliases: bool = False) -> list[str]:
    """The `--system` names, sorted (with `aliases`, the other names case files carry too)."""
    names = {campaign.system for campaign in campaigns()}
    if aliases:
        names.update(alias for campaign in campaigns() for alias in campaign.aliases)
    return sorted(names)


def default_campaign() -> Campaign:
    """The campaign run without `--system`."""
    [campaign] = [campaign for campaign in campaigns() if campaign.default]
    return campaign


def campaign_for(system: str | None, client: bool = False) -> Campaign:
    """The campaign `--system system` runs, with a client or without one (None: the default
    campaign's system)."""
    name = default_campaign().system if system is None else system
    named = [campaign for campaign in campaigns() if name in (campaign.system, *campaign.aliases)]
    if not named:
        raise UnknownCampaign(f"no campaign is called {name!r}; known: {', '.join(systems())}")
    for campaign in named:
        if campaign.takes(client):
            return campaign
    raise UnknownCampaign(f"--system {name} {'checks no client' if client else 'needs --client'}")


def campaign_of(config: Config) -> Campaign:
    """The campaign a config runs."""
    return campaign_for(config.system, config.client is not None)
