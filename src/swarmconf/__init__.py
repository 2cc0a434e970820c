"""swarmconf: the reference for the config-merge and K/V Gossip designs."""

__version__ = "0.1.0"
