"""The conformance vectors as files: `v1/` holds the generated vector files, their schemas and
COVERAGE.md (`make vectors` writes them; never edit them by hand). Installed as the data
package `swarmconf.vectors`, read through `importlib.resources`."""
