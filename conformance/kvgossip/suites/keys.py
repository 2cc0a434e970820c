"""Key grammar, pattern grammar and pattern matching vectors (notes 1.2, 2.2; table rows 17-18;
section 5 cases 17-18)."""

from __future__ import annotations

from swarmconf.conformance.builder import VALID, GeneratorMismatch, SuiteBuilder
from swarmconf.conformance.vectors import Flag

from ..vocabulary import new_suite

FLAGS = {
    "ValidKey": Flag("BASIC", "A key inside the grammar.", "Accepted."),
    "InvalidKey": Flag("EDGE_CASE", "A key outside the grammar or its caps.", "Rejected."),
    "ValidPattern": Flag("BASIC", "A pattern inside the restricted grammar.", "Accepted."),
    "InvalidPattern": Flag(
        "EDGE_CASE",
        "A pattern outside the restricted grammar (a grant carrying it is invalid).",
        "Rejected.",
    ),
    "Doublestar": Flag(
        "EDGE_CASE",
        "`**` semantics: zero or more whole segments, a final `/**` needs at least one.",
        "As expected.",
    ),
    "SingleStar": Flag(
        "EDGE_CASE", "`*` matches a possibly empty run inside one segment.", "As expected."
    ),
    "GoHole": Flag(
        "DEPLOYED_QUIRK",
        "The Go implementation behaves differently (its key regex forbids `_` and `-`, and its "
        "matcher accepts more syntax).",
        "Follow the vector.",
    ),
    "DesignExample": Flag(
        "DESIGN_TEXT_EXAMPLE", "An example from kv-gossip.md.", "As the design text implies."
    ),
}


HEADER = [
    "key: is the string a valid key; pattern: is it a valid grant pattern;",
    "match: does the (valid) pattern match the (valid) key.",
]

Grammar = list[tuple[str, str, str, str, tuple[str, ...]]]
"""Cases of one grammar: name, string, comment, `valid` or the reason code, notable flags."""

KEYS: Grammar = [
    ("key-simple", "/a", "One segment.", VALID, ()),
    ("key-all-characters", "/x_y-z.1", "Underscore, dash, dot and digits.", VALID, ("GoHole",)),
    (
        "key-design-example",
        "/fusebot.io/r/np1/devices/d1/autopilot/target_state",
        "A key of the design text's grant example.",
        VALID,
        ("DesignExample",),
    ),
    # Syntax
    ("key-empty", "", "The empty string.", "KEY_SYNTAX", ()),
    ("key-root-slash", "/", "Only a slash: one empty segment.", "KEY_SYNTAX", ()),
    ("key-trailing-slash", "/a/", "A trailing slash.", "KEY_SYNTAX", ()),
    ("key-double-slash", "/a//b", "An empty segment.", "KEY_SYNTAX", ()),
    ("key-no-leading-slash", "a/b", "No leading slash.", "KEY_SYNTAX", ()),
    ("key-dot-segment", "/a/./b", "A `.` segment.", "KEY_DOT_SEGMENT", ()),
    ("key-dotdot-segment", "/a/../b", "A `..` segment.", "KEY_DOT_SEGMENT", ()),
    ("key-space", "/a b", "A space.", "KEY_SYNTAX", ()),
    ("key-non-ascii", "/caf\u00e9", "A non-ASCII letter.", "KEY_SYNTAX", ()),
    ("key-star", "/a/*", "A wildcard is not a key character.", "KEY_SYNTAX", ()),
    # Caps
    ("key-256-bytes", "/" + "k" * 255, "Exactly 256 bytes.", VALID, ()),
    ("key-257-bytes", "/" + "k" * 256, "257 bytes.", "KEY_TOO_LONG", ()),
    ("key-32-segments", "/s" * 32, "Exactly 32 segments.", VALID, ()),
    ("key-33-segments", "/s" * 33, "33 segments.", "KEY_TOO_DEEP", ()),
]

PATTERNS: Grammar = [
    ("pattern-doublestar-tail", "/a/**", "A whole-segment `**` at the end.", VALID, ()),
    ("pattern-star-in-segment", "/p/tar*", "`*` inside a segment.", VALID, ()),
    (
        "pattern-design-example",
        "/fusebot.io/r/*/devices/*/autopilot/target_state",
        "The design text's second grant example.",
        VALID,
        ("DesignExample",),
    ),
    ("pattern-everything", "/**", "Every key.", VALID, ()),
    # Syntax
    (
        "pattern-doublestar-inside-segment",
        "/a**b",
        "`**` inside a segment.",
        "PATTERN_DOUBLESTAR_IN_SEGMENT",
        (),
    ),
    ("pattern-empty-segment", "/a//b", "An empty segment.", "PATTERN_SYNTAX", ()),
    (
        "pattern-no-leading-slash",
        "a/**",
        "No leading slash (GRANT.md's examples).",
        "PATTERN_SYNTAX",
        (),
    ),
    # Go's doublestar matcher takes these; the restricted grammar does not.
    (
        "pattern-question-mark",
        "/a/?",
        "`?` is not in the restricted grammar.",
        "PATTERN_SYNTAX",
        ("GoHole",),
    ),
    ("pattern-class", "/[abc]", "Character classes are dropped.", "PATTERN_SYNTAX", ("GoHole",)),
    ("pattern-alternatives", "/{a,b}", "Alternatives are dropped.", "PATTERN_SYNTAX", ("GoHole",)),
    ("pattern-escape", "/a\\*", "Escapes are dropped.", "PATTERN_SYNTAX", ("GoHole",)),
    # Dot segments and caps
    ("pattern-dot-segment", "/a/../**", "A `..` segment.", "PATTERN_DOT_SEGMENT", ()),
    ("pattern-128-bytes", "/" + "p" * 127, "Exactly 128 bytes.", VALID, ()),
    ("pattern-129-bytes", "/" + "p" * 128, "129 bytes.", "PATTERN_TOO_LONG", ()),
    ("pattern-33-segments", "/*" * 33, "33 segments.", "PATTERN_TOO_DEEP", ()),
]

