"""swarmconf: the reference for the config-merge and K/V Gossip designs."""

from swarmconf.compiled import guard_compiled_modules

__version__ = "0.1.0"

guard_compiled_modules()
