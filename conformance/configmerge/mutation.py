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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from swarmconf.conformance.vectors import VectorsNotInstalled, bundled_vectors

PACKAGE = "swarmconf.spec.configmerge"
TOOL = "swarmconf.conformance.configmerge.mutation"
MODULES = (
    "bt",
    "data",
    "diff",
    "encryption",
    "merge",
    "message",
    "signing",
    "compression",
    "parts",
    "payload",
    "obsolete",
    "client",
)
"""The spec's rule modules; `examples`, `reasons` and `rules` hold data and names, not rules."""
FIRST_SUITES: dict[str, tuple[str, ...]] = {
    "compression": ("payload",),
    "parts": ("payload",),
    "payload": ("payload",),
    "encryption": ("encryption", "payload"),
    "signing": ("signatures",),
    "obsolete": ("ignore_rules", "merges"),
    "client": ("client_steps",),
}
"""The vector files run first on a module's mutants, the ones most likely to kill them fast;
the rest follow, smallest first."""

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

_NOT_SPLIT = (
    "unreachable: only a client that does not split (X11, `multipart=False`) refuses a push;"
    " swarmconf's answers split"
)
_DEPLOYED_DELETES = (
    "unreachable: models the deployed client (X12) for the fuzz campaign's mutant and the"
    " reference; no answer of swarmconf's uses it (its unit tests check it)"
)
_PADDED_SIZES = (
    "equivalent: above 40,920 bytes a padded payload is 5,120k - 40 bytes (D19), so none is"
    " exactly 5,000,000 and none lies between 76,760 and 81,880"
)
_DIGITS = "equivalent: digits_until runs only on the way to a refusal; its position is not read"
_DEEPCOPY = (
    "equivalent: copy.deepcopy copies dicts, sets, integers and byte strings to equal values"
)
_ONE_KIND = "equivalent: reached only when both values are of one kind (kind_of)"
_CHUNKS = "equivalent: at 5,120, 20,480 and 40,960 bytes, both chunk sizes divide the total (D19)"
_ASSERTED = "equivalent: an assertion of what the checks before it established"
_DETAIL = "equivalent: the refusal's detail text, which no answer holds (reason codes only, X5)"
_JSON_INTEGER = "unreachable: a request's seqno is a JSON integer (the schema refuses booleans)"
EQUIVALENT: dict[tuple[str, str, str], str] = {
    (
        "bt",
        "self.pos += 1",
        "drop the statement in digits_until",
    ): _DIGITS,
    (
        "bt",
        "self.pos += 1",
        "number 1 -> 2",
    ): _DIGITS,
    (
        "data",
        "if isinstance(value, dict): return {key: _copied(item) for key, item in value.items()}",
        "drop the statement in _copied",
    ): _DEEPCOPY,
    (
        "data",
        "if isinstance(value, set) and all(isinstance(element, int | bytes) for element in valu"
        "e): return set",
        "drop the statement in _copied",
    ): _DEEPCOPY,
    (
        "data",
        "if isinstance(value, int | bytes): return value",
        "drop the statement in _copied",
    ): _DEEPCOPY,
    (
        "data",
        "return (True, 0, element)",
        "number 0 -> 1",
    ): "equivalent: the middle field orders integers only; any constant does for byte strings",
    (
        "diff",
        "if isinstance(old, dict) and isinstance(new, dict):",
        "And -> Or",
    ): _ONE_KIND,
    (
        "diff",
        "if isinstance(old, set) and isinstance(new, set):",
        "And -> Or",
    ): _ONE_KIND,
    (
        "diff",
        'return "scalar" if value is not None else "absent"',
        "compare 0: IsNot -> Is",
    ): "equivalent: the labels of a scalar and of no value swap; kinds are only compared to kinds",
    (
        "diff",
        "if isinstance(entry, dict) and isinstance(value, dict):",
        "And -> Or",
    ): "equivalent: the diff checked is made from that data: an entry is a dict where the value is",
    (
        "encryption",
        "if total < 5120:",
        "compare 0: Lt -> LtE",
    ): _CHUNKS,
    (
        "encryption",
        "if total < 5120:",
        "number 5120 -> 5121",
    ): _CHUNKS,
    (
        "encryption",
        "elif total < 20480:",
        "compare 0: Lt -> LtE",
    ): _CHUNKS,
    (
        "encryption",
        "elif total < 20480:",
        "number 20480 -> 20481",
    ): _CHUNKS,
    (
        "encryption",
        "elif total < 40960:",
        "compare 0: Lt -> LtE",
    ): _CHUNKS,
    (
        "encryption",
        "elif total < 40960:",
        "number 40960 -> 40961",
    ): _CHUNKS,
    (
        "message",
        'if not isinstance(data, bytes): raise UsageError(Reason.BAD_VALUE_TYPE, "a message is '
        'bytes")',
        "drop the statement in parse",
    ): "unreachable: the protocol hands every message over as bytes",
    (
        "message",
        "DEFAULT_LAG = 5",
        "number 5 -> 6",
    ): "unreachable: the Python API's default lag; every request names its lag",
    (
        "message",
        "if isinstance(seqno, bool) or not isinstance(seqno, int): raise UsageError(Reason.BAD_"
        'VALUE_TYPE, "s',
        "drop the statement in new",
    ): _JSON_INTEGER,
    (
        "message",
        "if isinstance(seqno, bool) or not isinstance(seqno, int):",
        "Or -> And",
    ): _JSON_INTEGER,
    (
        "message",
        "assert isinstance(entry_seqno, int) and isinstance(entry_hash, bytes)",
        "And -> Or",
    ): _ASSERTED,
    (
        "message",
        "assert isinstance(item, list) and isinstance(item[0], int)",
        "And -> Or",
    ): _ASSERTED,
    (
        "message",
        'return f"ConfigMessage(seqno={self.seqno}, hash={self.hash.hex()[:16]}…)"',
        "number 16 -> 17",
    ): "equivalent: the debugging representation, in no answer",
    (
        "message",
        'require(len(kept) < 2 or kept[-2][:2] < kept[-1][:2], Reason.LAGGED_UNSORTED, f"{item['
        '0]}")',
        "number 0 -> 1",
    ): _DETAIL,
    (
        "message",
        'require(len(kept) < 2 or kept[-2][:2] < kept[-1][:2], Reason.LAGGED_UNSORTED, f"{item['
        '0]}")',
        "number 2 -> 3",
    ): "equivalent: a tuple equal to a shorter one in its first fields is greater: same refusals",
    ("compression", "DEFAULT_LEVEL = 1", "number 1 -> 2"): (
        "unreachable: the Python API's default level; the protocol's `wrap` names its level"
        " (none: no compression)"
    ),
    ("compression", "READ_SIZE = 1 << 16", "number 1 -> 2"): (
        "equivalent: the bound is checked on the running total, so any read size refuses"
        " exactly the outputs over it"
    ),
    ("compression", "READ_SIZE = 1 << 16", "number 16 -> 17"): (
        "equivalent: the read size, as above"
    ),
    ("compression", "return None if size < 0 else size", "compare 0: Lt -> LtE"): (
        "equivalent: an announced size of 0 read as none: both pass the bound and are inflated"
    ),
    ("compression", "return None if size < 0 else size", "number 0 -> 1"): ("equivalent: as above"),
    ("parts", "return len(padded) + ENCRYPTION_OVERHEAD > MAX_BLOB_SIZE", "Add -> Sub"): (
        _PADDED_SIZES
    ),
    (
        "parts",
        'payload_hash(padded) == found[0].hash, PayloadReason.PARTS_HASH_MISMATCH, "joined"',
        "number 0 -> 1",
    ): "equivalent: parts are collected by their hash, so every part of a set carries one",
    (
        "payload",
        'len(padded) <= MAX_PAYLOAD_SIZE, PayloadReason.PAYLOAD_TOO_LARGE, "the padded payload"',
        "compare 0: LtE -> Lt",
    ): _PADDED_SIZES,
    (
        "payload",
        'require_payload(len(blob) <= MAX_BLOB_SIZE, PayloadReason.PUSH_TOO_LARGE, f"{len(blob)}'
        ' bytes")',
        "drop the statement in check_blob_size",
    ): _NOT_SPLIT,
    (
        "payload",
        'require_payload(len(blob) <= MAX_BLOB_SIZE, PayloadReason.PUSH_TOO_LARGE, f"{len(blob)}'
        ' bytes")',
        "compare 0: LtE -> Lt",
    ): _NOT_SPLIT,
    (
        "payload",
        'if not multipart: blob = encrypt(padded, key, profile="libsession", domain=domain)'
        " check_blob_size(b",
        "drop the statement in wrap",
    ): _NOT_SPLIT,
    (
        "payload",
        "joined[positions[0]] = read_joined(parts.join_parts(chunks, MAX_PAYLOAD_SIZE))",
        "number 0 -> 1",
    ): (
        "equivalent: a joined message's position only orders the messages found, and `unwrap`"
        " answers only when there is one"
    ),
    (
        "payload",
        'raise cls(first.reason, f"blob {first.blobs[0] + 1} of {len(blobs)}")',
        "Add -> Sub",
    ): "equivalent: the refusal's detail text, which no answer holds (reason codes only, X5)",
    (
        "payload",
        'raise cls(first.reason, f"blob {first.blobs[0] + 1} of {len(blobs)}")',
        "number 1 -> 2",
    ): "equivalent: the refusal's detail text, as above",
}
"""Mutants no vector can tell from the spec, by module, what they change (`line_of`) and the
change, each with why: equivalent on every input the protocol can send, or unreachable through
it. Left out of the score; the coverage page lists them."""
_JOINED_OVER = "parts of over 5,000,000 bytes to `unwrap` (66 blobs of 76,800)"
UNREACHABLE_FUNCTIONS: dict[tuple[str, str], str] = {
    ("obsolete", "deployed_obsolete_after_merge"): _DEPLOYED_DELETES,
}
"""Functions of the spec no answer of swarmconf's uses, by module: every mutant in them."""
LARGE_INPUT: dict[tuple[str, str, str], str] = {
    (
        "parts",
        'require_payload(size <= limit, PayloadReason.PAYLOAD_TOO_LARGE, f"{size} bytes")',
        "drop the statement in join_parts",
    ): _JOINED_OVER,
    (
        "parts",
        'require_payload(size <= limit, PayloadReason.PAYLOAD_TOO_LARGE, f"{size} bytes")',
        "compare 0: LtE -> Lt",
    ): "parts of exactly 5,000,000 bytes to `unwrap`",
}
"""Mutants of a bound that only a vector with megabytes of ciphertext could kill (parts joining
to 5,000,000 bytes and more: no recipe expresses ciphertext, and 66 blobs of hex would grow the
vectors by 10 MB): counted as survivors, not sampled by the tests; `test_payload_limits` kills
them through the spec's and the reference's API."""


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


