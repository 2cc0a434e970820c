"""The browser check's event filter and page list (Chromium itself runs in `make docs-browser`)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType


def test_errors_are_picked_out_of_devtools_events(browser: ModuleType) -> None:
    events = [
        {"method": "Runtime.consoleAPICalled", "params": {"type": "log", "args": []}},
        {
            "method": "Runtime.consoleAPICalled",
            "params": {"type": "error", "args": [{"value": "bad"}]},
        },
        {
            "method": "Runtime.exceptionThrown",
            "params": {"exceptionDetails": {"text": "x", "exception": {"description": "E: boom"}}},
        },
        {"method": "Log.entryAdded", "params": {"entry": {"level": "warning", "text": "meh"}}},
        {"method": "Log.entryAdded", "params": {"entry": {"level": "error", "text": "404"}}},
        {"method": "Network.loadingFailed", "params": {"canceled": True}},
        {"method": "Network.loadingFailed", "params": {"errorText": "net::ERR_FAILED"}},
        {"method": "Network.responseReceived", "params": {"response": {"status": 200, "url": "a"}}},
        {"method": "Network.responseReceived", "params": {"response": {"status": 404, "url": "b"}}},
    ]
    assert browser.page_errors(events) == [
        "console error: bad",
        "uncaught exception: E: boom",
        "log error: 404 (None)",
        "resource failed: net::ERR_FAILED",
        "HTTP 404 for b",
    ]


def test_every_page_but_404_is_visited(built_site: Path, browser: ModuleType) -> None:
    pages = browser.site_pages(built_site)
    assert "/" in pages and "/spec/merge/" in pages
    assert not any("404" in page for page in pages)
    assert len(pages) == len(list(built_site.rglob("index.html")))
