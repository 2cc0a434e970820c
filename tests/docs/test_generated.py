"""The generated tables say what the code says."""

from __future__ import annotations

import html
import json
import re
from enum import StrEnum
from pathlib import Path
from types import ModuleType

import griffe
import pytest
from mkdocs.exceptions import PluginError

from swarmconf.cli import build_parser
from swarmconf.cliutil import CliReason, Exit, meaning
from swarmconf.spec.configmerge.reasons import Reason
from swarmconf.spec.kvgossip.reasons import KvReason


@pytest.mark.parametrize(
    ("module", "codes"),
    [
        ("swarmconf.spec.configmerge.reasons", Reason),
        ("swarmconf.spec.kvgossip.reasons", KvReason),
        ("swarmconf.cliutil", CliReason),
    ],
)
def test_reason_table_lists_every_code_with_its_docstring(
    generate: ModuleType, module: str, codes: type[StrEnum]
) -> None:
    # griffe reads attribute docstrings independently of the hook's own extraction.
    tree = Path(__file__).resolve().parents[2] / "build" / "tree"
    members = griffe.load(module, search_paths=[str(tree)])[codes.__name__].members
    entries = generate.reason_entries(codes)
    assert [code for _, code, _ in entries] == [member.name for member in codes]
    for _, code, doc in entries:
        assert doc == members[code].docstring.value


def test_reason_table_rows_are_grouped_by_source_comment(generate: ModuleType) -> None:
    groups = {code: group for group, code, _ in generate.reason_entries(Reason)}
    assert groups["BT_TRUNCATED"] == "bt-encoding (D10)"
    assert groups["BAD_LAG"].startswith("Usage errors")


@pytest.mark.parametrize(
    ("page", "codes"),
    [("reason-codes", Reason), ("kvgossip/reasons", KvReason), ("cli", CliReason)],
)
def test_built_reason_page_shows_every_code(
    built_site: Path, page: str, codes: type[StrEnum]
) -> None:
    html_text = (built_site / page / "index.html").read_text()
    for member in codes:
        assert f'id="{member.value}"' in html_text


def test_built_cli_page_shows_every_help_text(built_site: Path, generate: ModuleType) -> None:
    page = html.unescape((built_site / "cli" / "index.html").read_text())
    texts = generate.cli_help_texts()
    assert texts[0][0] == build_parser().prog
    for _, text in texts:
        for line in text.splitlines():
            assert line.strip() in page


def test_every_committed_generated_block_is_fresh(generate: ModuleType) -> None:
    stale = generate.stale_blocks()
    assert stale == [], "run `make docs` (or python docs/hooks/generate.py) to rewrite them"


def test_blocks_are_rewritten_between_their_markers_only(blocks: ModuleType) -> None:
    page = "# Page\n\n<!-- generate: a -->\nold\n<!-- end: a -->\nafter\n"
    assert blocks.stale(page, "page.md", lambda name: "new") == ["a"]
    filled = blocks.fill(page, "page.md", lambda name: f"| {name} |")
    assert filled == "# Page\n\n<!-- generate: a -->\n\n| a |\n\n<!-- end: a -->\nafter\n"
    assert blocks.stale(filled, "page.md", lambda name: f"| {name} |") == []
    assert blocks.fill(filled, "page.md", lambda name: f"| {name} |") == filled


def test_an_unclosed_or_unknown_block_fails_the_build(generate: ModuleType) -> None:
    with pytest.raises(PluginError, match="no-such-table"):
        generate.expand("<!-- generate: no-such-table -->\n\n<!-- end: no-such-table -->\n", "p")
    with pytest.raises(PluginError, match="has no `<!-- end: reason-codes -->` after it"):
        generate.expand("<!-- generate: reason-codes -->\n| table |\n", "page.md")
    with pytest.raises(PluginError, match="unknown include 'nothing'"):
        generate.expand("<!-- include: nothing -->\n", "page.md")


def test_the_site_shows_the_committed_blocks_and_includes_the_protocol(
    built_site: Path, generate: ModuleType
) -> None:
    page = html.unescape((built_site / "conformance" / "adapter" / "index.html").read_text())
    protocol = generate.PROTOCOL.read_text()
    assert "<!-- generate: hello-exchange -->" in protocol
    assert generate.generated("hello-exchange").splitlines()[1] in page
    for status in Exit:
        assert f"`{status.name}`" in protocol


def test_rule_registry_table_lists_every_rule_and_function(
    built_site: Path, generate: ModuleType
) -> None:
    from swarmconf.spec.configmerge.rules import RULES

    table = generate.rule_registry()
    page = (built_site / "spec" / "index.html").read_text()
    for number, rule in RULES.items():
        assert f"| [{number}](../errata.md#{number.lower()}) |" in table
        for path in rule.functions:
            module = path.split(".")[0]
            href = f"../api/spec/configmerge/{module}/#swarmconf.spec.configmerge.{path}"
            assert f'href="{href}"' in page


