"""Ignored updates (D14) and conflict resolution (D15): design text "Client update behaviour"."""

from __future__ import annotations

from .bt import INT64_MAX
from .data import Data
from .diff import Diff, replay
from .message import DEFAULT_LAG, ConfigMessage, LaggedEntry, check_lag, in_window, parse
from .reasons import ConfigError, Reason, require
from .signing import check_verify_key, signing_key

Rank = tuple[int, bytes]


def rank(message: ConfigMessage) -> Rank:
    """Messages are ranked by (seqno, hash), hashes compared as unsigned bytes (D1)."""
    return (message.seqno, message.hash)


def merge(
    messages: list[bytes],
    *,
    lag: int = DEFAULT_LAG,
    verify_key: bytes | None = None,
    sign_key: bytes | None = None,
) -> ConfigMessage:
    """The config every client agrees on for the messages it has seen (D14, D15, D17).

    Invalid messages are skipped. One message left after the ignore rules is returned unchanged;
    several are merged into a new, editable message with seqno max + 1.
    """
    check_lag(lag)
    if verify_key is not None:
        check_verify_key(verify_key)
    if sign_key is not None:
        signing_key(sign_key)
    valid = parse_valid(messages, lag, verify_key)
    # Verify at least one message is valid
    require(valid != [], Reason.NO_VALID_MESSAGE, f"none of {len(messages)} inputs")
    return merge_parsed(valid, lag=lag, verify_key=verify_key, sign_key=sign_key)


def merge_parsed(
    valid: list[ConfigMessage],
    *,
    lag: int = DEFAULT_LAG,
    verify_key: bytes | None = None,
    sign_key: bytes | None = None,
) -> ConfigMessage:
    """`merge` of messages already parsed (with the same `lag` and `verify_key`) and valid: the
    ignore rules, then the conflict resolution (D14, D15, D17). A caller that sees the same
    messages in many merges parses each once."""
    remaining = apply_ignore_rules(valid, lag)
    if len(remaining) == 1:
        return remaining[0]
    if verify_key is not None and sign_key is None:
        # A client that cannot sign cannot publish a merge that others will verify (D17)
        return max(remaining, key=rank)
    return merge_messages(remaining, lag, sign_key)


def parse_valid(messages: list[bytes], lag: int, verify_key: bytes | None) -> list[ConfigMessage]:
    """Invalid messages are ignored, never fatal (design text "Ignored updates"; D14)."""
    valid = []
    for data in messages:
        try:
            valid.append(parse(data, lag=lag, verify_key=verify_key))
        except ConfigError:
            continue
    return valid


def apply_ignore_rules(messages: list[ConfigMessage], lag: int) -> list[ConfigMessage]:
    """Drop too-old, included and duplicate messages, each judged against all valid messages
    seen before any is dropped (D14). The result is ordered by rank, highest first."""
    top_seqno = max(message.seqno for message in messages)
    included = {(entry.seqno, entry.hash) for message in messages for entry in message.lagged}
    unique = drop_duplicates(messages)
    kept = [
        message
        for message in unique
        if not is_too_old(message, top_seqno, lag) and rank(message) not in included
    ]
    return sorted(kept, key=rank, reverse=True)


def is_too_old(message: ConfigMessage, top_seqno: int, lag: int) -> bool:
    """ "Within N": a message with seqno + lag <= the highest seqno is ignored (D14)."""
    return message.seqno + lag <= top_seqno


def drop_duplicates(messages: list[ConfigMessage]) -> list[ConfigMessage]:
    """Identical messages (same hash) count once (D14)."""
    by_hash = {message.hash: message for message in messages}
    return list(by_hash.values())


def merge_messages(ranked: list[ConfigMessage], lag: int, sign_key: bytes | None) -> ConfigMessage:
    """Merge several messages, highest-ranked first (design text "Conflict resolution"; D15).

    The result carries no unknown top-level keys (D9) and is signed with `sign_key` if given.
    """
    if ranked[0].seqno == INT64_MAX:
        raise ConfigError(Reason.SEQNO_OVERFLOW, "the merged seqno would exceed 2^63-1")
    seqno = ranked[0].seqno + 1
    replay_set = build_replay_set(ranked)
    order = sorted(replay_set)
    data = replay(ranked[0].data, [replay_set[key] for key in order])
    lagged = [
        LaggedEntry(key[0], key[1], replay_set[key][0])
        for key in order
        if in_window(key[0], seqno, lag)
    ]
    return ConfigMessage(
        seqno=seqno, data=data, lagged=lagged, lag=lag, merged=True, sign_key=sign_key
    )


def build_replay_set(ranked: list[ConfigMessage]) -> dict[Rank, tuple[Diff, Data]]:
    """Each message's own `=` and then its lagged entries, from the highest-ranked message down;
    the first entry added for a (seqno, hash) wins and remembers its source data (D15)."""
    replay_set: dict[Rank, tuple[Diff, Data]] = {}
    for message in ranked:
        entries = [LaggedEntry(message.seqno, message.hash, message.diff), *message.lagged]
        for entry in entries:
            replay_set.setdefault((entry.seqno, entry.hash), (entry.diff, message.data))
    return replay_set
