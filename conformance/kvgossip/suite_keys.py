"""Key grammar, pattern grammar and pattern matching vectors (notes 1.2, 2.2; table rows 17-18;
section 5 cases 17-18)."""

from __future__ import annotations

from swarmconf.conformance.catalogue import Catalogue

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


HEADER = [
    "key: is the string a valid key; pattern: is it a valid grant pattern;",
    "match: does the (valid) pattern match the (valid) key.",
]


class Grammar:
    """The suite and its groups: keys, patterns, and a pattern matched against a key."""

    def __init__(self, strict: bool) -> None:
        self.suite = Suite("keys", HEADER, FLAGS)
        self.strict = strict

    def key(
        self, name: str, key: str, comment: str, reason: str | None = None, *extra: str
    ) -> None:
        """A key, valid unless `reason`; `extra` flags say why the case is notable."""
        self._check("key", name, comment, "Key", reason, extra, {"key": key}, "row:17", "attack:18")

    def pattern(
        self, name: str, pattern: str, comment: str, reason: str | None = None, *extra: str
    ) -> None:
        """A pattern, valid unless `reason`; `extra` flags say why the case is notable."""
        inputs = {"pattern": pattern}
        self._check(
            "pattern", name, comment, "Pattern", reason, extra, inputs, "row:18", "attack:17"
        )

    def _check(
        self,
        type_: str,
        name: str,
        comment: str,
        what: str,
        reason: str | None,
        extra: tuple[str, ...],
        inputs: dict[str, str],
        *rules: str,
    ) -> None:
        notes = "notes:1.2" if type_ == "key" else "notes:2.2"
        add(
            self.suite,
            self.suite.group(type_),
            name,
            comment,
            flags=[("Invalid" if reason else "Valid") + what, *extra],
            rules=[notes, *rules],
            input=inputs,
            want="invalid" if reason else "valid",
            reason=reason,
            strict=self.strict,
        )

    def match(
        self, name: str, pattern: str, key: str, comment: str, flag: str, matches: bool
    ) -> None:
        """Does `pattern` match `key`? `matches` is what the case is written to show."""
        group = self.suite.group("match")
        add(
            self.suite,
            group,
            name,
            comment,
            flags=[flag],
            rules=["notes:2.2", "attack:17"],
            input={"pattern": pattern, "key": key},
            want="valid",
            strict=self.strict,
        )
        if self.strict and group.tests[-1]["expected"]["matches"] != matches:
            raise Mismatch(f"keys/{name}: matches() disagrees with the case's intent")


case = Catalogue[Grammar]()


# Keys


@case
def valid_keys(g: Grammar) -> None:
    g.key("key-simple", "/a", "One segment.")
    g.key("key-all-characters", "/x_y-z.1", "Underscore, dash, dot and digits.", None, "GoHole")
    g.key(
        "key-design-example",
        "/fusebot.io/r/np1/devices/d1/autopilot/target_state",
        "A key of the design text's grant example.",
        None,
        "DesignExample",
    )


@case
def key_syntax(g: Grammar) -> None:
    g.key("key-empty", "", "The empty string.", "KEY_SYNTAX")
    g.key("key-root-slash", "/", "Only a slash: one empty segment.", "KEY_SYNTAX")
    g.key("key-trailing-slash", "/a/", "A trailing slash.", "KEY_SYNTAX")
    g.key("key-double-slash", "/a//b", "An empty segment.", "KEY_SYNTAX")
    g.key("key-no-leading-slash", "a/b", "No leading slash.", "KEY_SYNTAX")
    g.key("key-dot-segment", "/a/./b", "A `.` segment.", "KEY_DOT_SEGMENT")
    g.key("key-dotdot-segment", "/a/../b", "A `..` segment.", "KEY_DOT_SEGMENT")
    g.key("key-space", "/a b", "A space.", "KEY_SYNTAX")
    g.key("key-non-ascii", "/caf\u00e9", "A non-ASCII letter.", "KEY_SYNTAX")
    g.key("key-star", "/a/*", "A wildcard is not a key character.", "KEY_SYNTAX")


@case
def key_caps(g: Grammar) -> None:
    g.key("key-256-bytes", "/" + "k" * 255, "Exactly 256 bytes.")
    g.key("key-257-bytes", "/" + "k" * 256, "257 bytes.", "KEY_TOO_LONG")
    g.key("key-32-segments", "/s" * 32, "Exactly 32 segments.")
    g.key("key-33-segments", "/s" * 33, "33 segments.", "KEY_TOO_DEEP")


# Patterns


@case
def valid_patterns(g: Grammar) -> None:
    g.pattern("pattern-doublestar-tail", "/a/**", "A whole-segment `**` at the end.")
    g.pattern("pattern-star-in-segment", "/p/tar*", "`*` inside a segment.")
    g.pattern(
        "pattern-design-example",
        "/fusebot.io/r/*/devices/*/autopilot/target_state",
        "The design text's second grant example.",
        None,
        "DesignExample",
    )
    g.pattern("pattern-everything", "/**", "Every key.")