def test_vector_file_table_counts_every_case(built_site: Path, generate: ModuleType) -> None:
    from swarmconf.conformance.vectors import VECTOR_SUFFIX

    vectors = Path(__file__).resolve().parents[2] / "vectors" / "v1"
    table = generate.vector_files()
    total = 0
    for path in sorted(vectors.glob("*" + VECTOR_SUFFIX)):
        document = json.loads(path.read_text())
        cases = generate.vector_cases(document)
        assert len(cases) == document["numberOfTests"]
        total += len(cases)
        assert f"| `{path.name}` | {len(cases)} |" in table
    assert f"| **total** | **{total}** |" in table
    assert (
        "kvgossip_keys_test.json"
        in (built_site / "conformance" / "coverage" / "index.html").read_text()
    )


def test_adapter_ops_table_lists_every_op(generate: ModuleType) -> None:
    from swarmconf.conformance.registry import all_ops

    table = generate.adapter_ops()
    for op in all_ops().values():
        assert f"| `{op.name}` |" in table
        for name in op.result:
            assert f"`{name}`" in table


def test_failure_report_is_real_runner_output(generate: ModuleType) -> None:
    report = generate.failure_report()
    assert "FAIL example#1 small-message-hash: wrong hash" in report
    assert "FAIL example#2 seqno-leading-zero: accepted an invalid input" in report
    assert "example#3" not in report
    assert "1 passed      0 acceptable      2 failed" in report


