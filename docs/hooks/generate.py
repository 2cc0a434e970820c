"""The tables the docs restate from the code, committed in the Markdown and rewritten by
`python docs/hooks/generate.py` (`make docs` runs it before building); and the MkDocs hook.

Every table that restates something the code defines (reason codes, the adapter protocol's
operations, wire examples, the command line's help) sits in its Markdown file between
`<!-- generate: NAME -->` and `<!-- end: NAME -->` (`blocks`), so a reader of the raw file (the
package ships `conformance/PROTOCOL.md`) sees what the site shows. This script rewrites those
blocks from the generators in `GENERATORS`; `--check` only lists the stale ones, and a test
fails on any. The hook builds the site from the committed text as it is: it fails on a block
that is not closed or names no generator, and expands `<!-- include: NAME -->` lines with files
kept elsewhere (`INCLUDES`: the adapter protocol, the vectors' coverage, the benchmark table and
its plot). The API reference is generated at build time: one mkdocstrings page per package of
`API_PACKAGES` and per module, placed in the navigation under the API overview page.
"""

from __future__ import annotations

import argparse
import ast
import functools
import hashlib
import importlib
import inspect
import io
import json
import os
import pkgutil
import posixpath
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from blocks import BlockError, blocks, fill, stale
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

if TYPE_CHECKING:
    from swarmconf.fuzz.swaps import Swaps

INCLUDE = re.compile(r"^<!-- include: ([a-z0-9-]+) -->$", re.MULTILINE)


# Reason codes -----------------------------------------------------------------------------------


def reason_entries(codes: type[StrEnum]) -> list[tuple[str, str, str]]:
    """(group, code, docstring) for every member of a reason-code enum, in source order.

    The group is the comment line that heads each block of members in the source; the
    docstring is the string literal that follows each member (an attribute docstring).
    """
    source = inspect.getsource(codes)
    lines = source.splitlines()
    (class_def,) = ast.parse(source).body
    assert isinstance(class_def, ast.ClassDef)
    entries: list[tuple[str, str, str]] = []
    group = ""
    body = class_def.body
    previous_end = 0
    for index, node in enumerate(body):
        comments = [
            line.strip()[1:].strip()
            for line in lines[previous_end : node.lineno - 1]
            if line.strip().startswith("#")
        ]
        if comments:
            group = comments[-1]
        previous_end = node.end_lineno or node.lineno
        if not isinstance(node, ast.Assign):
            continue
        (target,) = node.targets
        assert isinstance(target, ast.Name)
        follower = body[index + 1] if index + 1 < len(body) else None
        if not (
            isinstance(follower, ast.Expr)
            and isinstance(follower.value, ast.Constant)
            and isinstance(follower.value.value, str)
        ):
            raise PluginError(f"{codes.__name__}.{target.id} has no docstring")
        entries.append((group, target.id, inspect.cleandoc(follower.value.value)))
    names = [code for _, code, _ in entries]
    if names != [member.name for member in codes]:
        raise PluginError(f"the source and the members of {codes.__name__} disagree")
    return entries


def reason_table(codes: type[StrEnum], *, anchors: bool = True) -> str:
    """A row per code under its group's row; each code an anchor of its page with `anchors`."""
    rows = ["| Code | Meaning |", "| --- | --- |"]
    current = None
    for group, code, doc in reason_entries(codes):
        if group != current and group:
            rows.append(f"| **{group}** | |")
        current = group
        anchor = f'<span id="{code}"></span>' if anchors else ""
        rows.append(f"| {anchor}`{code}` | {cell(doc)} |")
    return "\n".join(rows)


def reason_codes() -> str:
    from swarmconf.spec.configmerge.reasons import Reason

    return reason_table(Reason)


def payload_reason_codes() -> str:
    from swarmconf.spec.configmerge.reasons import PayloadReason

    return reason_table(PayloadReason)


def kv_reason_codes() -> str:
    from swarmconf.spec.kvgossip.reasons import KvReason

    return reason_table(KvReason)


