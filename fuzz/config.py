"""A campaign's settings, shared by the Spark job, its reports and every design's campaigns."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

DEFAULT_PER_SCENARIO = 500
"""Interleavings of one scenario a task runs, unless `--per-scenario` says otherwise."""


@dataclass(frozen=True)
class Config:
    interleavings: int
    seed: int = 1
    master: str | None = None
    out: Path = Path("fuzz-out")
    """The local directory the driver writes to (staging, when `out_uri` is set)."""
    mutant: str | None = None
    per_scenario: int = DEFAULT_PER_SCENARIO
    differential: bool = True
    system: str | None = None
    """The `--system` name of the campaign to run (see `campaigns`); None runs the default."""
    client: str | None = None
    """A foreign client's adapter command: its answers are checked against the spec's."""
    client_timeout: float = 10.0
    """Seconds the adapter may take over one request before it counts as hung."""
    swarm: tuple[str, ...] | None = None
    """The behaviours of a swarm's clients, repeated over each scenario's clients (a campaign
    whose record lists `behaviours`)."""
    lenient_reasons: bool = False
    """A client's refusal with another reason code than the spec's is agreement (counted)."""
    out_uri: str | None = None
    """A Hadoop-compatible URI for every output (see `storage`), or None: all in `out`."""