def test_bench_results_are_included_verbatim_below_the_page_headings(
    generate: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results.md"
    monkeypatch.setattr(generate, "BENCH_RESULTS", results)
    assert "make bench" in generate.bench_results()
    results.write_text(
        "# Bench\n\n| op | spec | reference |\n| --- | --- | --- |\n| merge | 9 | 1 |\n"
    )
    included = generate.bench_results()
    assert included.startswith("## Bench\n")
    assert "| merge | 9 | 1 |" in included


def test_wire_examples_are_reproduced_by_the_reference(generate: ModuleType) -> None:
    from swarmconf.reference import configmerge as reference

    key = generate.EXAMPLE_KEY
    empty = reference.ConfigMessage.new(0).serialize()
    produced = [
        empty,
        reference.parse(empty).serialize(key),
        reference.parse(generate.wire_example_values()[2][1]).serialize(),
        reference.encrypt(empty, key),
        reference.encrypt(reference.pad(empty), key, profile="libsession", domain=b"convo"),
    ]
    assert [value for _, value in generate.wire_example_values()] == produced
    text = generate.wire_examples()
    assert "d1:#i0e1:&de1:<le1:=dee" in text
    assert "".join(text.split("```text\n")[2].split("```")[0].split()) == produced[1].hex()


def test_rule_registry_counts_the_vectors_citing_each_rule(
    generate: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(generate, "VECTORS", tmp_path)
    assert "Vectors" not in generate.rule_registry()
    cases = [{"rules": ["D1", "D15"], "result": "valid", "flags": []}, {"rules": ["D1"]}]
    document = {"testGroups": [{"type": "merge", "tests": cases}]}
    (tmp_path / "merge_test.json").write_text(json.dumps(document))
    table = generate.rule_registry()
    assert "| Vectors |" in table.splitlines()[0]
    rows = {line.split(" | ")[0]: line for line in table.splitlines()[2:]}
    assert rows["| [D1](../errata.md#d1)"].endswith("| 2 |")
    assert rows["| [D15](../errata.md#d15)"].endswith("| 1 |")
    assert rows["| [D2](../errata.md#d2)"].endswith("| 0 |")


def test_rule_counts_agree_with_the_generators_coverage_file(generate: ModuleType) -> None:
    coverage = (generate.VECTORS / "COVERAGE.md").read_text()
    listed = dict(re.findall(r"^\| ([DX]\d+) \| (\d+) \|", coverage, flags=re.MULTILINE))
    counts = generate.vector_rule_counts()
    from swarmconf.conformance.configmerge.design import rules

    assert list(listed) == rules()
    assert {rule: str(counts.get(rule, 0)) for rule in listed} == listed


def test_fuzz_mutant_table_lists_every_mutant(generate: ModuleType) -> None:
    from swarmconf.fuzz.configmerge.mutants import MUTANTS

    table = generate.fuzz_mutants()
    assert len(table.splitlines()) == len(MUTANTS) + 2
    for name, swaps in MUTANTS.items():
        (row,) = [line for line in table.splitlines() if line.startswith(f"| `{name}` |")]
        for module, attr in swaps:
            assert f"[{module.__name__}.{attr}]" in row
        assert all((fn.__doc__ or "").split(" broken: ")[1][:20] in row for fn in swaps.values())


def test_quirk_table_counts_agree_with_the_rule_counts(generate: ModuleType) -> None:
    counts = generate.vector_rule_counts()
    table = generate.quirk_vectors()
    from swarmconf.conformance.configmerge.design import QUIRKS

    assert [f"X{number}" for number in range(1, len(QUIRKS) + 1)] == QUIRKS
    for rule in QUIRKS:
        flagged = 0 if rule == "X5" else counts.get(rule, 0)  # X5 has no behaviour to flag
        assert f"| [{rule}](#{rule.lower()}) | {flagged} |" in table


def test_kv_mutant_table_lists_every_mutant_and_what_it_replaces(generate: ModuleType) -> None:
    from swarmconf.fuzz.kvgossip.mutants import MUTANTS

    table = generate.kv_mutants()
    assert len(table.splitlines()) == len(MUTANTS) + 2
    for name, swaps in MUTANTS.items():
        (row,) = [line for line in table.splitlines() if line.startswith(f"| `{name}` |")]
        for module, attr in swaps:
            assert f"[{module.__name__}.{attr}]" in row


def test_bench_plot_reads_the_timings_and_draws_them(
    generate: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    results = tmp_path / "results.md"
    results.write_text(
        "| operation | size | spec | reference | ratio |\n| --- | --- | ---: | ---: | ---: |\n"
        "| parse | 1 KB | 120.5 µs | 10.2 µs | 11.8 |\n"
        "| merge 2-way | 10 KB | 5.2 ms | 310 µs | 16.8 |\n"
    )
    labels, values, columns = generate.timing_rows(results.read_text())
    assert labels == ["parse 1 KB", "merge 2-way 10 KB"]
    assert values == [[120.5, 10.2], [5200.0, 310.0]]
    assert columns == ["spec", "reference"]
    monkeypatch.setattr(generate, "BENCH_RESULTS", results)
    page = generate.bench_results()
    svg = page[page.index("<svg") :]
    assert "merge 2-way 10 KB" in svg and "reference" in svg
    assert generate.bench_plot("no table here") == ""


def test_performance_page_shows_the_benchmark_table_and_its_plot(
    built_site: Path, generate: ModuleType
) -> None:
    labels, _, columns = generate.timing_rows(generate.BENCH_RESULTS.read_text())
    assert labels and "reference (median)" in columns
    page = html.unescape((built_site / "performance" / "index.html").read_text())
    svg = page[page.index('<div class="bench-plot">') :]
    for label in labels:
        assert label in svg


def test_built_cli_page_shows_the_exit_statuses(built_site: Path) -> None:
    page = html.unescape((built_site / "cli" / "index.html").read_text())
    for status in Exit:
        cell = f'<td style="text-align: right;">{status.value}</td>'
        assert cell in page and meaning(status).split("`")[0] in page, status


def test_api_pages_cover_every_module_of_the_listed_packages(
    built_site: Path, generate: ModuleType
) -> None:
    for package in generate.API_PACKAGES:
        modules = generate.api_modules(package)
        assert modules, package
        package_page = (built_site / generate.api_path(package)).with_suffix(".html")
        listing = package_page.read_text()
        for module in modules:
            page = built_site / generate.api_path(module).removesuffix(".md") / "index.html"
            assert page.is_file(), module
            name = module.rsplit(".", 1)[1]
            assert f'href="{name}/"' in listing, module


def test_api_navigation_is_grouped_by_role_then_design(generate: ModuleType) -> None:
    nav = generate.api_nav()
    assert [next(iter(role)) for role in nav] == ["spec", "reference", "fuzz"]
    spec_designs = [next(iter(design)) for design in nav[0]["spec"]]
    assert spec_designs == ["configmerge", "kvgossip"]
    first_pages = nav[0]["spec"][0]["configmerge"]
    assert first_pages[0] == {"swarmconf.spec.configmerge": "api/spec/configmerge/index.md"}
    assert {"swarmconf.spec.configmerge.merge": "api/spec/configmerge/merge.md"} in first_pages


def test_api_pages_need_the_overview_in_the_navigation(generate: ModuleType) -> None:
    section: list[object] = ["api/index.md"]
    generate.on_config({"nav": [{"Reference": [{"Python API": section}]}]})
    assert section == ["api/index.md", *generate.api_nav()]
    with pytest.raises(PluginError, match=re.escape("api/index.md")):
        generate.on_config({"nav": [{"Reference": ["cli.md"]}]})