def protocol_reason_codes() -> str:
    """Every code an adapter may answer, by design, in one page (without anchors: two designs
    may share a name)."""
    from swarmconf.spec.configmerge.reasons import PayloadReason, Reason
    from swarmconf.spec.kvgossip.reasons import KvReason

    parts = [
        ("Config-merge messages, encryption and arguments", Reason),
        ("Config-merge payloads (`wrap`, `unwrap`)", PayloadReason),
        ("K/V Gossip", KvReason),
    ]
    return "\n\n".join(
        f"{title}, `{codes.__module__}.{codes.__name__}`:\n\n{reason_table(codes, anchors=False)}"
        for title, codes in parts
    )


def kv_node_reason_codes() -> str:
    from swarmconf.reference.kvgossip.reasons import NodeReason

    return reason_table(NodeReason)


def cell(text: str) -> str:
    """Text made safe for one Markdown table cell."""
    return " ".join(text.split()).replace("|", r"\|")


# Rule registry ----------------------------------------------------------------------------------

REPOSITORY = Path(__file__).resolve().parents[2]
VECTORS = REPOSITORY / "vectors" / "v1"


def vector_rule_counts() -> dict[str, int]:
    """How many vector cases cite each rule in their `rules` field (empty before vectors exist)."""
    counts: dict[str, int] = {}
    for _, document in vector_documents():
        for case in vector_cases(document):
            for rule in case.get("rules", []):
                counts[rule] = counts.get(rule, 0) + 1
    return counts


def rule_registry() -> str:
    from swarmconf.spec.configmerge.rules import CLIENT_RULES, PAYLOAD_RULES
    from swarmconf.spec.configmerge.rules import RULES as MESSAGE_RULES

    rules = {**MESSAGE_RULES, **PAYLOAD_RULES, **CLIENT_RULES}

    counts = vector_rule_counts()
    # The column appears once some config-merge vector cites a rule.
    counts = counts if any(counts.get(number) for number in rules) else {}
    header = "| Rule | What it pins | Implemented by |"
    rule_line = "| --- | --- | --- |"
    if counts:
        header += " Vectors |"
        rule_line += " ---: |"
    rows = [header, rule_line]
    for number, rule in rules.items():
        functions = ", ".join(
            f"[`{path}`][swarmconf.spec.configmerge.{path}]" for path in rule.functions
        )
        row = f"| [{number}](../errata.md#{number.lower()}) | {cell(rule.title)} | {functions} |"
        if counts:
            row += f" {counts.get(number, 0)} |"
        rows.append(row)
    return "\n".join(rows)


# Conformance ------------------------------------------------------------------------------------


def vector_documents() -> list[tuple[str, dict[str, Any]]]:
    """(file name, parsed JSON) of every vector file, in name order."""
    return [
        (path.name, json.loads(path.read_text())) for path in sorted(VECTORS.glob("*_test.json"))
    ]


def vector_cases(document: dict[str, Any]) -> list[dict[str, Any]]:
    """The cases of a vector file, its groups' `tests` in order."""
    return [case for group in document["testGroups"] for case in group["tests"]]


def quirk_vectors() -> str:
    """For each deployed-client quirk the design registers: how many vector cases its flag
    marks, what the deployed client does on them, and a few of them."""
    from swarmconf.conformance.configmerge.design import QUIRKS

    cited: dict[str, list[str]] = {quirk: [] for quirk in QUIRKS}
    results: dict[str, set[str]] = {quirk: set() for quirk in cited}
    for name, document in vector_documents():
        suite = name.removesuffix("_test.json")
        quirk_of = {
            flag: entry["quirk"] for flag, entry in document["notes"].items() if "quirk" in entry
        }
        for case in vector_cases(document):
            for flag in case.get("flags", []):
                if flag in quirk_of:
                    cited[quirk_of[flag]].append(f"`{suite}#{case['tcId']}` {case['name']}")
                    results[quirk_of[flag]].add(case["deployed"]["result"])
    rows = [
        "| Quirk | Cases | The deployed client | For example |",
        "| --- | ---: | --- | --- |",
    ]
    for rule, cases in cited.items():
        does = ", ".join(sorted(results[rule])) or "-"
        examples = "; ".join(cases[:3]) or "-"
        rows.append(f"| [{rule}](#{rule.lower()}) | {len(cases)} | {does} | {examples} |")
    return "\n".join(rows)


