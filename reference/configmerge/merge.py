"""Conflict resolution: the ignore rules (D14) and the replay merge (D15, D17)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter

from swarmconf.spec.configmerge.reasons import ConfigError, Reason

from . import bt, crypto
from .data import BtData, apply_diff
from .message import ConfigMessage, LaggedEntry, Received, check_lag, parse_alike


def _survivors(valid: list[ConfigMessage], lag: int) -> list[ConfigMessage]:
    """The messages D14 does not ignore, ascending by (seqno, hash)."""
    top = max([m.seqno for m in valid])
    included: set[tuple[int, bytes]] = set()
    previous: list[LaggedEntry] | None = None
    for m in valid:
        # The inputs of a merge often share their whole history (compared by identity of the
        # entries when they were parsed alike)
        if m.lagged != previous:
            included.update(m._included())
            previous = m.lagged
    unique: dict[bytes, ConfigMessage] = {}
    for m in valid:
        if m.seqno + lag > top and (m.seqno, m._hash) not in included:
            unique.setdefault(m._hash, m)  # type: ignore[arg-type]
    return sorted(unique.values(), key=_rank)


_rank = attrgetter("seqno", "_hash")


def replay(ranked: list[ConfigMessage]) -> tuple[BtData, list[LaggedEntry]]:
    """Merge the data of `ranked`, parsed messages ascending, by replaying every diff they carry
    (D15).

    Returns the merged data in bt form and the replayed entries, ascending by (seqno, hash).
    """
    entries: dict[tuple[int, bytes], tuple[LaggedEntry, BtData]] = {}
    previous: list[LaggedEntry] | None = None
    for m in reversed(ranked):
        source = m._bt
        own = LaggedEntry(m.seqno, m._hash, m._diff)  # type: ignore[arg-type]
        entries.setdefault(own[:2], (own, source))
        if m.lagged != previous:  # else every entry is there already, from a higher message
            for e in m.lagged:
                entries.setdefault(e[:2], (e, source))
            previous = m.lagged
    current = ranked[-1]._bt
    owned: dict[int, BtData] = {}
    order = [entries[key] for key in sorted(entries)]
    for entry, source in order:
        current = apply_diff(current, entry[2], source, owned)
    return current, [entry for entry, _ in order]


def merge(
    messages: Sequence[Received],
    *,
    lag: object = 5,
    verify_key: object = None,
    sign_key: object = None,
) -> ConfigMessage:
    """Resolve competing messages into one (D14, D15); invalid inputs are skipped.

    The keyword arguments are typed `object`: any value is taken, and refused with a reason
    code unless it is of the type the contract names.
    """
    checked_lag = check_lag(lag)
    key = crypto.check_verify_key(verify_key) if verify_key is not None else None
    secret = crypto.signing_secret(sign_key) if sign_key is not None else None
    valid: list[ConfigMessage] = []
    # Matching a message against the one before pays off once its cost is shared by several
    shared = len(messages) > 2
    for raw in messages:
        try:
            valid.append(parse_alike(raw, checked_lag, key, valid[-1] if valid else None, shared))
        except ConfigError:
            continue
    if not valid:
        raise ConfigError(Reason.NO_VALID_MESSAGE, f"{len(messages)} input(s)")
    return _merge_valid(valid, checked_lag, key, secret)


def merge_parsed(
    valid: list[ConfigMessage],
    *,
    lag: int = 5,
    verify_key: bytes | None = None,
    sign_key: object = None,
) -> ConfigMessage:
    """`merge` of messages already parsed (with the same `lag` and `verify_key`) and valid.

    A caller that sees the same messages in many merges parses each once. The inputs are never
    modified: the result shares the containers no diff touches with them, read-only, and its
    `data` is a copy of its own.
    """
    secret = crypto.signing_secret(sign_key) if sign_key is not None else None
    return _merge_valid(valid, lag, verify_key, secret)


def _merge_valid(
    valid: list[ConfigMessage], lag: int, verify_key: bytes | None, secret: bytes | None
) -> ConfigMessage:
    """D14 and D15 over parsed valid messages, with the signing key already derived."""
    ranked = _survivors(valid, lag)
    if len(ranked) == 1 or (verify_key is not None and secret is None):
        return ranked[-1]
    seqno = ranked[-1].seqno + 1
    if seqno > bt.INT64_MAX:
        raise ConfigError(Reason.SEQNO_OVERFLOW, str(seqno))
    data, entries = replay(ranked)
    floor = seqno - lag
    lagged = [e for e in entries if e[0] > floor]
    result = ConfigMessage(seqno, data, lagged, lag=lag, merged=True)
    result._sign_secret = secret
    return result
