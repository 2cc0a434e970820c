"""Benchmarks: swarmconf.spec.configmerge, the reference of a baseline commit and the reference
now (as installed, from its sources, and on the pure-Python fallback), timed in one run.

Messages of about 1 KB, 10 KB and 70 KB of data; each operation is timed over many repetitions
and the median is reported. Times are the CPU time of the running thread
(`time.thread_time_ns`), so the time other processes take on a shared machine is not counted;
the references are timed in alternation, so a load that comes and goes (and slows the CPU's
caches) weighs on each alike. The baseline's `reference` and `spec` folders are taken from the
git history (`git archive`), and the working tree's copied without its compiled modules, and
each is imported from its sources under another package name. Run with `make bench`; the
table is printed and written as Markdown (for the docs' performance page).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import swarmconf.reference.configmerge as ref
import swarmconf.spec.configmerge as spec
from swarmconf.reference.configmerge.data import encode_data

SIZES = {"1 KB": 1_000, "10 KB": 10_000, "70 KB": 70_000}
LAG = 5
BASELINE = "067bc65"
REPOSITORY = Path(__file__).resolve().parents[2]


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


def operations(api: ModuleType, messages: dict[str, bytes]) -> dict[str, Callable[[], bytes]]:
    """The timed operations, each giving bytes (a message's, or its hash) to compare."""
    base, forks = messages["base"], [messages[f"fork{i}"] for i in range(5)]
    parsed = api.parse(base, lag=LAG)

    def edited_hash() -> bytes:
        msg = api.parse(base, lag=LAG).increment()
        msg.data[b"c000000"][b"priority"] = 1000
        return bytes(msg.hash)

    return {
        "parse": lambda: bytes(api.parse(base, lag=LAG).hash),
        "serialize": lambda: parsed.serialize(),
        "edit + hash": edited_hash,
        "merge 2-way": lambda: api.merge(forks[:2], lag=LAG).serialize(),
        "merge 5-way": lambda: api.merge(forks, lag=LAG).serialize(),
    }


def median_ns(call: Callable[[], object], budget_s: float, min_runs: int = 5) -> float:
    """The median time of `call` over as many runs as fit in `budget_s` (at least `min_runs`)."""
    return alternating_medians_ns({"": call}, budget_s, min_runs)[""]


def alternating_medians_ns(
    calls: Mapping[str, Callable[[], object]], budget_s: float, min_runs: int = 5
) -> dict[str, float]:
    """The median time of each call, timed in turn round after round for `budget_s` per call."""
    for call in calls.values():
        call()  # warm up
    times: dict[str, list[int]] = {name: [] for name in calls}
    runs = 0
    deadline = time.perf_counter() + budget_s * len(calls)
    while runs < min_runs or (time.perf_counter() < deadline and runs < 20_000):
        for name, call in calls.items():
            start = time.thread_time_ns()
            call()
            times[name].append(time.thread_time_ns() - start)
        runs += 1
    return {name: statistics.median(values) for name, values in times.items()}


@contextlib.contextmanager
def pure_codec(api: ModuleType) -> Iterator[None]:
    """The reference `api` without its compiled codec, on the pure-Python fallback."""
    codec: Any = sys.modules[api.__name__ + ".bt"]
    previous = codec.ACCELERATED
    codec.ACCELERATED = False
    try:
        yield
    finally:
        codec.ACCELERATED = previous


def pure(api: ModuleType, call: Callable[[], bytes]) -> Callable[[], bytes]:
    def run_pure() -> bytes:
        with pure_codec(api):
            return call()

    return run_pure


def git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", "-C", str(REPOSITORY), *args], capture_output=True)


@contextlib.contextmanager
def imported_copy(package: str, fill: Callable[[Path], None]) -> Iterator[ModuleType]:
    """The config-merge reference of a copy of the `reference` and `spec` folders, which
    `fill` writes into a folder, imported from their sources as another package.

    The copy's imports of `swarmconf.spec` are pointed at its own spec. The config-merge
    reference is `reference` itself in early commits, such as 067bc65, and
    `reference/configmerge` since the K/V node came.
    """
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / package
        fill(root)
        for source in root.rglob("*.py"):
            source.write_text(source.read_text().replace("swarmconf.spec", f"{package}.spec"))
        (root / "__init__.py").write_text("")
        nested = (root / "reference" / "configmerge").is_dir()
        sys.path.insert(0, folder)
        try:
            yield importlib.import_module(
                f"{package}.reference" + (".configmerge" if nested else "")
            )
        finally:
            sys.path.remove(folder)


def baseline_reference(commit: str) -> contextlib.AbstractContextManager[ModuleType]:
    """`swarmconf.reference.configmerge` as it was at `commit` (`git archive`), interpreted."""
    if git("rev-parse", "--verify", "--quiet", commit + "^{commit}").returncode != 0:
        raise SystemExit(
            f"bench: commit {commit} is not in the git history of {REPOSITORY}: the baseline "
            "reference is read from it (in a shallow clone, `git fetch --unshallow` first)"
        )
    archive = git("archive", "--format=tar", commit, "reference", "spec")
    if archive.returncode != 0:
        raise SystemExit(f"bench: git archive {commit} failed: {archive.stderr.decode()}")

    def extract(root: Path) -> None:
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(root, filter="data")

    return imported_copy(f"swarmconf_{commit}", extract)


def interpreted_reference() -> contextlib.AbstractContextManager[ModuleType]:
    """`swarmconf.reference.configmerge` of the working tree from its sources, never compiled."""

    def copy(root: Path) -> None:
        for folder in ("reference", "spec"):
            shutil.copytree(
                REPOSITORY / folder,
                root / folder,
                ignore=shutil.ignore_patterns("*.so", "__pycache__"),
            )

    return imported_copy("swarmconf_interpreted", copy)


def fmt(ns: float) -> str:
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.0f} µs"


