"""swarmconf.kvgossip: the K/V Gossip specification and its reference node."""
