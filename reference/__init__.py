"""swarmconf.reference: the implementations people run, each checked against `swarmconf.spec`.

- `swarmconf.reference.configmerge`: the fast config-merge library (the same API as
  `swarmconf.spec.configmerge`) and its `swarmconf merge|show|diff|...` commands.
- `swarmconf.reference.kvgossip`: the K/V Gossip node on real Serf agents and SQLite, and its
  `swarmconf kv ...` commands.
"""