def vector_files() -> str:
    rows = [
        "| File | Cases | valid | invalid | acceptable | Flags |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    totals = [0, 0, 0, 0]
    for name, document in vector_documents():
        cases = vector_cases(document)
        counts = [len(cases)] + [
            sum(case["result"] == result for case in cases)
            for result in ("valid", "invalid", "acceptable")
        ]
        totals = [total + count for total, count in zip(totals, counts, strict=True)]
        flags = sorted({flag for case in cases for flag in case["flags"]})
        figures = " | ".join(str(count) for count in counts)
        rows.append(f"| `{name}` | {figures} | {', '.join(flags) or '-'} |")
    rows.append("| **total** | " + " | ".join(f"**{total}**" for total in totals) + " | |")
    return "\n".join(rows)


def vector_flags() -> str:
    """Every flag defined in the vector files, with its bug type and description."""
    rows = ["| File | Flag | Bug type | Description |", "| --- | --- | --- | --- |"]
    for name, document in vector_documents():
        for flag, note in sorted(document["notes"].items()):
            rows.append(
                f"| `{name}` | `{flag}` | {note['bugType']} | {cell(note['description'])} |"
            )
    return "\n".join(rows)


def adapter_ops() -> str:
    from swarmconf.conformance.registry import all_ops

    OPS = all_ops()

    def fields(kinds: dict[str, str]) -> str:
        return ", ".join(f"`{name}` ({kind})" for name, kind in kinds.items()) or "-"

    rows = [
        "| Op | Does | Request fields | Optional fields | Result fields |",
        "| --- | --- | --- | --- | --- |",
    ]
    for op in OPS.values():
        rows.append(
            f"| `{op.name}` | {cell(op.summary)} | {fields(op.required)} | "
            f"{fields(op.optional)} | {fields(op.result)} |"
        )
    return "\n".join(rows)


class _SloppyClient:
    """A client with two classic bugs, for the failure-report example: it hashes with SHA-256
    instead of BLAKE2b-256, and it lets integers with leading zeros through (X1)."""

    def start(self) -> dict[str, Any]:
        return {"name": "sloppy-client", "language": "python", "protocol": 1, "ops": ["hash"]}

    restart = start

    def request(self, message: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        from swarmconf.reference.configmerge import ConfigError, parse

        data = bytes.fromhex(message["msg"])
        try:
            parse(data, lag=message["lag"])
        except ConfigError as error:
            if error.reason != "BT_LEADING_ZERO":
                return {"reason": error.reason.value}
        return {"result": {"hash": hashlib.sha256(data).hexdigest()}}

    def close(self) -> None:
        pass


def example_cases() -> list[Any]:
    """Three `hash` cases: a small valid message and two invalid ones."""
    from swarmconf.conformance.vectors import Case
    from swarmconf.spec.configmerge import ConfigMessage, parse

    first = ConfigMessage.new(1)
    first.data.update({b"members": {b"alice", b"bob"}, b"name": b"office"})
    small = first.serialize()

    def case(tc_id: int, name: str, comment: str, msg: bytes, **outcome: Any) -> Case:
        return Case(
            suite="example",
            design="configmerge",
            tc_id=tc_id,
            name=name,
            comment=comment,
            flags=outcome.pop("flags"),
            rules=outcome.pop("rules"),
            op="hash",
            request={"op": "hash", "lag": 5, "msg": msg.hex()},
            expected=outcome.get("expected"),
            result=outcome["result"],
            reason=outcome.get("reason"),
        )

    return [
        case(
            1,
            "small-message-hash",
            "A new message with two keys",
            small,
            flags=("Basic",),
            rules=("D1",),
            expected={"hash": parse(small).hash.hex()},
            result="valid",
        ),
        case(
            2,
            "seqno-leading-zero",
            "A seqno written i01e",
            b"d1:#i01e1:&de1:=dee",
            flags=("NonCanonical",),
            rules=("D10", "X1"),
            result="invalid",
            reason="BT_LEADING_ZERO",
        ),
        case(
            3,
            "no-seqno",
            "The first key is & instead of #",
            b"d1:&de1:=dee",
            flags=(),
            rules=("D8",),
            result="invalid",
            reason="MSG_MISSING_SEQNO",
        ),
    ]


def failure_report() -> str:
    """What `swarmconf conformance run` prints for the sloppy client on the example cases."""
    from swarmconf.conformance.report import failure_lines, summary_lines
    from swarmconf.conformance.runner import run_cases

    report = run_cases(_SloppyClient(), example_cases())
    lines = [line for outcome in report.failed for line in [*failure_lines(outcome), ""]]
    lines.extend(summary_lines(report))
    return "```text\n" + "\n".join(lines) + "\n```"


EXAMPLE_HELLO: dict[str, Any] = {
    "name": "configmerge-js",
    "version": "0.3.0",
    "language": "javascript",
    "protocol": 1,
    "ops": [],  # every config-merge operation, filled in by `example_hello`
    "profiles": ["libsession"],
    "quirks": [],
    "limits": ["wide-data-integers"],
    "partial": {"wrap": ["level"], "unwrap": ["Compression"]},
}
"""The `hello` answer of the example exchange: a config-merge client in another language."""


def example_hello() -> dict[str, Any]:
    from swarmconf.conformance.registry import designs

    return {**EXAMPLE_HELLO, "ops": list(designs()["configmerge"].ops)}


def hello_exchange() -> str:
    """A session as the runner has it with a client: `hello`, two cases, `stop`; the answers
    to the cases are the reference's."""
    from swarmconf.conformance.adapter import builtin_adapter
    from swarmconf.conformance.client import hello_request

    adapter = builtin_adapter("reference")
    first = bytes.fromhex(example_cases()[0].request["msg"])
    requests = [
        {"op": "hash", "lag": 5, "msg": first.hex()},
        {"op": "parse", "lag": 5, "msg": b"d1:#i01e1:&de1:=dee".hex()},
    ]
    fields = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in {"id": 1, **example_hello()}.items()]
    lines = [
        "runner:  " + json.dumps({"id": 1, **hello_request()}),
        "adapter: {" + ",\n          ".join(fields) + "}",
    ]
    for number, request in enumerate(requests, start=2):
        answer = {"id": number, **adapter.handle(request)}
        lines += [
            "runner:  " + json.dumps({"id": number, **request}),
            "adapter: " + json.dumps(answer),
        ]
    lines.append("runner:  " + json.dumps({"op": "stop"}))
    return "```text\n" + "\n".join(lines) + "\n```"


def readable(data: bytes) -> str:
    """Bytes as text: printable ASCII as itself, a run of more than four other bytes as
    `<N bytes>`, any other byte as `\\xNN`."""

    def run(match: re.Match[bytes]) -> bytes:
        other = match.group()
        if len(other) > 4:
            return b"<%d bytes>" % len(other)
        return b"".join(b"\\x%02x" % byte for byte in other)

    return re.sub(rb"[^\x20-\x7e]+", run, data).decode()


def check_order_vectors() -> str:
    """The vector cases that break two rules of a message at once (`CheckOrder`): the code
    each must be refused with names the check made first."""
    rows = ["| Case | `lag` | Message | Refused with |", "| --- | ---: | --- | --- |"]
    for name, document in vector_documents():
        suite = name.removesuffix("_test.json")
        for group in document["testGroups"]:
            for case in group["tests"]:
                if "CheckOrder" not in case["flags"]:
                    continue
                message = readable(bytes.fromhex(case["input"]["msg"]))
                rows.append(
                    f"| `{suite}#{case['tcId']}` {case['name']} | {group['lag']} |"
                    f" `{cell(message)}` | `{case['reason']}` |"
                )
    return "\n".join(rows)


# Wire examples ----------------------------------------------------------------------------------

EXAMPLE_KEY = bytes(range(32))
"""The key of every wire example: bytes 0x00..0x1f, as Ed25519 seed and as encryption key."""


def wire_example_values() -> list[tuple[str, bytes]]:
    """(description, bytes) of each wire example, computed by `swarmconf.spec.configmerge`."""
    from swarmconf.spec.configmerge import ConfigMessage, encrypt, examples, pad, parse

    empty = ConfigMessage.new(0).serialize()
    return [
        ("A new message with seqno 0 and no data", empty),
        ("The same message signed with the example key", parse(empty).serialize(EXAMPLE_KEY)),
        ("The design text's message 118 (see the errata)", examples.m118()),
        ("The empty message encrypted, profile `spec`", encrypt(empty, EXAMPLE_KEY)),
        (
            "The empty message padded, then encrypted, profile `libsession`, domain `convo`",
            encrypt(pad(empty), EXAMPLE_KEY, profile="libsession", domain=b"convo"),
        ),
    ]


def payload_example_values() -> list[tuple[str, bytes]]:
    """(description, bytes) of each payload example, computed by `swarmconf.spec.configmerge`."""
    from swarmconf.spec.configmerge import ConfigMessage, wrap
    from swarmconf.spec.configmerge.compression import compress
    from swarmconf.spec.configmerge.parts import Part, encode_part

    message = ConfigMessage.new(1)
    message.data[b"motd"] = b"hello " * 16
    serialized = message.serialize()
    return [
        ("A message whose text repeats", serialized),
        ("Its payload before padding: `z` and the zstd frame", compress(serialized)),
        (
            "The blob pushed: padded, encrypted with the example key, domain `convo`",
            wrap(serialized, EXAMPLE_KEY, b"convo")[0],
        ),
        (
            "Part 1 of 2 with the chunk `abc` and the hash 00 01 … 1f, before encryption"
            " (50 + 3 bytes, the last four NUL)",
            encode_part(Part(bytes(range(32)), 1, 2, b"abc")),
        ),
    ]


def wire_examples(values: list[tuple[str, bytes]] | None = None) -> str:
    parts = []
    for description, value in wire_example_values() if values is None else values:
        printable = all(32 <= byte < 127 for byte in value)
        shown = value.decode() if printable else "\n".join(textwrap.wrap(value.hex(), 96))
        form = "bytes" if printable else "hex"
        parts.append(f"{description} ({len(value)} bytes, as {form}):\n\n```text\n{shown}\n```\n")
    return "\n".join(parts)


# Fuzz -------------------------------------------------------------------------------------------


def fuzz_mutants() -> str:
    from swarmconf.fuzz.configmerge.mutants import MUTANTS

    rows = ["| Mutant | Replaces | The one rule it breaks |", "| --- | --- | --- |"]
    rows += [f"| `{name}` | {swap_cells(swaps)} |" for name, swaps in MUTANTS.items()]
    return "\n".join(rows)


def kv_mutants() -> str:
    from swarmconf.fuzz.kvgossip.mutants import MUTANTS

    rows = ["| Mutant | Replaces | Behaves like Go |", "| --- | --- | --- |"]
    rows += [f"| `{name}` | {swap_cells(swaps, 'Go: ')} |" for name, swaps in MUTANTS.items()]
    return "\n".join(rows)


def swap_cells(swaps: Swaps, prefix: str = "") -> str:
    """The spec functions a mutant replaces (linked) and what each replacement does."""
    replaced = ", ".join(
        f"[`{module.__name__.rsplit('.', 1)[1]}.{attr}`][{module.__name__}.{attr}]"
        for module, attr in swaps
    )
    behaviour = " ".join(
        cell(inspect.getdoc(fn) or "").removeprefix(prefix) for fn in swaps.values()
    )
    return f"{replaced} | {behaviour}"


# Benchmarks -------------------------------------------------------------------------------------

BENCH_RESULTS = REPOSITORY / "bench" / "configmerge" / "results.md"


def demoted(text: str) -> str:
    """Markdown with every heading one level lower, to sit below the including page's title."""
    return re.sub(r"^(#+) ", lambda match: "#" + match.group(1) + " ", text, flags=re.MULTILINE)


def bench_results() -> str:
    """The table `make bench` last wrote, verbatim, or a pointer to `make bench` if none is kept."""
    if not BENCH_RESULTS.is_file():
        return (
            "No benchmark table is checked in yet: run `make bench`, which writes it to "
            "`bench/configmerge/results.md`, and rebuild the site."
        )
    text = BENCH_RESULTS.read_text()
    plot = bench_plot(text)
    return demoted(text) + ("\n\n" + plot + "\n" if plot else "")


UNITS_IN_MICROSECONDS = {"ns": 0.001, "µs": 1.0, "us": 1.0, "ms": 1000.0, "s": 1_000_000.0}
TIME = re.compile(r"^([0-9][0-9,]*(?:\.[0-9]+)?)\s*(ns|µs|us|ms|s)$")


def timing_rows(markdown: str) -> tuple[list[str], list[list[float]], list[str]]:
    """(labels, per-label timings in µs, column names) of the first table with time cells.

    The columns plotted are those whose cells in every row read as a time with a unit
    (`12.3 µs`, `1.2 ms`); a row's label is made of the cells before the first of them.
    """
    lines = [line.strip() for line in markdown.splitlines()]
    for start, line in enumerate(lines):
        if not (line.startswith("|") and start + 1 < len(lines)):
            continue
        if not re.fullmatch(r"\|[\s:|-]+\|", lines[start + 1]):
            continue
        header = [cell.strip() for cell in line.strip("|").split("|")]
        body = []
        for row_line in lines[start + 2 :]:
            if not row_line.startswith("|"):
                break
            body.append([cell.strip().strip("*`") for cell in row_line.strip("|").split("|")])
        columns = [
            index
            for index in range(1, len(header))
            if body and all(index < len(row) and TIME.match(row[index]) for row in body)
        ]
        if columns:
            values = []
            for row in body:
                matches = [TIME.match(row[index]) for index in columns]
                values.append(
                    [
                        float(m.group(1).replace(",", "")) * UNITS_IN_MICROSECONDS[m.group(2)]
                        for m in matches
                        if m is not None
                    ]
                )
            labels = [" ".join(row[: columns[0]]) for row in body]
            return labels, values, [header[index] for index in columns]
    return [], [], []


def bench_plot(markdown: str) -> str:
    """An inline SVG bar chart (log scale) of the benchmark table's timings, or "" if none."""
    labels, values, columns = timing_rows(markdown)
    if not labels:
        return ""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: smaller, searchable
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(9, 0.35 * len(labels) + 1.5))
    width = 0.8 / len(columns)
    for index, column in enumerate(columns):
        positions = [row + index * width for row in range(len(labels))]
        axes.barh(positions, [row[index] for row in values], height=width, label=column)
    axes.set_yticks([row + 0.4 - width / 2 for row in range(len(labels))], labels)
    axes.invert_yaxis()
    axes.set_xscale("log")
    axes.set_xlabel("median time (µs, log scale)")
    axes.legend()
    figure.tight_layout()
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    pyplot.close(figure)
    svg = buffer.getvalue()
    return '<div class="bench-plot">' + svg[svg.index("<svg") :] + "</div>"


