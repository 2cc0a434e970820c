"""A Spark standalone cluster on 127.0.0.1 from the installed pyspark: a master and two workers,
a campaign submitted to it with `spark-submit`, then everything stopped.

The workers run as a real cluster's would: their own Python is a bare interpreter that cannot
import swarmconf (checked first), so the campaign runs only because `spark-submit` ships the
packed environment (`environment`) through `--archives`, and the outputs go through a
`file://` URI as they would to `hdfs://` or `s3a://`.

    python -m swarmconf.fuzz.cluster --interleavings 2000 --out fuzz-cluster-out
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from . import environment, submit
from .job import LOG4J2

WORKERS = 2
STARTUP_SECONDS = 120


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def spark_home() -> Path:
    from pyspark.find_spark_home import _find_spark_home

    return Path(_find_spark_home())


def bare_python() -> str:
    """The interpreter this one's virtual environment was made from: the workers' own Python.
    It must not import swarmconf, or a run would not show that the shipped environment works."""
    python = str(getattr(sys, "_base_executable", sys.executable))
    probe = subprocess.run(
        [python, "-I", "-c", "import swarmconf"], env=outside_env(), capture_output=True
    )
    if probe.returncode == 0:
        raise RuntimeError(f"{python} imports swarmconf by itself; use a bare interpreter")
    return python


def outside_env() -> dict[str, str]:
    """This process's environment without what points Python at this virtual environment."""
    hidden = {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "PYSPARK_PYTHON"}
    return {name: value for name, value in os.environ.items() if name not in hidden}


def cluster_env(out: Path) -> dict[str, str]:
    """The daemons' and spark-submit's environment: no trace of this virtual environment."""
    conf = (out / "spark-conf").resolve()
    conf.mkdir(parents=True, exist_ok=True)
    (conf / "log4j2.properties").write_text(LOG4J2)
    return {
        **outside_env(),
        "SPARK_HOME": str(spark_home()),
        "SPARK_CONF_DIR": str(conf),
        "SPARK_LOCAL_IP": "127.0.0.1",
    }


def spark_class(name: str, *args: str) -> list[str]:
    return [str(spark_home() / "bin" / "spark-class"), f"org.apache.spark.deploy.{name}", *args]


def master_state(web_port: int) -> dict[str, Any]:
    """The master's status from its web UI's JSON view, or {} while it is not answering."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/json/", timeout=2) as reply:
            state: dict[str, Any] = json.load(reply)
            return state
    except (OSError, ValueError):
        return {}


def wait_for_workers(web_port: int, count: int, master: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        state = master_state(web_port)
        if state.get("status") == "ALIVE" and int(state.get("aliveworkers", 0)) >= count:
            return
        if master.poll() is not None:
            raise RuntimeError("the Spark master exited; see cluster-logs/master.log")
        time.sleep(0.5)
    raise TimeoutError(f"{count} workers did not register within {STARTUP_SECONDS} s")


@contextmanager
def standalone_cluster(out: Path, workers: int = WORKERS) -> Iterator[str]:
    """Start a master and `workers` one-core workers; yield the master URL; stop them all."""
    env = {**cluster_env(out), "PYSPARK_PYTHON": bare_python()}
    logs = (out / "cluster-logs").resolve()
    logs.mkdir(parents=True, exist_ok=True)
    port = free_port()
    url = f"spark://127.0.0.1:{port}"
    started: list[subprocess.Popen[bytes]] = []

    def launch(command: list[str], log: Path) -> subprocess.Popen[bytes]:
        with log.open("wb") as sink:
            process = subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT)
        started.append(process)
        return process

    try:
        web_port = free_port()
        master = launch(
            spark_class(
                "master.Master",
                *("--host", "127.0.0.1", "--port", str(port), "--webui-port", str(web_port)),
            ),
            logs / "master.log",
        )
        for number in range(workers):
            launch(
                spark_class(
                    "worker.Worker",
                    *("--host", "127.0.0.1", "--cores", "1", "--memory", "1g"),
                    *("--webui-port", str(free_port())),
                    *("--work-dir", str(logs / f"work-{number}")),
                    url,
                ),
                logs / f"worker-{number}.log",
            )
        wait_for_workers(web_port, workers, master)
        print(f"cluster: master {url}, {workers} workers registered", flush=True)
        yield url
    finally:
        for process in reversed(started):
            process.terminate()
        for process in reversed(started):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        print("cluster: stopped", flush=True)


def submit_command(url: str, archive: Path, out: Path, args: argparse.Namespace) -> list[str]:
    """spark-submit in client mode: the driver runs here, the executors run the archive's
    Python, and every output goes through `out`'s file:// URI."""
    return [
        str(spark_home() / "bin" / "spark-submit"),
        *("--master", url, "--conf", "spark.driver.host=127.0.0.1"),
        *("--conf", "spark.ui.showConsoleProgress=false"),
        *("--archives", f"{archive}#{environment.ALIAS}"),
        *("--conf", f"spark.pyspark.python={environment.WORKER_PYTHON}"),
        *("--conf", f"spark.pyspark.driver.python={sys.executable}"),
        str(Path(submit.__file__).resolve()),
        *("--interleavings", str(args.interleavings), "--seed", str(args.seed)),
        *("--per-scenario", str(args.per_scenario), "--output", out.resolve().as_uri()),
    ]


def shipped_pythons(out: Path) -> list[Path]:
    """The archive's Python as unpacked in each executor's working directory."""
    return sorted((out / "cluster-logs").glob(f"work-*/app-*/*/{environment.ALIAS}/bin/python"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--interleavings", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--per-scenario", type=int, default=200)
    parser.add_argument("--out", type=Path, default=Path("fuzz-cluster-out"))
    parser.add_argument("--env-cache", type=Path, default=environment.default_cache())
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    archive = environment.pack(args.env_cache)
    print(f"cluster: shipping {archive} ({archive.stat().st_size >> 20} MiB)", flush=True)
    with standalone_cluster(args.out) as url:
        command = submit_command(url, archive, args.out, args)
        result = subprocess.run(command, env=cluster_env(args.out), check=False)
    print(f"cluster: {len(shipped_pythons(args.out))} executors ran the shipped Python", flush=True)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
