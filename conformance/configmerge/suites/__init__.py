"""Every config-merge suite, one module per vector file, in file order; each module's `build`
gives its suite and `swarmconf vectors generate` writes it as `<name>_test.json`."""

from __future__ import annotations

from importlib import import_module

from swarmconf.conformance.vectors import Suite

NAMES = (
    "bt_encoding",
    "data_validation",
    "message_parse",
    "serialization",
    "diffs",
    "increment",
    "ignore_rules",
    "merges",
    "merges_exhaustive",
    "signatures",
    "encryption",
    "payload",
    "design_examples",
    "client_steps",
    "parse_loops",
    "spec_edges",
)


def build_suites() -> list[Suite]:
    return [import_module(f"{__name__}.{name}").build() for name in NAMES]
