"""swarmconf.conformance: the vector schema, the vector generator, and the conformance runner.

The runner drives any client through the JSON-lines adapter protocol described in
`PROTOCOL.md`; `builtin:spec` and `builtin:reference` are adapters over this project's own
implementations of the API contract.
"""
