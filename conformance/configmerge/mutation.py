"""How strong the config-merge vectors are: cosmic-ray mutates the executable spec and counts
the mutants `builtin:spec` on the vectors kills (`make mutation`).

Every module of `spec/configmerge/` (installed as `swarmconf.spec.configmerge` through
setup.py's `package_dir`, so the files cosmic-ray rewrites are the ones imported) gets a
cosmic-ray session of its own under `build/mutation/`, with every operator of cosmic-ray's core
set that takes no argument. For each mutant cosmic-ray writes the mutated module in place, runs
`python -m swarmconf.conformance.configmerge.mutation check MODULE` and restores the file. The
check runs `builtin:spec` over the vectors, the module's own suites first (`FIRST_SUITES`), and
exits 1 at the first case that fails, or that runs longer than `CASE_SECONDS` (the mutant
hangs): the mutant is killed. A first pass runs only the files that reach the module
(`ONLY_SUITES`, `SKIPPED_FIRST`); `run --survivors` runs what survives it again on every file,
so the score is that of every file. Sessions resume where they stopped; `--fresh` starts anew.

    nice python -m swarmconf.conformance.configmerge.mutation run [--module bt ...]
    nice python -m swarmconf.conformance.configmerge.mutation run --survivors
    python -m swarmconf.conformance.configmerge.mutation report [--json FILE] [--equivalent]
"""

from __future__ import annotations

import argparse
import ast
import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from swarmconf.conformance.configmerge.equivalent_mutants import EQUIVALENT, UNREACHABLE
from swarmconf.conformance.vectors import VectorsNotInstalled, bundled_vectors

ROOT = Path(__file__).resolve().parents[2]
SPEC_DIR = ROOT / "spec" / "configmerge"
SESSIONS = ROOT / "build" / "mutation"
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
    "examples",
    "reasons",
    "rules",
)
"""Every module of the spec with code in it (`__init__` only re-exports)."""
FIRST_SUITES: dict[str, tuple[str, ...]] = {
    "bt": ("bt_encoding", "message_parse"),
    "data": ("data_validation", "diffs"),
    "diff": ("diffs", "merges"),
    "encryption": ("encryption", "payload"),
    "merge": ("merges", "ignore_rules"),
    "message": ("message_parse", "serialization", "increment"),
    "signing": ("signatures",),
    "compression": ("payload",),
    "parts": ("payload",),
    "payload": ("payload",),
    "obsolete": ("ignore_rules", "merges"),
    "client": ("client_steps",),
    "examples": ("design_examples",),
}
"""The vector files a module's mutants run first, the ones most likely to kill them fast; every
other file follows, smallest first."""
ONLY_SUITES: dict[str, tuple[str, ...]] = {
    "encryption": ("encryption", "payload", "client_steps"),
    "compression": ("payload", "client_steps"),
    "parts": ("payload", "client_steps"),
    "payload": ("payload", "client_steps"),
    "client": ("client_steps",),
    "examples": ("design_examples",),
}
"""The only vector files that reach a module's code (the operations that call it), where a
first pass over a module's mutants may stop; `--all` runs every file (as `run --survivors`
does for the mutants that survive the first pass, so the score is every file's)."""
SKIPPED_FIRST = ("merges_exhaustive",)
"""Files a first pass leaves out for modules other than `merge` and `obsolete`: the
exhaustive merges (half the run's time) kill nothing the others do not, in those modules."""
CASE_SECONDS = 20.0
"""A case still running after this long hangs on the mutant (the slowest takes about 1 s)."""
SESSION_SECONDS = 600.0
"""cosmic-ray's own limit on one check, past which it counts the mutant killed."""


class _Hang(Exception):
    """A case ran past `CASE_SECONDS`."""


