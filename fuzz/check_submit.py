"""The script `spark-submit` runs for a check:
`spark-submit --master URL check_submit.py [--driver-limit N] [swarmconf check options]`.

The master comes from spark-submit; everything else is `swarmconf check`. `--driver-limit N`
first: levels of at most N states run on the driver (`check_spark.DRIVER_LEVEL_LIMIT`; 0: every
level on the executors).
"""

import sys
from collections.abc import Sequence

from swarmconf.cli import main
from swarmconf.fuzz import check_spark


def run(argv: Sequence[str]) -> int:
    args = list(argv)
    if args[:1] == ["--driver-limit"]:
        check_spark.DRIVER_LEVEL_LIMIT = int(args[1])
        args = args[2:]
    return main(["check", *args])


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
