"""Imports go only downward and never in a circle; shared modules name no design; one path a file.

Every module of the installed package is parsed with `ast` (no import runs), and each import
statement, wherever it sits (top level, function body, `if TYPE_CHECKING:`), is an edge to the
deepest project module it names. The layers, bottom up:

- `swarmconf` (the version), `swarmconf.compiled` (which modules are compiled, and the switch
  to their sources), `swarmconf.layout` (which folders the package is made of) and
  `swarmconf.cliutil` (the command line's shared conventions);
- `spec`: each design's spec imports only its own design and `spec`'s shared top;
- `reference`: may import `spec`;
- `conformance`: may import `spec` and `reference`;
- `fuzz`: may import `spec`, `reference` and `conformance` (campaigns drive clients through the
  conformance adapter protocol), never the other way round;
- `swarmconf.cli`: the composition root, imported only by the entry points.

The shared modules (each role's top, the bottom layer and the command line) know no design: each
design registers what it provides, so none of them imports a design's module or spells a
design's name in its code (its docstrings may). No folder of the package is a link.
"""

from __future__ import annotations

import ast
import graphlib
import os
from pathlib import Path

import pytest

import swarmconf
from swarmconf.layout import package_folders

PACKAGE = "swarmconf"
REPOSITORY = Path(swarmconf.__file__).resolve().parents[2]

# What each part may import, besides itself and the bottom layer.
ALLOWED: dict[str, frozenset[str]] = {
    "spec": frozenset(),
    "reference": frozenset({"spec"}),
    "conformance": frozenset({"spec", "reference"}),
    "fuzz": frozenset({"spec", "reference", "conformance"}),
    "cli": frozenset({"spec", "reference", "conformance", "fuzz"}),
}
BOTTOM = frozenset({PACKAGE, f"{PACKAGE}.compiled", f"{PACKAGE}.cliutil", f"{PACKAGE}.layout"})
DESIGNS = ("configmerge", "kvgossip")
# The scripts that start the command line: `python -m swarmconf` and spark-submit's scripts
# (the fuzz campaign's and the check's).
ENTRY_POINTS = frozenset(
    {f"{PACKAGE}.__main__", f"{PACKAGE}.fuzz.submit", f"{PACKAGE}.fuzz.check_submit"}
)


def module_files() -> dict[str, Path]:
    """Every module of the package by dotted name, from the folders it is installed from."""
    modules: dict[str, Path] = {}
    top, *roles = package_folders(REPOSITORY)
    for base, prefix in [(top, [PACKAGE]), *((role, [PACKAGE, role.name]) for role in roles)]:
        for folder, _, files in os.walk(base):
            for file in files:
                if not file.endswith(".py"):
                    continue
                path = Path(folder) / file
                parts = [*prefix, *path.relative_to(base).with_suffix("").parts]
                if parts[-1] == "__init__":
                    parts.pop()
                modules[".".join(parts)] = path
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


def is_shared(module: str) -> bool:
    """Whether `module` serves every design: it lies in no design's subpackage."""
    return design_of(module) is None


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants that are docstrings (of a module, class or function, or
    of an attribute: a string statement right after an assignment)."""
    found = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            found |= {id(s.value) for s in body if isinstance(s, ast.Expr)}
    return found


def design_names_in(path: Path) -> list[str]:
    """Where the code of `path` spells a design's name: identifiers, imported names and strings
    that are not docstrings."""
    tree = ast.parse(path.read_text(), str(path))
    skipped = docstrings(tree)
    found = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, ast.alias):
            words = [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            words = [node.module or ""]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            words = [node.name]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            words = [] if id(node) in skipped else [node.value]
        for word in words:
            for design in DESIGNS:
                if design in word.lower():
                    found.append(f"{path.name}:{getattr(node, 'lineno', '?')}: {design}")
    return found


BUILD_MANIFEST = f"{PACKAGE}.compiled"
"""Names the modules mypyc compiles, for setup.py before anything is importable: the one shared
module that lists design modules by name."""


def test_no_shared_module_names_a_design() -> None:
    named = [
        f"{module} {line}"
        for module, path in sorted(MODULES.items())
        if is_shared(module) and module != BUILD_MANIFEST
        for line in design_names_in(path)
    ]
    assert not named, "\n".join(named)


def test_a_design_name_is_found_in_code_but_not_in_a_docstring(tmp_path: Path) -> None:
    module = tmp_path / "shared.py"
    module.write_text('"""Serves configmerge and kvgossip."""\nCAMPAIGNS = ["x"]\n')
    assert design_names_in(module) == []
    module.write_text('"""Shared."""\nfrom .kvgossip import run\nNAME = "configmerge.cli"\n')
    assert design_names_in(module) == ["shared.py:2: kvgossip", "shared.py:3: configmerge"]
    module.write_text('HELP = "merges config-merge messages and K/V Gossip records"\n')
    assert design_names_in(module) == []


def test_no_folder_or_file_of_the_package_is_a_link() -> None:
    links = [
        str(path.relative_to(REPOSITORY))
        for folder in package_folders(REPOSITORY)
        for path in [folder, *folder.rglob("*")]
        if path.is_symlink()
    ]
    assert not links, links


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