def run_order(paths: Sequence[Path], module: str, every_file: bool = True) -> list[Path]:
    """The vector files in the order a mutant of `module` runs them: all of them, or in a
    first pass only those `ONLY_SUITES` and `SKIPPED_FIRST` leave."""
    first = [f"{suite}_test.json" for suite in FIRST_SUITES.get(module, ())]
    if not every_file:
        only = ONLY_SUITES.get(module)
        skipped = () if module in ("merge", "obsolete") else SKIPPED_FIRST
        paths = [
            path
            for path in paths
            if (only is None or path.name.removesuffix("_test.json") in only)
            and path.name.removesuffix("_test.json") not in skipped
        ]

    def key(path: Path) -> tuple[int, int]:
        rank = first.index(path.name) if path.name in first else len(first)
        return rank, path.stat().st_size

    return sorted(paths, key=key)


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Hang()


def vectors_pass(root: Path, module: str, every_file: bool = True) -> bool:
    """Whether `builtin:spec` passes every config-merge case under `root` (or a first pass's
    files), `module`'s suites first; False at the first failure, crash or hang."""
    from swarmconf.conformance.configmerge import NAME
    from swarmconf.conformance.configmerge.adapter import api_adapter
    from swarmconf.conformance.recipes import expand_fields
    from swarmconf.conformance.runner import PASSED, judge
    from swarmconf.conformance.vectors import cases_of, read_document, suite_of, vector_files

    adapter = api_adapter("spec")
    signal.signal(signal.SIGALRM, _alarm)
    paths = [Path(str(path)) for path in vector_files(root)]
    for path in run_order(paths, module, every_file):
        document = read_document(path)
        if document["header"]["design"] != NAME:
            continue
        for case in cases_of(document, suite_of(path)):
            signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
            try:
                passed = judge(case, adapter.handle(expand_fields(case.request))).status
            except (_Hang, RecursionError) as error:
                print(f"{case.suite}#{case.tc_id}: {type(error).__name__}", file=sys.stderr)
                return False
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if passed != PASSED:
                print(f"{case.suite}#{case.tc_id}: {passed}", file=sys.stderr)
                return False
    return True


def default_vectors() -> Path:
    """The installed vectors, or the checkout's `vectors/v1`."""
    try:
        return Path(str(bundled_vectors()))
    except VectorsNotInstalled:
        return ROOT / "vectors" / "v1"


def check(module: str, root: Path, every_file: bool) -> int:
    """cosmic-ray's test command: 0 when the vectors pass on the spec as it is on disk."""
    try:
        return 0 if vectors_pass(root, module, every_file) else 1
    except Exception:  # the mutant does not import, or crashes the adapter
        return 1


def config_text(module: str, root: Path, every_file: bool = False) -> str:
    """The cosmic-ray configuration of `module`'s session: a first pass, or every file."""
    command = [sys.executable, "-m", TOOL, "check", module, "--vectors", str(root)]
    command += ["--all"] if every_file else []
    return "\n".join(
        [
            "[cosmic-ray]",
            f"module-path = {json.dumps(str(SPEC_DIR / f'{module}.py'))}",
            f"timeout = {SESSION_SECONDS}",
            "excluded-modules = []",
            f"test-command = {json.dumps(' '.join(command))}",
            "",
            "[cosmic-ray.distributor]",
            'name = "local"',
            "",
        ]
    )


def session_of(module: str) -> Path:
    return SESSIONS / f"{module}.sqlite"


def run_sessions(modules: Sequence[str], root: Path, fresh: bool, survivors: bool) -> None:
    """Initialise (unless resumed) and execute each module's session, in turn; with
    `survivors`, the mutants that survived and are not listed as equivalent are run again on
    every vector file."""
    SESSIONS.mkdir(parents=True, exist_ok=True)
    tool = Path(sys.executable).with_name("cosmic-ray")
    for module in modules:
        config = SESSIONS / f"{module}.toml"
        config.write_text(config_text(module, root, survivors), encoding="utf-8")
        session = session_of(module)
        if fresh or not session.exists():
            session.unlink(missing_ok=True)
            subprocess.run([str(tool), "init", str(config), str(session)], check=True)
        elif survivors:  # cosmic-ray runs the items with no result
            again = [
                (mutant.job_id,)
                for mutant in mutants_of(module)
                if mutant.outcome == "survived" and not mutant.excluded
            ]
            with sqlite3.connect(session) as db:
                db.executemany("DELETE FROM work_results WHERE job_id = ?", again)
        skip_excluded(module)
        started = time.monotonic()
        subprocess.run([str(tool), "exec", str(config), str(session)], check=True)
        print(f"{module}: {time.monotonic() - started:.0f} s", flush=True)


