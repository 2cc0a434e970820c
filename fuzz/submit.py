"""The script `spark-submit` runs: `spark-submit --master URL submit.py [fuzz options]`.

The master comes from spark-submit; everything else is `swarmconf fuzz`.
"""

import sys

from swarmconf.cli import main

if __name__ == "__main__":
    sys.exit(main(["fuzz", *sys.argv[1:]]))
