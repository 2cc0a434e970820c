"""Deliberately broken mergers: the spec's own merge steps with one rule changed.

Each mutant reuses the building blocks of `swarmconf.spec.configmerge.merge` (parse, ignore
rules, replay set, replay) and changes exactly one thing. With no mutation,
`mutant_merge(None)` reproduces `swarmconf.spec.configmerge.merge` byte for byte (tested), so a
campaign that catches a mutant catches that one rule being wrong.
"""

from __future__ import annotations

from collections.abc import Callable

from swarmconf.spec.configmerge.data import pruned
from swarmconf.spec.configmerge.diff import apply_diff, replay
from swarmconf.spec.configmerge.merge import apply_ignore_rules, build_replay_set, parse_valid
from swarmconf.spec.configmerge.message import ConfigMessage, LaggedEntry, check_lag, in_window
from swarmconf.spec.configmerge.reasons import Reason, require

MUTANTS: dict[str, str] = {
    "ties": "same-seqno ties broken the wrong way: the lower hash ranks higher",
    "replay-lowest": "the replay set keeps the lowest-ranked message's copy of an entry",
    "lag-off-by-one": "the window is one seqno wider when ignoring and when keeping lagged",
    "no-pruning": "empty sets and dicts are not pruned after the replay",
    "unknown-keys": "the merge result keeps the top message's unknown top-level keys",
}


def flipped(hash_: bytes) -> bytes:
    return bytes(255 - byte for byte in hash_)


def mutant_merge(mutant: str | None) -> Callable[..., ConfigMessage]:
    """`merge(messages, *, lag, verify_key, sign_key)` with `mutant` applied."""
    merge_parsed = parsed_merger(mutant)

    def merge(
        messages: list[bytes],
        *,
        lag: int = 5,
        verify_key: bytes | None = None,
        sign_key: bytes | None = None,
    ) -> ConfigMessage:
        check_lag(lag)
        valid = parse_valid(messages, lag, verify_key)
        require(valid != [], Reason.NO_VALID_MESSAGE)
        return merge_parsed(valid, lag=lag, verify_key=verify_key, sign_key=sign_key)

    return merge


def parsed_merger(mutant: str | None) -> Callable[..., ConfigMessage]:
    """The merge of already parsed, valid messages (the spec's D14/D15 steps after parsing),
    with `mutant` applied: a campaign parses each distinct message once and reuses it."""
    widen = 1 if mutant == "lag-off-by-one" else 0

    def merge_parsed(
        valid: list[ConfigMessage],
        *,
        lag: int,
        verify_key: bytes | None,
        sign_key: bytes | None,
    ) -> ConfigMessage:
        remaining = apply_ignore_rules(valid, lag + widen)
        if mutant == "ties":
            remaining.sort(key=lambda m: (m.seqno, flipped(m.hash)), reverse=True)
        if len(remaining) == 1 or (verify_key is not None and sign_key is None):
            return remaining[0]
        return merge_ranked(remaining, lag, sign_key)

    def merge_ranked(
        ranked: list[ConfigMessage], lag: int, sign_key: bytes | None
    ) -> ConfigMessage:
        seqno = ranked[0].seqno + 1
        sources = ranked[::-1] if mutant == "replay-lowest" else ranked
        replay_set = build_replay_set(sources)
        if mutant == "ties":
            order = sorted(replay_set, key=lambda key: (key[0], flipped(key[1])))
        else:
            order = sorted(replay_set)
        entries = [replay_set[key] for key in order]
        if mutant == "no-pruning":
            data = pruned(ranked[0].data)
            for diff, source in entries:
                apply_diff(data, diff, source)
        else:
            data = replay(ranked[0].data, entries)
        lagged = [
            LaggedEntry(key[0], key[1], replay_set[key][0])
            for key in order
            if in_window(key[0], seqno, lag + widen)
        ]
        extra = dict(ranked[0].extra) if mutant == "unknown-keys" else None
        return ConfigMessage(
            seqno=seqno,
            data=data,
            lagged=lagged,
            lag=lag,
            extra=extra,
            merged=True,
            sign_key=sign_key,
        )

    return merge_parsed
