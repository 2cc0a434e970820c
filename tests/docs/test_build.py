"""The site builds with --strict, has every page of the navigation, and has no broken links."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

MAIN_PAGES = [
    "index.html",
    "quickstart/index.html",
    "spec/index.html",
    "spec/merge/index.html",
    "errata/index.html",
    "wire-format/index.html",
    "reason-codes/index.html",
    "conformance/index.html",
    "kvgossip/simulation/index.html",
    "cli/index.html",
    "api/index.html",
    "api/spec/configmerge/merge/index.html",
    "api/spec/kvgossip/session/index.html",
    "api/reference/configmerge/index.html",
    "api/fuzz/configmerge/shrink/index.html",
]


def test_main_pages_are_built(built_site: Path) -> None:
    missing = [page for page in MAIN_PAGES if not (built_site / page).is_file()]
    assert missing == []


def test_no_broken_internal_links(built_site: Path, links: ModuleType) -> None:
    broken, _ = links.check_site(built_site)
    assert broken == []


def test_link_checker_reports_missing_files_and_anchors(tmp_path: Path, links: ModuleType) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text('<h1 id="top">A</h1>')
    (tmp_path / "index.html").write_text(
        '<a href="a/#top">ok</a><a href="a/#nope">bad anchor</a>'
        '<a href="b/">missing</a><a href="https://example.org/">external</a>'
    )
    broken, external = links.check_site(tmp_path)
    assert broken == [
        "index.html: a/#nope (no anchor #nope)",
        "index.html: b/ (no such file)",
    ]
    assert external == ["https://example.org/"]
