"""swarmconf.fuzz: fuzz campaigns, driven on Spark, for both designs.

- `swarmconf.fuzz.configmerge`: clients racing to update one config through a de-duplicating
  swarm, checked for P1-P6 on every interleaving (scenario, schedule, run, oracle, shrink).
- `swarmconf.fuzz.kvgossip`: a deterministic simulated network running the K/V Gossip spec.

At the top, shared by both: `job` (the Spark campaign), `report`, `cli`, `cluster`, `seeds`.
Every case is derived from (campaign seed, case index) with a cryptographic hash, so any case
replays exactly.
"""