def check_identical(results: dict[str, bytes], operation: str, label: str) -> None:
    """Every implementation gave the same bytes for one operation, or the run stops."""
    if len(set(results.values())) != 1:
        differ = ", ".join(sorted(results))
        raise SystemExit(f"bench: {operation} at {label} gives different bytes ({differ})")


def run(
    budget_s: float, baseline: ModuleType, interpreted: ModuleType, only: list[str] | None
) -> list[list[str]]:
    rows = []
    for label, size in SIZES.items():
        messages = build(size)
        spec_ops = operations(spec, messages)
        old_ops = operations(baseline, messages)
        ref_ops = operations(ref, messages)
        source_ops = operations(interpreted, messages)
        for name in ref_ops:
            if only is not None and not any(name.startswith(prefix) for prefix in only):
                continue
            calls = {
                "old": old_ops[name],
                "now": ref_ops[name],
                "interpreted": source_ops[name],
                "pure": pure(interpreted, source_ops[name]),
            }
            check_identical(
                {"spec": spec_ops[name](), **{k: call() for k, call in calls.items()}},
                name,
                label,
            )
            spec_ns = median_ns(spec_ops[name], budget_s)
            ns = alternating_medians_ns(calls, budget_s)
            rows.append(
                [
                    name,
                    f"{label} ({len(messages['base']) / 1000:.1f} KB msg)",
                    fmt(spec_ns),
                    fmt(ns["old"]),
                    fmt(ns["now"]),
                    f"{ns['old'] / ns['now']:.2f}x",
                    f"{spec_ns / ns['now']:.1f}x",
                    fmt(ns["interpreted"]),
                    fmt(ns["pure"]),
                ]
            )
            print(" | ".join(rows[-1]), file=sys.stderr, flush=True)
    return rows


def header(commit: str) -> list[str]:
    return [
        "operation",
        "data size",
        "spec (median)",
        f"reference at {commit} (median)",
        "reference (median)",
        f"speed-up over {commit}",
        "speed-up over spec",
        "reference, interpreted",
        "reference, pure Python",
    ]


def markdown(rows: list[list[str]], budget_s: float, commit: str) -> str:
    names = header(commit)
    lines = [
        "| " + " | ".join(names) + " |",
        "|" + "|".join(["---"] * 2 + ["---:"] * (len(names) - 2)) + "|",
    ]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    machine = f"Python {platform.python_version()} on {platform.machine()} ({platform.system()})"
    return (
        "# Benchmarks: spec vs reference\n\n"
        f"Measured with `make bench` (`python -m bench.configmerge.run`), {machine}; each cell is "
        "the median CPU time of the running thread over as many runs as fit in "
        f"{budget_s} s of wall time (at least 5). The reference as of commit `{commit}` "
        "(read from the git history) and the reference now, as installed, from its sources and "
        "on the pure-Python fallback, are timed in alternation in the same run; every "
        "implementation gives the same bytes. *merge* includes serializing the result; "
        "*parse* includes the hash; *edit + hash* parses, increments, edits one value and "
        'hashes the new message. "Reference" is the installed package, its hot modules '
        'compiled with mypyc where the wheel was built with it; "interpreted" runs the same '
        'sources as Python; "pure Python" also does without the compiled bencode2 codec.\n\n'
        + "\n".join(lines)
        + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--budget", type=float, default=0.5, help="seconds per measurement")
    parser.add_argument("--baseline", default=BASELINE, help="the commit to compare against")
    parser.add_argument("--output", type=Path, help="also write the Markdown table here")
    parser.add_argument(
        "--only",
        action="append",
        metavar="OPERATION",
        help="time only the operations named so (a prefix: `merge` for both merges); repeatable",
    )
    args = parser.parse_args()
    with baseline_reference(args.baseline) as baseline, interpreted_reference() as interpreted:
        rows = run(args.budget, baseline, interpreted, args.only)
    table = markdown(rows, args.budget, args.baseline)
    print(table)
    if args.output:
        args.output.write_text(table)


if __name__ == "__main__":
    main()