def run_order(paths: list[Path], module: str) -> list[Path]:
    """The vector files in the order a mutant of `module` runs them: its suites first, then
    the others smallest first."""
    first = [f"{suite}_test.json" for suite in FIRST_SUITES.get(module, ())]

    def key(path: Path) -> tuple[int, int]:
        name = Path(str(path)).name
        rank = first.index(name) if name in first else len(first)
        return rank, Path(str(path)).stat().st_size

    return sorted(paths, key=key)


def vectors_pass(root: Path, module: str = "") -> bool:
    """Whether `builtin:spec` passes every case, `module`'s suites first; stops at a failure."""
    from swarmconf.conformance.configmerge import NAME
    from swarmconf.conformance.configmerge.adapter import api_adapter
    from swarmconf.conformance.recipes import expand_fields
    from swarmconf.conformance.runner import PASSED, judge
    from swarmconf.conformance.vectors import cases_of, read_document, suite_of, vector_files

    adapter = api_adapter("spec")
    for path in run_order([Path(str(path)) for path in vector_files(root)], module):
        document = read_document(path)
        if document["header"]["design"] != NAME:
            continue
        for case in cases_of(document, suite_of(path)):
            try:
                answer = adapter.handle(expand_fields(case.request))
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
        return 0 if vectors_pass(root, module) else 1
    except Exception:
        return 1  # the mutant does not even import or crashes the adapter


