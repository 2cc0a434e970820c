"""How long the command line takes to answer: `swarmconf --version`, `--help` and `kv get`
against a running node, wall time per process, median of N runs.

    python -m bench.cli [--runs 10] [--against OTHER_SRC]

A one-node cluster (Serf agent and node on loopback) is started in a temporary directory and a
key written, then each command runs N times. `--against` times the same commands from another
source tree too (the `src` folder of an older checkout, put first on PYTHONPATH), each pair run
in alternation so both see the same load. Prints the medians and the machine's load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.kvgossip.testbed.localcluster import LocalCluster
from swarmconf.spec.kvgossip.fixtures import ROOT

KEY, VALUE = "/bench/cli", b"answer"
LAUNCH = "import sys; from swarmconf.cli import main; sys.exit(main())"


def timed(argv: list[str], source: Path | None) -> float:
    """Seconds of wall time for one run of `swarmconf ARGV` (from `source`, if given)."""
    env = dict(os.environ)
    if source is not None:
        env["PYTHONPATH"] = str(source)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", LAUNCH, *argv], env=env, capture_output=True, check=False
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"swarmconf {' '.join(argv)} failed: {done.stderr.decode()[-500:]}")
    return seconds


async def with_node(runs: int, sources: list[Path | None]) -> dict[str, list[list[float]]]:
    with tempfile.TemporaryDirectory() as base:
        cluster = LocalCluster(Path(base), ROOT.pk)
        try:
            node = await cluster.add("a")
            await cluster.converged()
            key_file = Path(base) / "root.key"
            key_file.write_text(ROOT.seed.hex())
            key_file.chmod(0o600)
            put = await asyncio.create_subprocess_exec(
                sys.executable,
                "-c",
                LAUNCH,
                "kv",
                "set",
                "--data",
                str(node.data_dir),
                "--key",
                f"@{key_file}",
                KEY,
                VALUE.decode(),
            )
            if await put.wait() != 0:
                raise RuntimeError("could not write the benchmark's key")
            commands = {
                "--version": ["--version"],
                "--help": ["--help"],
                "kv get": ["kv", "get", "--data", str(node.data_dir), KEY],
            }
            times: dict[str, list[list[float]]] = {name: [[] for _ in sources] for name in commands}
            for _ in range(runs):
                for name, argv in commands.items():
                    for index, source in enumerate(sources):
                        times[name][index].append(await asyncio.to_thread(timed, argv, source))
            return times
        finally:
            await cluster.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--against", type=Path, help="another checkout's src folder")
    args = parser.parse_args(argv)
    sources: list[Path | None] = [None] if args.against is None else [None, args.against]
    times = asyncio.run(with_node(args.runs, sources))
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"wall time, median of {args.runs} runs (load average {load}):")
    for name, per_source in times.items():
        cells = [f"{statistics.median(t) * 1000:7.0f} ms" for t in per_source]
        print(f"  {name:<10} {'   '.join(cells)}")
    if args.against is not None:
        print(f"columns: this tree, then {args.against}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
