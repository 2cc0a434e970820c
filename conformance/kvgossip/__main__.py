"""`python -m swarmconf.conformance.kvgossip [ROOT]`: write the K/V Gossip vectors."""

import sys
from pathlib import Path

from . import write_all

write_all(Path(sys.argv[1] if len(sys.argv) > 1 else "vectors/v1"))