def killed(mutant: Mutant, root: Path, timeout: float) -> bool:
    argv = [sys.executable, "-m", TOOL, "--child", mutant.module, str(mutant.index)]
    try:
        done = subprocess.run([*argv, "--vectors", str(root)], timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return True
    return done.returncode != 0


def line_of(mutant: Mutant) -> str:
    """What a mutant changes, as stable as its description: a dropped statement's text, or the
    line of an operator or a number, whitespace collapsed and cut at 100 characters."""
    source = source_of(mutant.module)
    node, _ = list(_sites(ast.parse(source)))[mutant.index]
    if isinstance(node, ast.stmt):
        text = ast.get_source_segment(source, node) or ""
    else:
        text = source.splitlines()[mutant.line - 1]
    return " ".join(text.split())[:100]


def function_of(mutant: Mutant) -> str:
    """The innermost function a mutant changes, or "" at module level."""
    within = [
        function.name
        for function in ast.walk(ast.parse(source_of(mutant.module)))
        if isinstance(function, ast.FunctionDef)
        and function.lineno <= mutant.line <= (function.end_lineno or function.lineno)
    ]
    return within[-1] if within else ""


def equivalent(mutant: Mutant) -> str | None:
    """Why no vector can tell the mutant from the spec, if it is listed (`EQUIVALENT`) or in a
    function no answer uses (`UNREACHABLE_FUNCTIONS`)."""
    unreachable = UNREACHABLE_FUNCTIONS.get((mutant.module, function_of(mutant)))
    return unreachable or EQUIVALENT.get((mutant.module, line_of(mutant), mutant.description))


def large_input(mutant: Mutant) -> str | None:
    """Why only a vector with a large input kills the mutant, if it is listed so."""
    return LARGE_INPUT.get((mutant.module, line_of(mutant), mutant.description))


def chosen(modules: Sequence[str], sample: int | None, seed: str) -> list[Mutant]:
    """Every mutant of `modules` (`sample` None), or a fixed-seed sample of them."""
    everything = [mutant for mutant in list_mutants() if mutant.module in modules]
    if sample is None or sample >= len(everything):
        return everything
    return random.Random(seed).sample(everything, sample)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=120, help="mutants to run (default 120)")
    parser.add_argument("--all", action="store_true", help="run every mutant, not a sample")
    parser.add_argument("--module", action="append", choices=MODULES, help="only this module")
    parser.add_argument("--seed", default="1", help="the sample's seed (default 1)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument(
        "--vectors", type=Path, help="the vector folder (default: the installed swarmconf-vectors)"
    )
    parser.add_argument("--json", type=Path, help="write the survivors here")
    parser.add_argument("--child", nargs=2, metavar=("MODULE", "INDEX"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        args.vectors = args.vectors or Path(str(bundled_vectors()))
    except VectorsNotInstalled as missing:
        print(f"swarmconf mutation: {missing}", file=sys.stderr)
        return 2
    if args.child:
        return run_child(args.child[0], int(args.child[1]), args.vectors)
    if killed(Mutant(MODULES[0], -1, 0, "none"), args.vectors, args.timeout):
        print("the unmutated spec fails the vectors: nothing to measure", file=sys.stderr)
        return 1
    modules = args.module or MODULES
    sample = chosen(modules, None if args.all else args.sample, args.seed)
    survivors: list[Mutant] = []
    equivalents: list[Mutant] = []
    started = time.monotonic()
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        verdicts = pool.map(lambda mutant: killed(mutant, args.vectors, args.timeout), sample)
        for number, (mutant, verdict) in enumerate(zip(sample, verdicts, strict=True), start=1):
            why = None if verdict else equivalent(mutant)
            if why is not None:
                equivalents.append(mutant)
            elif not verdict:
                survivors.append(mutant)
            status = "killed" if verdict else "SURVIVED" if why is None else "equivalent"
            if status == "SURVIVED" and large_input(mutant) is not None:
                status = "SURVIVED (large input)"
            print(
                f"{number:4}/{len(sample)} {status:10} {mutant.module}:{mutant.line}"
                f" #{mutant.index} {mutant.description}",
                flush=True,
            )
    counted = len(sample) - len(equivalents)
    share = 100 * (counted - len(survivors)) / counted if counted else 100.0
    print(
        f"{counted - len(survivors)} of {counted} non-equivalent mutants killed by the vectors"
        f" ({share:.1f} %; {len(equivalents)} equivalent left out; {len(sample)} mutants of"
        f" {', '.join(modules)}; {'every site' if args.all else f'seed {args.seed}'};"
        f" {time.monotonic() - started:.0f} s)"
    )
    if args.json:
        args.json.write_text(json.dumps([m.__dict__ for m in survivors], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
