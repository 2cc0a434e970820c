"""swarmconf: the reference for the config-merge and K/V Gossip designs."""

from swarmconf.compiled import honour_pure_python_switch

__version__ = "0.1.0"

honour_pure_python_switch()
