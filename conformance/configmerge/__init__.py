"""The config-merge conformance vectors: the generator of every config-merge suite
(`suites.build_suites`), the operations and handlers of the built-in adapter, and the design's
registration (`design.DESIGN`).

Each module of `suites` writes one vector file's cases with the shared builder
(`swarmconf.conformance.builder`); `vocabulary` answers them with `swarmconf.spec.configmerge`.
"""

NAME = "configmerge"
"""The design's name in vector headers and on the command line."""
PREFIX = ""
"""Config-merge suite ids are their names (`merges`)."""
