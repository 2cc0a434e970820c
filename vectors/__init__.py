"""The conformance vectors as files, the distribution swarmconf-vectors: `v1/` holds the
generated vector files of both designs, their schemas and COVERAGE.md (`make vectors` writes
them; never edit them by hand). The runner reads them through `importlib.resources`
(`swarmconf.conformance.vectors.bundled_vectors`)."""
