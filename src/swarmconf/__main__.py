"""`python -m swarmconf`: the `swarmconf` command line."""

import sys

from swarmconf.cli import main

sys.exit(main())
