"""Key grammar, pattern grammar and pattern matching vectors (notes 1.2, 2.2; table rows 17-18;
section 5 cases 17-18)."""

from __future__ import annotations

from .base import Flag, Mismatch, Suite, add

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


def build(strict: bool = True) -> Suite:
    suite = Suite(
        "keys",
        [
            "key: is the string a valid key; pattern: is it a valid grant pattern;",
            "match: does the (valid) pattern match the (valid) key.",
        ],
        FLAGS,
    )
    keys = suite.group("key")
    for name, key, comment, reason in [
        ("key-simple", "/a", "One segment.", None),
        ("key-all-characters", "/x_y-z.1", "Underscore, dash, dot and digits.", None),
        (
            "key-design-example",
            "/fusebot.io/r/np1/devices/d1/autopilot/target_state",
            "A key of the design text's grant example.",
            None,
        ),
        ("key-empty", "", "The empty string.", "KEY_SYNTAX"),
        ("key-root-slash", "/", "Only a slash: one empty segment.", "KEY_SYNTAX"),
        ("key-trailing-slash", "/a/", "A trailing slash.", "KEY_SYNTAX"),
        ("key-double-slash", "/a//b", "An empty segment.", "KEY_SYNTAX"),
        ("key-no-leading-slash", "a/b", "No leading slash.", "KEY_SYNTAX"),
        ("key-dot-segment", "/a/./b", "A `.` segment.", "KEY_DOT_SEGMENT"),
        ("key-dotdot-segment", "/a/../b", "A `..` segment.", "KEY_DOT_SEGMENT"),
        ("key-space", "/a b", "A space.", "KEY_SYNTAX"),
        ("key-non-ascii", "/caf\u00e9", "A non-ASCII letter.", "KEY_SYNTAX"),
        ("key-star", "/a/*", "A wildcard is not a key character.", "KEY_SYNTAX"),
        ("key-256-bytes", "/" + "k" * 255, "Exactly 256 bytes.", None),
        ("key-257-bytes", "/" + "k" * 256, "257 bytes.", "KEY_TOO_LONG"),
        ("key-32-segments", "/s" * 32, "Exactly 32 segments.", None),
        ("key-33-segments", "/s" * 33, "33 segments.", "KEY_TOO_DEEP"),
    ]:
        flags = ["InvalidKey"] if reason else ["ValidKey"]
        if name == "key-all-characters":
            flags.append("GoHole")
        if name == "key-design-example":
            flags.append("DesignExample")
        add(
            suite,
            keys,
            name,
            comment,
            flags=flags,
            rules=["notes:1.2", "row:17", "attack:18"],
            input={"key": key},
            want="invalid" if reason else "valid",
            reason=reason,
            strict=strict,
        )

    patterns = suite.group("pattern")
    for name, pattern, comment, reason in [
        ("pattern-doublestar-tail", "/a/**", "A whole-segment `**` at the end.", None),
        ("pattern-star-in-segment", "/p/tar*", "`*` inside a segment.", None),
        (
            "pattern-design-example",
            "/fusebot.io/r/*/devices/*/autopilot/target_state",
            "The design text's second grant example.",
            None,
        ),
        ("pattern-everything", "/**", "Every key.", None),
        (
            "pattern-doublestar-inside-segment",
            "/a**b",
            "`**` inside a segment.",
            "PATTERN_DOUBLESTAR_IN_SEGMENT",
        ),
        ("pattern-empty-segment", "/a//b", "An empty segment.", "PATTERN_SYNTAX"),
        (
            "pattern-no-leading-slash",
            "a/**",
            "No leading slash (GRANT.md's examples).",
            "PATTERN_SYNTAX",
        ),
        (
            "pattern-question-mark",
            "/a/?",
            "`?` is not in the restricted grammar.",
            "PATTERN_SYNTAX",
        ),
        ("pattern-class", "/[abc]", "Character classes are dropped.", "PATTERN_SYNTAX"),
        ("pattern-alternatives", "/{a,b}", "Alternatives are dropped.", "PATTERN_SYNTAX"),
        ("pattern-escape", "/a\\*", "Escapes are dropped.", "PATTERN_SYNTAX"),
        ("pattern-dot-segment", "/a/../**", "A `..` segment.", "PATTERN_DOT_SEGMENT"),
        ("pattern-128-bytes", "/" + "p" * 127, "Exactly 128 bytes.", None),
        ("pattern-129-bytes", "/" + "p" * 128, "129 bytes.", "PATTERN_TOO_LONG"),
        ("pattern-33-segments", "/*" * 33, "33 segments.", "PATTERN_TOO_DEEP"),
    ]:
        flags = ["InvalidPattern"] if reason else ["ValidPattern"]
        if name in (
            "pattern-question-mark",
            "pattern-class",
            "pattern-alternatives",
            "pattern-escape",
        ):
            flags.append("GoHole")
        if name == "pattern-design-example":
            flags.append("DesignExample")
        add(
            suite,
            patterns,
            name,
            comment,
            flags=flags,
            rules=["notes:2.2", "row:18", "attack:17"],
            input={"pattern": pattern},
            want="invalid" if reason else "valid",
            reason=reason,
            strict=strict,
        )

    match = suite.group("match")
    for name, pattern, key, comment, flag in [
        (
            "tail-doublestar-needs-a-segment",
            "/a/**",
            "/a",
            "A final `/**` needs >= 1 segment.",
            "Doublestar",
        ),
        ("tail-doublestar-one", "/a/**", "/a/x", "One segment under /a.", "Doublestar"),
        ("tail-doublestar-deep", "/a/**", "/a/x/y", "Two segments under /a.", "Doublestar"),
        ("tail-doublestar-other-prefix", "/a/**", "/ab/x", "Segments match whole.", "Doublestar"),
        (
            "inner-doublestar-zero",
            "/a/**/b",
            "/a/b",
            "An inner `**` may match nothing.",
            "Doublestar",
        ),
        (
            "inner-doublestar-many",
            "/a/**/b",
            "/a/x/y/b",
            "An inner `**` spans segments.",
            "Doublestar",
        ),
        (
            "inner-doublestar-no-end",
            "/a/**/b",
            "/a/x/c",
            "The literal after `**` must match.",
            "Doublestar",
        ),
        ("everything", "/**", "/z", "`/**` matches any key.", "Doublestar"),
        ("star-one-segment", "/r/*/d", "/r/x/d", "`*` is one segment.", "SingleStar"),
        ("star-not-two-segments", "/r/*/d", "/r/x/y/d", "`*` never crosses `/`.", "SingleStar"),
        ("star-empty-run", "/p/tar*", "/p/tar", "`*` may be empty.", "SingleStar"),
        ("star-prefix-needed", "/p/tar*", "/p/t", "The literal prefix must match.", "SingleStar"),
        ("star-suffix", "/p/*.json", "/p/a.json", "`*` before a literal suffix.", "SingleStar"),
        ("star-not-empty-segment", "/a/*", "/a", "`/*` needs a segment.", "SingleStar"),
        ("literal-exact", "/a/c", "/a/c", "A literal pattern matches itself.", "SingleStar"),
        ("literal-case", "/a/C", "/a/c", "Matching is case-sensitive.", "SingleStar"),
        (
            "design-np1",
            "/fusebot.io/r/np1/*",
            "/fusebot.io/r/np1/x",
            "The design text's first grant example.",
            "DesignExample",
        ),
        (
            "design-np1-deep",
            "/fusebot.io/r/np1/*",
            "/fusebot.io/r/np1/x/y",
            "`*` is one segment, so the design example does not reach deeper keys.",
            "DesignExample",
        ),
        (
            "design-target-state",
            "/fusebot.io/r/*/devices/*/autopilot/target_state",
            "/fusebot.io/r/np1/devices/d1/autopilot/target_state",
            "The design text's second grant example.",
            "DesignExample",
        ),
    ]:
        add(
            suite,
            match,
            name,
            comment,
            flags=[flag],
            rules=["notes:2.2", "attack:17"],
            input={"pattern": pattern, "key": key},
            want="valid",
            strict=strict,
        )
        if strict and match.tests[-1]["expected"]["matches"] != (name in MATCHING):
            raise Mismatch(f"keys/{name}: matches() disagrees with the case's intent")
    return suite


MATCHING = {
    "tail-doublestar-one",
    "tail-doublestar-deep",
    "inner-doublestar-zero",
    "inner-doublestar-many",
    "everything",
    "star-one-segment",
    "star-empty-run",
    "star-suffix",
    "literal-exact",
    "design-np1",
    "design-target-state",
}
