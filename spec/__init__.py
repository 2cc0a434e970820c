"""swarmconf.spec: the executable specification of the config-merge design."""
