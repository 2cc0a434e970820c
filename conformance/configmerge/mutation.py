"""How strong the config-merge vectors are: mutate the executable spec and count the mutants the
vectors kill (`make mutation`).

A mutant changes one thing in one module of `swarmconf.spec.configmerge`: an arithmetic, a
comparison or a boolean operator, a number, a `not` dropped, or a statement dropped (replaced
by `pass`). Sites are listed in source order and a fixed-seed sample is taken. Each mutant runs
in a child process that imports the mutated module in place of the real one (nothing is written
to disk) and runs `builtin:spec` over the vectors, smallest file first, stopping at the first
case that fails: the mutant is killed. A mutant that passes every case survives; one that runs
past the time limit is counted as killed (the vectors would hang on it).

    python -m swarmconf.conformance.configmerge.mutation --sample 120 --seed 1
"""

from __future__ import annotations

import argparse
import ast
import importlib.abc
import importlib.util
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

PACKAGE = "swarmconf.spec.configmerge"
TOOL = "swarmconf.conformance.configmerge.mutation"
MODULES = ("bt", "data", "diff", "encryption", "merge", "message", "signing")
"""The spec's rule modules; `examples`, `reasons` and `rules` hold data and names, not rules."""
VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "v1"

SWAPS: dict[type, type] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
    ast.And: ast.Or,
    ast.Or: ast.And,
}
DROPPABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.If, ast.For, ast.Raise)


@dataclass(frozen=True)
class Mutant:
    """One change: the `index`-th mutation site of `module`, described for the report."""

    module: str
    index: int
    line: int
    description: str


def _is_docstring(node: ast.AST) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)


def _sites(tree: ast.Module) -> Iterator[tuple[ast.AST, str]]:
    """Every mutable node of a module with what mutating it does, in a fixed order."""
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp | ast.BoolOp) and type(node.op) in SWAPS:
            yield node, f"{type(node.op).__name__} -> {SWAPS[type(node.op)].__name__}"
        elif isinstance(node, ast.Compare):
            for position, op in enumerate(node.ops):
                if type(op) in SWAPS:
                    yield (
                        node,
                        f"compare {position}: {type(op).__name__} -> {SWAPS[type(op)].__name__}",
                    )
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            yield node, f"number {node.value} -> {node.value + 1}"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield node, "drop `not`"
        elif isinstance(node, ast.FunctionDef):
            for statement in node.body:
                if isinstance(statement, DROPPABLE) and not _is_docstring(statement):
                    yield statement, f"drop the statement in {node.name}"


SPEC_DIR = Path(__file__).resolve().parents[2] / "spec" / "configmerge"


def source_of(module: str) -> str:
    return (SPEC_DIR / f"{module}.py").read_text(encoding="utf-8")


def list_mutants() -> list[Mutant]:
    return [
        Mutant(module, index, getattr(node, "lineno", 0), description)
        for module in MODULES
        for index, (node, description) in enumerate(_sites(ast.parse(source_of(module))))
    ]


class _Mutate(ast.NodeTransformer):
    def __init__(self, target: ast.AST, description: str) -> None:
        self.target = target
        self.description = description

    def visit(self, node: ast.AST) -> ast.AST:
        node = self.generic_visit(node)
        if node is not self.target:
            return node
        if isinstance(node, ast.BinOp | ast.BoolOp):
            node.op = SWAPS[type(node.op)]()
        elif isinstance(node, ast.Compare):
            position = int(self.description.split()[1].rstrip(":"))
            node.ops[position] = SWAPS[type(node.ops[position])]()
        elif isinstance(node, ast.Constant):
            assert type(node.value) is int
            node.value = node.value + 1
        elif isinstance(node, ast.UnaryOp):
            return node.operand
        else:
            return ast.copy_location(ast.Pass(), node)
        return node


def mutated_source(mutant: Mutant) -> str:
    tree = ast.parse(source_of(mutant.module))
    node, description = list(_sites(tree))[mutant.index]
    return ast.unparse(ast.fix_missing_locations(_Mutate(node, description).visit(tree)))


class _MutantLoader(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the mutated source for one spec module."""

    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.source = source

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def exec_module(self, module: ModuleType) -> None:
        exec(compile(self.source, f"<mutant of {self.name}>", "exec"), module.__dict__)


def vectors_pass(root: Path) -> bool:
    """Whether `builtin:spec` passes every case, smallest file first; stops at a failure."""
    from swarmconf.conformance.configmerge import NAME
    from swarmconf.conformance.configmerge.adapter import api_adapter
    from swarmconf.conformance.runner import PASSED, judge
    from swarmconf.conformance.vectors import cases_of, read_document, suite_of, vector_files

    adapter = api_adapter("spec")
    for path in sorted(vector_files(root), key=lambda path: Path(str(path)).stat().st_size):
        document = read_document(path)
        if document["header"]["design"] != NAME:
            continue
        for case in cases_of(document, suite_of(path)):
            try:
                answer = adapter.handle(case.request)
            except RecursionError:
                return False
            if judge(case, answer).status != PASSED:
                return False
    return True


def run_child(module: str, index: int, root: Path) -> int:
    """In the child: 1 if the vectors kill the mutant, 0 if it survives."""
    for name in [name for name in sys.modules if name.startswith(PACKAGE)]:
        del sys.modules[name]  # imported with this package: load the spec again, mutated
    if index >= 0:  # index -1: the spec as it is, the baseline every mutant is judged against
        source = mutated_source(Mutant(module, index, 0, ""))
        sys.meta_path.insert(0, _MutantLoader(f"{PACKAGE}.{module}", source))
    try:
        return 0 if vectors_pass(root) else 1
    except Exception:
        return 1  # the mutant does not even import or crashes the adapter


def killed(mutant: Mutant, root: Path, timeout: float) -> bool:
    argv = [sys.executable, "-m", TOOL, "--child", mutant.module, str(mutant.index)]
    try:
        done = subprocess.run([*argv, "--vectors", str(root)], timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return True
    return done.returncode != 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=120, help="mutants to run (default 120)")
    parser.add_argument("--seed", default="1", help="the sample's seed (default 1)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant")
    parser.add_argument("--vectors", type=Path, default=VECTORS)
    parser.add_argument("--json", type=Path, help="write the survivors here")
    parser.add_argument("--child", nargs=2, metavar=("MODULE", "INDEX"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return run_child(args.child[0], int(args.child[1]), args.vectors)
    if killed(Mutant(MODULES[0], -1, 0, "none"), args.vectors, args.timeout):
        print("the unmutated spec fails the vectors: nothing to measure", file=sys.stderr)
        return 1
    everything = list_mutants()
    sample = random.Random(args.seed).sample(everything, min(args.sample, len(everything)))
    survivors = []
    started = time.monotonic()
    for number, mutant in enumerate(sample, start=1):
        verdict = killed(mutant, args.vectors, args.timeout)
        if not verdict:
            survivors.append(mutant)
        status = "killed" if verdict else "SURVIVED"
        print(
            f"{number:4}/{len(sample)} {status:8} {mutant.module}:{mutant.line} #{mutant.index}"
            f" {mutant.description}",
            flush=True,
        )
    count = len(sample)
    print(
        f"{count - len(survivors)} of {count} mutants killed by the vectors"
        f" ({len(everything)} sites in {PACKAGE}, seed {args.seed},"
        f" {time.monotonic() - started:.0f} s)"
    )
    if args.json:
        args.json.write_text(json.dumps([m.__dict__ for m in survivors], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