def vector_coverage() -> str:
    """`vectors/v1/COVERAGE.md`, written by the vector generator, without its title line."""
    text = (VECTORS / "COVERAGE.md").read_text()
    return demoted(text.split("\n", 1)[1] if text.startswith("# ") else text)


# Command line -----------------------------------------------------------------------------------


def subcommands(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    """The parser and all its sub-command parsers, depth first, in registration order."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from subcommands(child)


def cli_help_texts() -> list[tuple[str, str]]:
    """(prog, help text) for every command, formatted at a fixed width of 100 columns."""
    from swarmconf.cli import build_parser

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        return [(p.prog, p.format_help()) for p in subcommands(build_parser())]
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def cli_reason_codes() -> str:
    from swarmconf.cliutil import CliReason

    return reason_table(CliReason)


def cli_exit_statuses() -> str:
    from swarmconf.cliutil import Exit, meaning

    rows = ["| Status | Name | Meaning |", "| ---: | --- | --- |"]
    rows += [f"| {status.value} | `{status.name}` | {cell(meaning(status))} |" for status in Exit]
    return "\n".join(rows)


def cli_reference() -> str:
    parts = []
    for prog, text in cli_help_texts():
        parts.append(f"## `{prog}`\n\n```text\n{text.rstrip()}\n```\n")
    return "\n".join(parts)


# API pages --------------------------------------------------------------------------------------

API_PACKAGES = (
    "swarmconf.spec.configmerge",
    "swarmconf.spec.kvgossip",
    "swarmconf.reference.configmerge",
    "swarmconf.fuzz.configmerge",
)
"""The packages with API pages, role first and design second as the repository is laid out. Each
package's page shows its docstring and lists its modules; each public module has a page."""

API_OPTIONS = (
    "show_root_heading: false",
    "show_root_toc_entry: false",
    "show_if_no_docstring: true",
    'filters: ["!^_"]',
)


def api_modules(package: str) -> list[str]:
    """The package's public modules, in name order."""
    found = pkgutil.iter_modules(importlib.import_module(package).__path__)
    return sorted(f"{package}.{info.name}" for info in found if not info.name.startswith("_"))


def api_path(name: str) -> str:
    """The page of a package (`api/ROLE/DESIGN/index.md`) or of a module (`.../MODULE.md`)."""
    parts = ["api", *name.split(".")[1:]]
    return "/".join([*parts, "index.md"]) if name in API_PACKAGES else "/".join(parts) + ".md"


def summary(name: str) -> str:
    """The first sentence of a module's docstring."""
    doc = inspect.getdoc(importlib.import_module(name)) or ""
    first = " ".join(doc.split("\n\n", 1)[0].split())
    return first.split(". ", 1)[0].rstrip(".") + "."


def api_page(name: str) -> str:
    """The Markdown of one API page: the mkdocstrings directive, and a package's module table."""
    modules = api_modules(name) if name in API_PACKAGES else []
    options = [*API_OPTIONS, "members: false"] if modules else list(API_OPTIONS)
    lines = [f"# `{name}`", "", f"::: {name}", "    options:"]
    lines += [f"      {option}" for option in options]
    if modules:
        lines += ["", "## Modules", "", "| Module | Covers |", "| --- | --- |"]
        here = api_path(name).rsplit("/", 1)[0]
        for module in modules:
            link = posixpath.relpath(api_path(module), here)
            lines.append(f"| [`{module}`]({link}) | {cell(summary(module))} |")
    return "\n".join(lines) + "\n"


def api_packages() -> str:
    """The table of documented packages for the API overview page."""
    rows = ["| Role | Design | Package | What it is |", "| --- | --- | --- | --- |"]
    for package in API_PACKAGES:
        role, design = package.split(".")[1:3]
        link = posixpath.relpath(api_path(package), "api")
        rows.append(f"| `{role}` | `{design}` | [`{package}`]({link}) | {cell(summary(package))} |")
    return "\n".join(rows)


def api_nav() -> list[dict[str, Any]]:
    """Navigation entries for every API page, one section per role and per design."""
    roles: dict[str, list[dict[str, Any]]] = {}
    for package in API_PACKAGES:
        role, design = package.split(".")[1:3]
        pages = [{package: api_path(package)}]
        pages += [{module: api_path(module)} for module in api_modules(package)]
        roles.setdefault(role, []).append({design: pages})
    return [{role: designs} for role, designs in roles.items()]


def _api_section(nav: list[Any]) -> list[Any] | None:
    """The navigation list that holds the API overview page `api/index.md`."""
    if "api/index.md" in nav:
        return nav
    for item in nav:
        children = item.values() if isinstance(item, dict) else []
        for child in children:
            found = _api_section(child) if isinstance(child, list) else None
            if found is not None:
                return found
    return None


def on_config(config: Any) -> Any:
    section = _api_section(config["nav"] or [])
    if section is None:
        raise PluginError("the navigation has no api/index.md to put the API pages under")
    section.extend(api_nav())
    return config


def on_files(files: Files, *, config: Any) -> Files:
    names = [*API_PACKAGES, *(m for package in API_PACKAGES for m in api_modules(package))]
    for name in names:
        files.append(File.generated(config, api_path(name), content=api_page(name)))
    return files


GENERATORS: dict[str, Callable[[], str]] = {
    "reason-codes": reason_codes,
    "kv-reason-codes": kv_reason_codes,
    "kv-node-reason-codes": kv_node_reason_codes,
    "protocol-reason-codes": protocol_reason_codes,
    "cli-reference": cli_reference,
    "cli-reason-codes": cli_reason_codes,
    "cli-exit-statuses": cli_exit_statuses,
    "api-packages": api_packages,
    "rule-registry": rule_registry,
    "vector-files": vector_files,
    "quirk-vectors": quirk_vectors,
    "vector-flags": vector_flags,
    "adapter-ops": adapter_ops,
    "hello-exchange": hello_exchange,
    "check-order-vectors": check_order_vectors,
    "failure-report": failure_report,
    "wire-examples": wire_examples,
    "payload-examples": lambda: wire_examples(payload_example_values()),
    "payload-reason-codes": payload_reason_codes,
    "fuzz-mutants": fuzz_mutants,
    "kv-mutants": kv_mutants,
}
"""The generated blocks, by name: each written into the Markdown by this script."""

PROTOCOL = REPOSITORY / "conformance" / "PROTOCOL.md"
INCLUDES: dict[str, Callable[[], str]] = {
    "protocol": PROTOCOL.read_text,
    "vector-coverage": vector_coverage,
    "bench-results": bench_results,
}
"""What the site includes from files kept elsewhere, by name: the adapter protocol (shipped in
the package), `vectors/v1/COVERAGE.md`, and the benchmark table with its plot (an inline SVG,
drawn at build time)."""

MARKDOWN_FILES = (REPOSITORY / "docs" / "pages", REPOSITORY / "conformance")
"""Where the Markdown files with generated blocks are (their subfolders too)."""


def markdown_files() -> list[Path]:
    return sorted(path for folder in MARKDOWN_FILES for path in folder.rglob("*.md"))


@functools.cache
def generated(name: str) -> str:
    """The text of the generated block `name` (each made once a run)."""
    if name not in GENERATORS:
        raise BlockError(f"no generated block is named {name!r}")
    return GENERATORS[name]()


def stale_blocks() -> list[str]:
    """`FILE: NAME` for every committed block that is not what its generator writes now."""
    generated.cache_clear()
    found = []
    for path in markdown_files():
        where = str(path.relative_to(REPOSITORY))
        found += [f"{where}: {name}" for name in stale(path.read_text(), where, generated)]
    return found


def regenerate() -> list[Path]:
    """Rewrite every generated block in place; the files that changed."""
    generated.cache_clear()
    changed = []
    for path in markdown_files():
        text = path.read_text()
        new = fill(text, str(path.relative_to(REPOSITORY)), generated)
        if new != text:
            path.write_text(new)
            changed.append(path)
    return changed


def expand(markdown: str, where: str) -> str:
    """A page as the site shows it: its generated blocks as committed (each closed and named
    after a generator), its `include` lines replaced by what they include."""
    try:
        unknown = [block.name for block in blocks(markdown, where) if block.name not in GENERATORS]
    except BlockError as error:
        raise PluginError(str(error)) from error
    if unknown:
        raise PluginError(f"{where}: unknown generated block {unknown[0]!r}")

    def include(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in INCLUDES:
            raise PluginError(f"{where}: unknown include {name!r}")
        return INCLUDES[name]()

    return INCLUDE.sub(include, markdown)


def on_page_markdown(markdown: str, *, page: Any, config: Any, files: Any) -> str:
    return expand(markdown, page.file.src_uri)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Rewrite the generated blocks of the Markdown files under "
        + " and ".join(str(folder.relative_to(REPOSITORY)) for folder in MARKDOWN_FILES)
    )
    parser.add_argument(
        "--check", action="store_true", help="only list the stale blocks (status 1 if any)"
    )
    args = parser.parse_args(argv)
    if args.check:
        found = stale_blocks()
        print("\n".join(f"stale: {entry}" for entry in found) or "every generated block is fresh")
        return 1 if found else 0
    for path in regenerate():
        print(f"rewrote {path.relative_to(REPOSITORY)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
