"""Imports go only downward and never in a circle.

Every module of the installed package is parsed with `ast` (no import runs), and each import
statement, wherever it sits (top level, function body, `if TYPE_CHECKING:`), is an edge to the
deepest project module it names. The layers, bottom up:

- `swarmconf` (the version), `swarmconf.compiled` (which modules are compiled, and the switch
  to their sources) and `swarmconf.cliutil` (the command line's shared conventions);
- `spec`: each design's spec imports only its own design and `spec`'s shared top;
- `reference`: may import `spec`;
- `conformance`: may import `spec` and `reference`;
- `fuzz`: may import `spec`, `reference` and `conformance` (campaigns drive clients through the
  conformance adapter protocol), never the other way round;
- `swarmconf.cli`: the composition root, imported only by the entry points.
"""

from __future__ import annotations

import ast
import graphlib
import os
from pathlib import Path

import pytest

import swarmconf

PACKAGE = "swarmconf"
ROOT = Path(swarmconf.__file__).resolve().parent

# What each part may import, besides itself and the bottom layer.
ALLOWED: dict[str, frozenset[str]] = {
    "spec": frozenset(),
    "reference": frozenset({"spec"}),
    "conformance": frozenset({"spec", "reference"}),
    "fuzz": frozenset({"spec", "reference", "conformance"}),
    "cli": frozenset({"spec", "reference", "conformance", "fuzz"}),
}
BOTTOM = frozenset({PACKAGE, f"{PACKAGE}.compiled", f"{PACKAGE}.cliutil"})
DESIGNS = ("configmerge", "kvgossip")
# The scripts that start the command line: `python -m swarmconf` and spark-submit's script.
ENTRY_POINTS = frozenset({f"{PACKAGE}.__main__", f"{PACKAGE}.fuzz.submit"})


def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name, following the role folders' symlinks."""
    modules: dict[str, Path] = {}
    for folder, _, files in os.walk(ROOT, followlinks=True):
        for file in files:
            if not file.endswith(".py"):
                continue
            path = Path(folder) / file
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([PACKAGE, *parts])] = path
    return modules


MODULES = module_files()


def resolve(name: str) -> str | None:
    """The deepest project module that `name` (a module or a name inside one) refers to."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(module: str, path: Path) -> set[str]:
    """The project modules `module` imports, by any import statement anywhere in it."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, *([base] if base else [])])
            names = [f"{base}.{alias.name}" for alias in node.names]
        for name in names:
            target = resolve(name)
            if target is not None and target != module:
                found.add(target)
    return found


GRAPH = {module: imports_of(module, path) for module, path in MODULES.items()}


def part_of(module: str) -> str:
    """The layer a module belongs to: spec, reference, conformance, fuzz, cli, or bottom."""
    if module in BOTTOM:
        return "bottom"
    if module in (f"{PACKAGE}.cli", f"{PACKAGE}.__main__"):
        return "cli"
    return module.split(".")[1]


def design_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[2] in DESIGNS else None


def violation(source: str, target: str) -> str | None:
    """Why the edge `source -> target` breaks the layering, or None if it is allowed."""
    if target == f"{PACKAGE}.cli" and source not in ENTRY_POINTS:
        return "only the entry points import swarmconf.cli"
    if source in ENTRY_POINTS:
        return None
    source_part, target_part = part_of(source), part_of(target)
    if target_part == "bottom" or target_part == source_part:
        if source_part == "spec" and target_part == "spec":
            source_design, target_design = design_of(source), design_of(target)
            if target_design is not None and target_design != source_design:
                return "a design's spec imports only its own design"
        return None
    if source_part == "bottom":
        return "the bottom layer imports nothing of the project"
    if target_part not in ALLOWED[source_part]:
        return f"{source_part} may import only {sorted(ALLOWED[source_part]) or 'itself'}"
    return None


def test_the_graph_sees_every_part() -> None:
    parts = {part_of(module) for module in MODULES}
    assert {"spec", "reference", "conformance", "fuzz", "cli", "bottom"} <= parts
    reference = GRAPH[f"{PACKAGE}.reference.configmerge.message"]
    assert f"{PACKAGE}.spec.configmerge.reasons" in reference


def test_no_upward_import() -> None:
    broken = [
        f"{source} -> {target}: {reason}"
        for source, targets in sorted(GRAPH.items())
        for target in sorted(targets)
        if (reason := violation(source, target)) is not None
    ]
    assert not broken, "\n".join(broken)


def test_no_import_cycle() -> None:
    try:
        graphlib.TopologicalSorter(GRAPH).prepare()
    except graphlib.CycleError as error:
        cycle = error.args[1]
        pytest.fail("import cycle: " + " -> ".join(reversed(cycle)))


@pytest.mark.parametrize(
    ("source", "target", "allowed"),
    [
        ("swarmconf.spec.configmerge.merge", "swarmconf.spec.configmerge.bt", True),
        ("swarmconf.spec.configmerge.merge", "swarmconf.spec.kvgossip.keys", False),
        ("swarmconf.spec.kvgossip.keys", "swarmconf.reference.kvgossip.node", False),
        ("swarmconf.reference.configmerge.cli", "swarmconf.cliutil", True),
        ("swarmconf.reference.configmerge.cli", "swarmconf.fuzz.job", False),
        ("swarmconf.fuzz.job", "swarmconf.reference.configmerge.merge", True),
        ("swarmconf.fuzz.client", "swarmconf.conformance.client", True),
        ("swarmconf.conformance.runner", "swarmconf.fuzz.job", False),
        ("swarmconf.fuzz.job", "swarmconf.cli", False),
        ("swarmconf.cliutil", "swarmconf.spec.configmerge.reasons", False),
        ("swarmconf.__main__", "swarmconf.cli", True),
    ],
)
def test_the_rules_tell_edges_apart(source: str, target: str, allowed: bool) -> None:
    assert (violation(source, target) is None) == allowed
