"""swarmconf.fuzz: convergence campaigns for the config-merge design.

A pure core (scenario, schedule, run, check, shrink, replay) simulates clients racing to update
one config through a de-duplicating swarm and checks the properties P1-P6 on every interleaving;
`job` drives the core on Spark. Every case is derived from (campaign seed, scenario index,
schedule index) with a cryptographic hash, so any case replays exactly.
"""
