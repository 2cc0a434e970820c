"""swarmconf.conformance: the vector format, the vector generators and the conformance runner.

The runner drives any client through the JSON-lines adapter protocol described in
`PROTOCOL.md`; `builtin:spec` and `builtin:reference` are adapters over this project's own
implementations. Each design's vector generator is a subpackage:
`swarmconf.conformance.configmerge` and `swarmconf.conformance.kvgossip`.
"""