@case
def pattern_syntax(g: Grammar) -> None:
    g.pattern(
        "pattern-doublestar-inside-segment",
        "/a**b",
        "`**` inside a segment.",
        "PATTERN_DOUBLESTAR_IN_SEGMENT",
    )
    g.pattern("pattern-empty-segment", "/a//b", "An empty segment.", "PATTERN_SYNTAX")
    g.pattern(
        "pattern-no-leading-slash",
        "a/**",
        "No leading slash (GRANT.md's examples).",
        "PATTERN_SYNTAX",
    )


@case
def pattern_syntax_go_accepts(g: Grammar) -> None:
    """Go's doublestar matcher takes these; the restricted grammar does not."""
    for name, pattern, comment in [
        ("pattern-question-mark", "/a/?", "`?` is not in the restricted grammar."),
        ("pattern-class", "/[abc]", "Character classes are dropped."),
        ("pattern-alternatives", "/{a,b}", "Alternatives are dropped."),
        ("pattern-escape", "/a\\*", "Escapes are dropped."),
    ]:
        g.pattern(name, pattern, comment, "PATTERN_SYNTAX", "GoHole")


@case
def pattern_dot_segment_and_caps(g: Grammar) -> None:
    g.pattern("pattern-dot-segment", "/a/../**", "A `..` segment.", "PATTERN_DOT_SEGMENT")
    g.pattern("pattern-128-bytes", "/" + "p" * 127, "Exactly 128 bytes.")
    g.pattern("pattern-129-bytes", "/" + "p" * 128, "129 bytes.", "PATTERN_TOO_LONG")
    g.pattern("pattern-33-segments", "/*" * 33, "33 segments.", "PATTERN_TOO_DEEP")


# Matching


@case
def doublestar(g: Grammar) -> None:
    for name, pattern, key, comment, matches in [
        (
            "tail-doublestar-needs-a-segment",
            "/a/**",
            "/a",
            "A final `/**` needs >= 1 segment.",
            False,
        ),
        ("tail-doublestar-one", "/a/**", "/a/x", "One segment under /a.", True),
        ("tail-doublestar-deep", "/a/**", "/a/x/y", "Two segments under /a.", True),
        ("tail-doublestar-other-prefix", "/a/**", "/ab/x", "Segments match whole.", False),
        ("inner-doublestar-zero", "/a/**/b", "/a/b", "An inner `**` may match nothing.", True),
        ("inner-doublestar-many", "/a/**/b", "/a/x/y/b", "An inner `**` spans segments.", True),
        (
            "inner-doublestar-no-end",
            "/a/**/b",
            "/a/x/c",
            "The literal after `**` must match.",
            False,
        ),
        ("everything", "/**", "/z", "`/**` matches any key.", True),
    ]:
        g.match(name, pattern, key, comment, "Doublestar", matches)


@case
def single_star_and_literals(g: Grammar) -> None:
    for name, pattern, key, comment, matches in [
        ("star-one-segment", "/r/*/d", "/r/x/d", "`*` is one segment.", True),
        ("star-not-two-segments", "/r/*/d", "/r/x/y/d", "`*` never crosses `/`.", False),
        ("star-empty-run", "/p/tar*", "/p/tar", "`*` may be empty.", True),
        ("star-prefix-needed", "/p/tar*", "/p/t", "The literal prefix must match.", False),
        ("star-suffix", "/p/*.json", "/p/a.json", "`*` before a literal suffix.", True),
        ("star-not-empty-segment", "/a/*", "/a", "`/*` needs a segment.", False),
        ("literal-exact", "/a/c", "/a/c", "A literal pattern matches itself.", True),
        ("literal-case", "/a/C", "/a/c", "Matching is case-sensitive.", False),
    ]:
        g.match(name, pattern, key, comment, "SingleStar", matches)


@case
def design_examples(g: Grammar) -> None:
    np1 = "/fusebot.io/r/np1/*"
    g.match(
        "design-np1",
        np1,
        "/fusebot.io/r/np1/x",
        "The design text's first grant example.",
        "DesignExample",
        True,
    )
    g.match(
        "design-np1-deep",
        np1,
        "/fusebot.io/r/np1/x/y",
        "`*` is one segment, so the design example does not reach deeper keys.",
        "DesignExample",
        False,
    )
    g.match(
        "design-target-state",
        "/fusebot.io/r/*/devices/*/autopilot/target_state",
        "/fusebot.io/r/np1/devices/d1/autopilot/target_state",
        "The design text's second grant example.",
        "DesignExample",
        True,
    )


def build(strict: bool = True) -> Suite:
    return case.fill(Grammar(strict)).suite
