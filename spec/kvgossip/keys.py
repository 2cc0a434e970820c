"""Key grammar and the restricted pattern grammar with its matcher (notes 1.2, 2.2, rows 17-18).

Keys are `/`-separated segments of `[A-Za-z0-9._-]` (no `.` or `..`, at most 256 bytes and 32
segments). Patterns use the same segments plus two wildcards: `*` inside a segment matches any
run of non-`/` characters (possibly empty), and a whole segment `**` matches zero or more whole
segments, except that a final `/**` needs at least one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from .reasons import KvReason, require

MAX_KEY_BYTES = 256
MAX_PATTERN_BYTES = 128
MAX_SEGMENTS = 32

_KEY_SEGMENT = re.compile(r"[A-Za-z0-9._-]+")
_PATTERN_SEGMENT = re.compile(r"[A-Za-z0-9._*-]+")


def _segments(text: str, reason: KvReason) -> list[str]:
    """Split a key or pattern after its leading `/`, refusing a missing `/` or empty segment."""
    require(text.startswith("/"), reason, "must start with /")
    parts = text[1:].split("/")
    require(all(parts), reason, "empty segment")
    return parts


def check_key(key: str) -> None:
    """Refuse a key outside the grammar of notes 1.2 (row 17)."""
    # Verify the size cap
    require(len(key.encode()) <= MAX_KEY_BYTES, KvReason.KEY_TOO_LONG)
    # Verify the segments' characters
    parts = _segments(key, KvReason.KEY_SYNTAX)
    require(all(_KEY_SEGMENT.fullmatch(p) for p in parts), KvReason.KEY_SYNTAX)
    # Verify there are no `.`/`..` segments and not too many segments
    require(not any(p in (".", "..") for p in parts), KvReason.KEY_DOT_SEGMENT)
    require(len(parts) <= MAX_SEGMENTS, KvReason.KEY_TOO_DEEP)


def check_pattern(pattern: str) -> None:
    """Refuse a pattern outside the restricted grammar of notes 2.2 (row 18)."""
    # Verify the size cap
    require(len(pattern.encode()) <= MAX_PATTERN_BYTES, KvReason.PATTERN_TOO_LONG)
    # Verify the segments' characters
    parts = _segments(pattern, KvReason.PATTERN_SYNTAX)
    require(all(_PATTERN_SEGMENT.fullmatch(p) for p in parts), KvReason.PATTERN_SYNTAX)
    # Verify `**` only stands as a whole segment
    require(all(p == "**" or "**" not in p for p in parts), KvReason.PATTERN_DOUBLESTAR_IN_SEGMENT)
    # Verify there are no `.`/`..` segments and not too many segments
    require(not any(p in (".", "..") for p in parts), KvReason.PATTERN_DOT_SEGMENT)
    require(len(parts) <= MAX_SEGMENTS, KvReason.PATTERN_TOO_DEEP)


@lru_cache(maxsize=4096)
def _segment_regex(segment: str) -> re.Pattern[str]:
    """A segment pattern as a regex: literal text, `*` = any run of non-`/` characters."""
    return re.compile("[^/]*".join(re.escape(piece) for piece in segment.split("*")))


def matches(pattern: str, key: str) -> bool:
    """True iff the well-formed `pattern` matches the well-formed `key` (notes 2.2).

    Components are matched in turn; `**` consumes zero or more whole components, except a final
    `**`, which needs at least one. So literal components under a final `/**` (the usual grant)
    match exactly the keys that begin with them and a `/`.
    """
    stem, tail = pattern[:-3], pattern[-3:]
    if tail == "/**" and "*" not in stem:
        return key.startswith(stem + "/")
    return _match_parts(tuple(pattern[1:].split("/")), tuple(key[1:].split("/")))


@lru_cache(maxsize=1 << 15)
def _match_parts(pattern: tuple[str, ...], key: tuple[str, ...]) -> bool:
    if not pattern:
        return not key
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        if not rest:
            return len(key) >= 1
        return any(_match_parts(rest, key[i:]) for i in range(len(key) + 1))
    return (
        bool(key) and bool(_segment_regex(head).fullmatch(key[0])) and _match_parts(rest, key[1:])
    )


def pattern_subset(child: str, parent: str) -> bool:
    """Lint: True only if every key `child` matches is also matched by `parent` (notes 2.2).

    Sound but not complete: a False may be a subset this check cannot prove. Validity never
    depends on it (the per-key intersection rule already stops escalation); issuing tools use
    it to warn about or refuse grants wider than their parent.
    """
    return _subset(tuple(child[1:].split("/")), tuple(parent[1:].split("/")))


@lru_cache(maxsize=4096)
def _subset(child: tuple[str, ...], parent: tuple[str, ...]) -> bool:
    # A pattern's tail always needs a segment (it ends in a literal or a final `**`), so an
    # exhausted child is covered only by an exhausted parent, and a final `**` covers any tail.
    if not child or not parent:
        return not child and not parent
    head, rest = child[0], child[1:]
    top, below = parent[0], parent[1:]
    if top == "**" and not below:
        return True
    if top == "**":
        # Let the parent's `**` take nothing, or swallow the child's next segment (or `**`).
        return _subset(child, below) or _subset(rest, parent)
    if head == "**":
        return False
    return _segment_subset(head, top) and _subset(rest, below)


def _segment_subset(child: str, parent: str) -> bool:
    """True only if every segment the glob `child` matches, the glob `parent` matches too."""
    if parent == "*" or child == parent:
        return True
    if "*" not in child:
        return bool(_segment_regex(parent).fullmatch(child))
    pieces = parent.split("*")
    if len(pieces) != 2:
        return False
    prefix, suffix = pieces
    first, last = child.split("*")[0], child.split("*")[-1]
    return first.startswith(prefix) and last.endswith(suffix)
