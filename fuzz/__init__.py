"""swarmconf.fuzz: fuzz campaigns, driven on Spark, for both designs.

- `swarmconf.fuzz.configmerge`: clients racing to update one config through a de-duplicating
  swarm, checked for P1-P6 on every interleaving (scenario, schedule, run, oracle, shrink).
- `swarmconf.fuzz.kvgossip`: a deterministic simulated network running the K/V Gossip spec.

Each design registers its kinds of campaign as records (`campaigns`, through the
`swarmconf.campaigns` entry-point group). At the top, shared by every design and naming none:
`job` (the Spark campaign), `report`, `report_page`, `cli` (run, replay, shrink), `cluster`,
`hostile` (what hostile-input campaigns share), `rows`, `ddmin`. Every case is derived from
(campaign seed, case index) with a cryptographic hash, so any case replays exactly.
"""
