"""swarmconf.reference: the fast merger and the command line."""