MATCHES: list[tuple[str, str, str, str, str, bool]] = [
    # name, pattern, key, comment, flag, whether the pattern matches the key
    (
        "tail-doublestar-needs-a-segment",
        "/a/**",
        "/a",
        "A final `/**` needs >= 1 segment.",
        "Doublestar",
        False,
    ),
    ("tail-doublestar-one", "/a/**", "/a/x", "One segment under /a.", "Doublestar", True),
    ("tail-doublestar-deep", "/a/**", "/a/x/y", "Two segments under /a.", "Doublestar", True),
    (
        "tail-doublestar-other-prefix",
        "/a/**",
        "/ab/x",
        "Segments match whole.",
        "Doublestar",
        False,
    ),
    (
        "inner-doublestar-zero",
        "/a/**/b",
        "/a/b",
        "An inner `**` may match nothing.",
        "Doublestar",
        True,
    ),
    (
        "inner-doublestar-many",
        "/a/**/b",
        "/a/x/y/b",
        "An inner `**` spans segments.",
        "Doublestar",
        True,
    ),
    (
        "inner-doublestar-no-end",
        "/a/**/b",
        "/a/x/c",
        "The literal after `**` must match.",
        "Doublestar",
        False,
    ),
    ("everything", "/**", "/z", "`/**` matches any key.", "Doublestar", True),
    ("star-one-segment", "/r/*/d", "/r/x/d", "`*` is one segment.", "SingleStar", True),
    ("star-not-two-segments", "/r/*/d", "/r/x/y/d", "`*` never crosses `/`.", "SingleStar", False),
    ("star-empty-run", "/p/tar*", "/p/tar", "`*` may be empty.", "SingleStar", True),
    (
        "star-prefix-needed",
        "/p/tar*",
        "/p/t",
        "The literal prefix must match.",
        "SingleStar",
        False,
    ),
    ("star-suffix", "/p/*.json", "/p/a.json", "`*` before a literal suffix.", "SingleStar", True),
    ("star-not-empty-segment", "/a/*", "/a", "`/*` needs a segment.", "SingleStar", False),
    ("literal-exact", "/a/c", "/a/c", "A literal pattern matches itself.", "SingleStar", True),
    ("literal-case", "/a/C", "/a/c", "Matching is case-sensitive.", "SingleStar", False),
    (
        "design-np1",
        "/fusebot.io/r/np1/*",
        "/fusebot.io/r/np1/x",
        "The design text's first grant example.",
        "DesignExample",
        True,
    ),
    (
        "design-np1-deep",
        "/fusebot.io/r/np1/*",
        "/fusebot.io/r/np1/x/y",
        "`*` is one segment, so the design example does not reach deeper keys.",
        "DesignExample",
        False,
    ),
    (
        "design-target-state",
        "/fusebot.io/r/*/devices/*/autopilot/target_state",
        "/fusebot.io/r/np1/devices/d1/autopilot/target_state",
        "The design text's second grant example.",
        "DesignExample",
        True,
    ),
]


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("keys", " ".join(HEADER), FLAGS, strict=strict)
    for op, field, what, cases, rules in [
        ("kv_key", "key", "Key", KEYS, ["notes:1.2", "row:17", "attack:18"]),
        ("kv_pattern", "pattern", "Pattern", PATTERNS, ["notes:2.2", "row:18", "attack:17"]),
    ]:
        group = suite.group(op)
        for name, text, comment, expect, notable in cases:
            group.case(
                name,
                comment,
                flags=[("Valid" if expect == VALID else "Invalid") + what, *notable],
                input={field: text},
                expect=expect,
                rules=rules,
            )
    group = suite.group("kv_match")
    for name, pattern, key, comment, flag, matches in MATCHES:
        answer = group.case(
            name,
            comment,
            flags=[flag],
            input={"pattern": pattern, "key": key},
            expect=VALID,
            rules=["notes:2.2", "attack:17"],
        )
        if suite.strict and (answer.expected or {}).get("matches") != matches:
            raise GeneratorMismatch(f"keys/{name}: the spec's matches() is not {matches}")
    return suite
