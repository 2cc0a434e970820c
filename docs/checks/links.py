"""Check every internal link and anchor in a built MkDocs site.

Usage: python docs/checks/links.py SITE_DIR

Each `href` and `src` in every HTML file must point at a file that exists in the site, and a
`#fragment` must name an `id` (or `name`) in the target page. External links are listed, not
fetched: CI has no general network access.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


@dataclass
class PageLinks:
    anchors: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.page = PageLinks()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                self.page.anchors.add(value)
            elif name in ("href", "src"):
                self.page.links.append(value)


def read_page(path: Path) -> PageLinks:
    collector = _Collector()
    collector.feed(path.read_text(encoding="utf-8"))
    return collector.page


def resolve(site: Path, page: Path, link: str) -> tuple[Path, str] | None:
    """The file and fragment a relative link points at, or None for an external link."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:", "javascript:")):
        return None
    if parts.path.startswith("/"):
        target = site / unquote(parts.path).lstrip("/")
    elif parts.path:
        target = page.parent / unquote(parts.path)
    else:
        target = page
    if target.is_dir():
        target = target / "index.html"
    return target.resolve(), unquote(parts.fragment)


def check_site(site: Path) -> tuple[list[str], list[str]]:
    """(broken links, external links) over every HTML page of the site."""
    site = site.resolve()
    pages = {path.resolve(): read_page(path) for path in sorted(site.rglob("*.html"))}
    broken: list[str] = []
    external: list[str] = []
    for path, page in pages.items():
        where = path.relative_to(site)
        for link in page.links:
            resolved = resolve(site, path, link)
            if resolved is None:
                external.append(link)
                continue
            target, fragment = resolved
            if not target.is_relative_to(site) or not target.is_file():
                broken.append(f"{where}: {link} (no such file)")
            elif fragment and target.suffix == ".html":
                anchors = pages[target].anchors if target in pages else set()
                if fragment not in anchors:
                    broken.append(f"{where}: {link} (no anchor #{fragment})")
    return broken, sorted(set(external))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: links.py SITE_DIR", file=sys.stderr)
        return 2
    broken, external = check_site(Path(argv[0]))
    for line in broken:
        print(line, file=sys.stderr)
    print(f"{len(broken)} broken links; {len(external)} external links not fetched")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
