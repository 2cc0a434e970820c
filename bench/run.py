"""Benchmarks: swarmconf.spec.configmerge against swarmconf.reference.configmerge (compiled codec
and pure fallback).

Messages of about 1 KB, 10 KB and 70 KB of data; each operation is timed with
`time.perf_counter_ns` over many repetitions and the median is reported. Run with `make bench`;
the table is printed and written as Markdown (for the docs' performance page).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import swarmconf.reference.configmerge as ref
import swarmconf.spec.configmerge as spec
from swarmconf.reference.configmerge import bt
from swarmconf.reference.configmerge.data import encode_data

SIZES = {"1 KB": 1_000, "10 KB": 10_000, "70 KB": 70_000}
LAG = 5


def contact(rnd: random.Random, index: int) -> dict[bytes, Any]:
    """One realistic config entry: a contact with a name, a key, a URL, a priority and tags."""
    return {
        b"name": b"contact %d" % rnd.randrange(10**6),
        b"pubkey": rnd.randbytes(32),
        b"url": b"https://example.org/avatar/%d.png" % index,
        b"priority": rnd.randrange(-5, 100),
        b"tags": {rnd.randrange(100) for _ in range(2)} | {b"group%d" % rnd.randrange(9)},
    }


def build(size: int) -> dict[str, bytes]:
    """A steady-state message with `size` bytes of data, and five competing successors."""
    rnd = random.Random(size)
    msg = ref.ConfigMessage.new(1, lag=LAG)
    index = 0
    while len(encode_data(msg.data)) < size:
        for _ in range(5):
            msg.data[b"c%06d" % index] = contact(rnd, index)
            index += 1
    # Several small updates so the lagged diffs are the usual small ones
    for step in range(LAG + 1):
        msg = ref.parse(msg.serialize(), lag=LAG).increment()
        msg.data[b"c%06d" % step][b"priority"] = step
    base = msg.serialize()
    out = {"base": base}
    for fork in range(5):
        successor = ref.parse(base, lag=LAG).increment()
        entry = successor.data[b"c%06d" % (fork * 3 % index)]
        entry[b"name"] = b"renamed by fork %d" % fork
        entry[b"tags"].add(b"fork%d" % fork)
        successor.data[b"fork%d" % fork] = fork
        out[f"fork{fork}"] = successor.serialize()
    return out


def operations(api: ModuleType, messages: dict[str, bytes]) -> dict[str, Callable[[], object]]:
    base, forks = messages["base"], [messages[f"fork{i}"] for i in range(5)]
    parsed = api.parse(base, lag=LAG)

    def edited_hash() -> bytes:
        msg = api.parse(base, lag=LAG).increment()
        msg.data[b"c000000"][b"priority"] = 1000
        return bytes(msg.hash)

    return {
        "parse": lambda: api.parse(base, lag=LAG),
        "serialize": lambda: parsed.serialize(),
        "edit + hash": edited_hash,
        "merge 2-way": lambda: api.merge(forks[:2], lag=LAG).serialize(),
        "merge 5-way": lambda: api.merge(forks, lag=LAG).serialize(),
    }


def median_ns(call: Callable[[], object], budget_s: float, min_runs: int = 5) -> float:
    """The median time of `call` over as many runs as fit in `budget_s` (at least `min_runs`)."""
    call()  # warm up
    times: list[int] = []
    deadline = time.perf_counter() + budget_s
    while len(times) < min_runs or (time.perf_counter() < deadline and len(times) < 20_000):
        start = time.perf_counter_ns()
        call()
        times.append(time.perf_counter_ns() - start)
    return statistics.median(times)


@contextmanager
def pure_codec() -> Iterator[None]:
    previous = bt.ACCELERATED
    bt.ACCELERATED = False
    try:
        yield
    finally:
        bt.ACCELERATED = previous


def fmt(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.0f} µs"


def run(budget_s: float) -> list[list[str]]:
    rows = []
    for label, size in SIZES.items():
        messages = build(size)
        spec_ops = operations(spec, messages)
        ref_ops = operations(ref, messages)
        for name in ref_ops:
            spec_ns = median_ns(spec_ops[name], budget_s)
            ref_ns = median_ns(ref_ops[name], budget_s)
            with pure_codec():
                pure_ns = median_ns(operations(ref, messages)[name], budget_s)
            rows.append(
                [
                    name,
                    f"{label} ({len(messages['base']) / 1000:.1f} KB msg)",
                    fmt(spec_ns),
                    fmt(ref_ns),
                    f"{ref_ns / spec_ns:.3f}",
                    f"{spec_ns / ref_ns:.1f}x",
                    fmt(pure_ns),
                ]
            )
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    return rows


HEADER = [
    "operation",
    "data size",
    "spec (median)",
    "reference (median)",
    "reference/spec",
    "speedup",
    "reference, pure codec",
]


def markdown(rows: list[list[str]], budget_s: float) -> str:
    lines = [
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join(["---"] * 2 + ["---:"] * (len(HEADER) - 2)) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    machine = f"Python {platform.python_version()} on {platform.machine()} ({platform.system()})"
    return (
        "# Benchmarks: spec vs reference\n\n"
        f"Measured with `make bench` (`bench/run.py`), {machine}; each cell is the median of as "
        f"many runs as fit in {budget_s} s (at least 5). *merge* includes serializing the "
        "result; *edit + hash* parses, increments, edits one value and hashes the new message. "
        '"Reference, pure codec" is the reference without the compiled bencode2 codec.\n\n'
        + "\n".join(lines)
        + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per measurement")
    parser.add_argument("--output", type=Path, help="also write the Markdown table here")
    args = parser.parse_args()
    table = markdown(run(args.budget), args.budget)
    print(table)
    if args.output:
        args.output.write_text(table)


if __name__ == "__main__":
    main()
