"""swarmconf.conformance: the vector format, the vector generators and the conformance runner.

The runner drives any client through the JSON-lines adapter protocol described in
`PROTOCOL.md`; `builtin:spec` and `builtin:reference` are adapters over this project's own
implementations. Each design is a subpackage that registers its suites, operations and
handlers with `registry` (the `swarmconf.conformance` entry points); the modules here serve
every design alike.
"""
