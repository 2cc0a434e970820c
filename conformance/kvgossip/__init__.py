"""The K/V Gossip conformance vectors: the generator of every K/V suite (`suites.build_all`),
the spec runner answering the `kv_*` operations, and the design's registration
(`design.DESIGN`). The same code gives the same bytes.
"""

NAME = "kvgossip"
"""The design's name in vector headers and on the command line."""
PREFIX = "kvgossip_"
"""K/V suite ids carry the design's name (`kvgossip_chains`)."""
