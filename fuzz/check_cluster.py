"""`swarmconf check` on a Spark standalone cluster on 127.0.0.1: the fuzz campaign's master and
two one-core workers (`cluster.standalone_cluster`), whose own Python cannot import swarmconf;
the packed environment shipped with `--archives`, the outputs written through a `file://` URI
as they would be to `hdfs://` or `s3a://`.

    python -m swarmconf.fuzz.check_cluster --out check-cluster-out -- --clients 3 --edits 1
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from . import check_submit, environment
from .cluster import cluster_env, spark_home, standalone_cluster

RESULT = "check"
"""The folder under `--out` the check's outputs are published to (through its URI)."""


def submit_command(
    url: str, archive: Path, out: Path, driver_limit: int | None, check_args: Sequence[str]
) -> list[str]:
    """spark-submit in client mode: the driver runs here, the executors run the archive's
    Python, and the outputs go through `out / RESULT`'s file:// URI."""
    limit = [] if driver_limit is None else ["--driver-limit", str(driver_limit)]
    return [
        str(spark_home() / "bin" / "spark-submit"),
        *("--master", url, "--conf", "spark.driver.host=127.0.0.1"),
        *("--conf", "spark.ui.showConsoleProgress=false"),
        *("--archives", f"{archive}#{environment.ALIAS}"),
        *("--conf", f"spark.pyspark.python={environment.WORKER_PYTHON}"),
        *("--conf", f"spark.pyspark.driver.python={sys.executable}"),
        str(Path(check_submit.__file__).resolve()),
        *limit,
        *check_args,
        *("--master", url, "--output", (out / RESULT).resolve().as_uri()),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("check-cluster-out"))
    parser.add_argument("--env-cache", type=Path, default=environment.default_cache())
    parser.add_argument(
        "--driver-limit", type=int, help="levels of at most this many states run on the driver"
    )
    parser.add_argument("check", nargs="*", help="swarmconf check's options (after --)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    archive = environment.pack(args.env_cache)
    print(f"cluster: shipping {archive} ({archive.stat().st_size >> 20} MiB)", flush=True)
    with standalone_cluster(args.out) as url:
        command = submit_command(url, archive, args.out, args.driver_limit, args.check)
        result = subprocess.run(command, env=cluster_env(args.out), check=False)
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
