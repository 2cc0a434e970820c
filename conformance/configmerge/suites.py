"""Every config-merge suite, in file order; `swarmconf vectors generate` writes one file each."""

from __future__ import annotations

from collections.abc import Callable

from swarmconf.conformance.configmerge import (
    cat_bt,
    cat_data,
    cat_diff,
    cat_encryption,
    cat_examples,
    cat_exhaustive,
    cat_increment,
    cat_merge,
    cat_parse,
    cat_payload,
    cat_serialize,
    cat_signatures,
)
from swarmconf.conformance.vectors import Suite

BUILDERS: list[Callable[[], Suite]] = [
    cat_bt.build,
    cat_data.build,
    cat_parse.build,
    cat_serialize.build,
    cat_diff.build,
    cat_increment.build,
    cat_merge.ignore_rules,
    cat_merge.merges,
    cat_exhaustive.build,
    cat_signatures.build,
    cat_encryption.build,
    cat_payload.build,
    cat_examples.build,
]


def build_suites() -> list[Suite]:
    return [build() for build in BUILDERS]
