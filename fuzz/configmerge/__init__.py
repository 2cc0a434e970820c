"""swarmconf.fuzz.configmerge: the config-merge convergence campaign's pure core.

A scenario (who edits what) and a schedule (one interleaving of their events) are run through a
de-duplicating swarm (`run`), and the properties P1-P6 are checked on every interleaving; the P4
oracle works from the edits, not from merge code. `shrink` minimises a failing case and `case`
replays it.
"""