ANNOTATION = (
    "equivalent: a type annotation, which `from __future__ import annotations` leaves unevaluated"
)
KEYWORD_ONLY = (
    "equivalent: the `*` before keyword-only parameters made `/` (positional-only before it):"
    " every call names the parameters after it"
)


def original_source(module: str) -> str:
    """`module` as committed: while a session runs, the file on disk may be a mutant."""
    path = f"spec/configmerge/{module}.py"
    shown = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"HEAD:{path}"], capture_output=True, check=False
    )
    return shown.stdout.decode() if shown.returncode == 0 else (ROOT / path).read_text("utf-8")


def annotation_spans(source: str) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where `source`'s annotations are, as (line, column) starts and ends."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        found: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            found = [node.annotation]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found = [node.returns]
        elif isinstance(node, ast.AnnAssign):
            found = [node.annotation]
        for annotation in found:
            if annotation is not None and annotation.end_lineno is not None:
                start = (annotation.lineno, annotation.col_offset)
                spans.append((start, (annotation.end_lineno, annotation.end_col_offset or 0)))
    return spans


def function_at(tree: ast.Module, line: int) -> str:
    """The innermost function around `line`, or "" at module level."""
    within = [
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return within[-1] if within else ""


@dataclass(frozen=True)
class Mutant:
    """One mutant of a session and what became of it."""

    module: str
    job_id: str
    operator: str
    occurrence: int
    function: str
    line: int
    column: int
    text: str
    """The mutated line of the spec, whitespace collapsed."""
    outcome: str
    """`killed`, `survived`, `incompetent`, `skipped` (excluded before it ran) or `pending`."""
    excluded: str | None
    """Why no vector can tell the mutant from the spec, if it is in an annotation or listed."""


def mutants_of(module: str) -> Iterator[Mutant]:
    """Every mutant of `module`'s session, run or not."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome

    source = original_source(module)
    lines = source.splitlines()
    spans = annotation_spans(source)
    tree = ast.parse(source)
    with use_db(str(session_of(module)), WorkDB.Mode.open) as db:
        results = {job_id: result for job_id, result in db.results}
        for item in db.work_items:
            (mutation,) = item.mutations
            line, column = mutation.start_pos
            result = results.get(item.job_id)
            if result is None:
                outcome = "pending"
            elif result.worker_outcome == WorkerOutcome.SKIPPED:
                outcome = "skipped"
            else:
                outcome = result.test_outcome.value if result.test_outcome else "incompetent"
            operator = mutation.operator_name.removeprefix("core/")
            text = " ".join(lines[line - 1].split())
            in_annotation = any(start <= (line, column) < end for start, end in spans)
            after = lines[line - 1][column:].lstrip("*").lstrip()
            bare_star = operator == "ReplaceBinaryOperator_Mul_Div" and after.startswith(",")
            function = function_at(tree, line)
            excluded = (
                ANNOTATION
                if in_annotation
                else KEYWORD_ONLY
                if bare_star
                else EQUIVALENT.get((module, function, text, operator))
                or EQUIVALENT.get((module, function, text, f"{operator}@{column}"))
                or UNREACHABLE.get((module, function))
                or UNREACHABLE.get((module, "*"))
            )
            yield Mutant(
                module,
                item.job_id,
                operator,
                mutation.occurrence,
                function,
                line,
                column,
                text,
                outcome,
                excluded,
            )


def skip_excluded(module: str) -> None:
    """Mark the mutants not run yet that are in an annotation or listed as equivalent or
    unreachable as skipped, with why (as cosmic-ray's own filters do): cosmic-ray runs only
    the others."""
    skipped = [
        (mutant.excluded, mutant.job_id)
        for mutant in mutants_of(module)
        if mutant.outcome == "pending" and mutant.excluded
    ]
    with sqlite3.connect(session_of(module)) as db:
        db.executemany(
            "INSERT INTO work_results (worker_outcome, output, job_id) VALUES ('SKIPPED', ?, ?)",
            skipped,
        )


@dataclass
class Tally:
    mutants: int = 0
    excluded: int = 0
    killed: int = 0
    survived: int = 0
    incompetent: int = 0
    pending: int = 0

    def add(self, mutant: Mutant) -> None:
        self.mutants += 1
        if mutant.outcome == "pending":
            self.pending += 1
        elif mutant.outcome == "incompetent":
            self.incompetent += 1
        elif mutant.outcome == "killed":  # killed: not equivalent, whatever the list says
            self.killed += 1
        elif mutant.excluded:  # survived, or skipped as listed
            self.excluded += 1
        else:
            self.survived += 1

    @property
    def scored(self) -> int:
        return self.killed + self.survived


def report(modules: Sequence[str], survivors_json: Path | None, equivalent: bool = False) -> int:
    """The table of the coverage page and every survivor; 0 when every scored mutant of the
    sessions run is killed or the score is at least 98 %."""
    total = Tally()
    survivors: list[Mutant] = []
    excluded: list[Mutant] = []
    print("| Module | Mutants | Equivalent or unreachable | Survived | Killed |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for module in modules:
        if not session_of(module).exists():
            continue
        tally = Tally()
        for mutant in mutants_of(module):
            tally.add(mutant)
            total.add(mutant)
            if mutant.outcome in ("survived", "skipped") and not mutant.excluded:
                survivors.append(mutant)
            if equivalent and mutant.excluded and mutant.outcome != "pending":
                excluded.append(mutant)
        pending = f" ({tally.pending} not run)" if tally.pending else ""
        print(
            f"| `{module}` | {tally.mutants}{pending} | {tally.excluded} | {tally.survived} |"
            f" {tally.killed} |"
        )
    score = total.killed / total.scored if total.scored else 1.0
    print(
        f"\n{total.killed} of {total.scored} non-equivalent mutants killed ({score:.1%});"
        f" {total.excluded} equivalent or unreachable, {total.incompetent} incompetent,"
        f" {total.pending} not run"
    )
    for mutant in survivors:
        print(
            f"survived: {mutant.module}:{mutant.line} {mutant.function} {mutant.operator}:"
            f" {mutant.text}"
        )
    for mutant in excluded:  # a listed mutant that is killed counts as killed
        print(
            f"{'listed, killed' if mutant.outcome == 'killed' else 'excluded'}:"
            f" {mutant.module}:{mutant.line} {mutant.function} {mutant.operator}:"
            f" {mutant.excluded}"
        )
    if survivors_json is not None:
        survivors_json.write_text(
            json.dumps([mutant.__dict__ for mutant in survivors], indent=1), encoding="utf-8"
        )
    return 0 if score >= 0.98 else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=TOOL, description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    checking = commands.add_parser("check", help="cosmic-ray's test command for one module")
    checking.add_argument("module", choices=MODULES)
    checking.add_argument("--vectors", type=Path, default=None)
    checking.add_argument("--all", action="store_true", help="every vector file, not a first pass")
    running = commands.add_parser("run", help="run the modules' sessions, then report")
    running.add_argument("--fresh", action="store_true", help="discard the sessions run so far")
    running.add_argument(
        "--survivors", action="store_true", help="run the survivors again on every file"
    )
    reporting = commands.add_parser("report", help="the score of the sessions run so far")
    for command in (running, reporting):
        command.add_argument("--module", action="append", choices=MODULES, default=None)
        command.add_argument("--json", type=Path, default=None, help="write the survivors")
        command.add_argument(
            "--equivalent", action="store_true", help="list every excluded mutant that survived"
        )
    running.add_argument("--vectors", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.command == "check":
        return check(args.module, args.vectors or default_vectors(), args.all)
    modules = args.module or list(MODULES)
    if args.command == "run":
        run_sessions(modules, args.vectors or default_vectors(), args.fresh, args.survivors)
    return report(modules, args.json, args.equivalent)


if __name__ == "__main__":
    sys.exit(main())
