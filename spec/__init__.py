"""swarmconf.spec: the executable specifications, the oracles everything else is checked against.

- `swarmconf.spec.configmerge`: the config-merge design (bt messages, merge, signatures,
  encryption), one function per rule, citing the decisions D1..D32.
- `swarmconf.spec.kvgossip`: K/V Gossip (records, grant chains, revocations, tree hashes, sync
  sessions), pure and sans-I/O.

Nothing here imports another part of swarmconf.
"""
