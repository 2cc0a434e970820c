"""Generated blocks committed in Markdown files, between a pair of markers:

    <!-- generate: NAME -->

    ...the text the generator NAME last wrote...

    <!-- end: NAME -->

The text between the markers is what a reader of the raw file sees and what the site shows;
`fill` writes it anew from the generators. Plain text handling: this module imports neither
swarmconf nor MkDocs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

OPENING = re.compile(r"^<!-- generate: ([a-z0-9-]+) -->$", re.MULTILINE)
CLOSING = "<!-- end: {name} -->"


class BlockError(ValueError):
    """A marker without its pair, or a pair naming no generator."""


@dataclass(frozen=True)
class Block:
    """One generated block: its name, where its text starts and ends, and the text."""

    name: str
    start: int
    end: int
    text: str


def blocks(markdown: str, where: str) -> list[Block]:
    """Every generated block of `markdown` in order; `where` names the file in errors."""
    found = []
    position = 0
    while opening := OPENING.search(markdown, position):
        name = opening.group(1)
        closing = CLOSING.format(name=name)
        end = markdown.find("\n" + closing, opening.end())
        if end < 0:
            raise BlockError(f"{where}: `<!-- generate: {name} -->` has no `{closing}` after it")
        found.append(Block(name, opening.end(), end + 1, markdown[opening.end() : end + 1]))
        position = end + 1 + len(closing)
    return found


def framed(text: str) -> str:
    """A generator's text as it sits between the markers: one blank line on either side."""
    return "\n\n" + text.strip("\n") + "\n\n"


def fill(markdown: str, where: str, generate: Callable[[str], str]) -> str:
    """`markdown` with every block's text replaced by `generate(name)`."""
    pieces = []
    position = 0
    for block in blocks(markdown, where):
        pieces += [markdown[position : block.start], framed(generate(block.name))]
        position = block.end
    return "".join(pieces) + markdown[position:]


def stale(markdown: str, where: str, generate: Callable[[str], str]) -> list[str]:
    """The names of the blocks whose text is not what `generate` writes now."""
    return [
        block.name
        for block in blocks(markdown, where)
        if block.text != framed(generate(block.name))
    ]
