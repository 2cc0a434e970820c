"""Deliberately broken mergers: the spec with one named function swapped (see `..swaps`).

Each mutant replaces one function of `swarmconf.spec.configmerge` while it is active; the
spec's own merge then runs with that one rule wrong, so a campaign that catches a mutant
catches that rule being wrong, and a change to the spec's merge carries over to every mutant.
The replacements call the spec's originals wherever they only shift or reorder their work.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from types import ModuleType
from typing import Any

from swarmconf.spec.configmerge import data
from swarmconf.spec.configmerge.data import Data, deep_copy
from swarmconf.spec.configmerge.diff import Diff
from swarmconf.spec.configmerge.merge import Rank
from swarmconf.spec.configmerge.merge import build_replay_set as _build_replay_set
from swarmconf.spec.configmerge.merge import is_too_old as _is_too_old
from swarmconf.spec.configmerge.merge import merge_messages as _merge_messages
from swarmconf.spec.configmerge.merge import rank as _rank
from swarmconf.spec.configmerge.message import DEFAULT_LAG, ConfigMessage
from swarmconf.spec.configmerge.message import in_window as _in_window
from swarmconf.spec.configmerge.obsolete import deployed_obsolete_after_merge

from ..swaps import Swaps, swapped

merge: ModuleType = importlib.import_module("swarmconf.spec.configmerge.merge")
"""The spec's merge module (the package's `merge` attribute is the function)."""
obsolete: ModuleType = importlib.import_module("swarmconf.spec.configmerge.obsolete")


class LowerFirst(bytes):
    """A hash that orders the other way round; equal and hashed as the plain bytes."""

    def __lt__(self, other: bytes) -> bool:
        return bytes.__gt__(self, other)

    def __gt__(self, other: bytes) -> bool:
        return bytes.__lt__(self, other)

    def __le__(self, other: bytes) -> bool:
        return bytes.__ge__(self, other)

    def __ge__(self, other: bytes) -> bool:
        return bytes.__le__(self, other)

    __hash__ = bytes.__hash__


def rank_lower_hash_first(msg: ConfigMessage) -> Rank:
    """D1 broken: among equal seqnos the lower hash ranks higher."""
    seqno, hash_ = _rank(msg)
    return (seqno, LowerFirst(hash_))


def replay_set_from_lowest(ranked: list[ConfigMessage]) -> dict[Rank, tuple[Diff, Data]]:
    """D15 broken: an entry several messages carry is taken from the lowest-ranked one."""
    return _build_replay_set(ranked[::-1])


def too_old_one_late(msg: ConfigMessage, top_seqno: int, lag: int) -> bool:
    """D14 broken: "within N" keeps a message one seqno older than it should."""
    return _is_too_old(msg, top_seqno, lag + 1)


def window_one_wider(entry_seqno: int, seqno: int, lag: int) -> bool:
    """D7 broken: a merge keeps lagged entries one seqno older than the window."""
    return _in_window(entry_seqno, seqno, lag + 1)


def unpruned(value: Data) -> Data:
    """D15 broken: empty sets and dicts are kept (a copy, nothing pruned)."""
    return deep_copy(value)


def merged_with_unknown_keys(
    ranked: list[ConfigMessage], lag: int, sign_key: bytes | None
) -> ConfigMessage:
    """D9 broken: the merge result keeps the top message's unknown top-level keys."""
    result = _merge_messages(ranked, lag, sign_key)
    result.extra = dict(ranked[0].extra)
    return result


def obsolete_as_deployed(
    messages: list[bytes],
    result: ConfigMessage,
    *,
    lag: int = DEFAULT_LAG,
    verify_key: bytes | None = None,
    valid: list[ConfigMessage] | None = None,
) -> list[bytes]:
    """D27 broken: the deployed client's delete rule (X12), the survivor's position among the
    inputs that parse applied to all inputs: an unparseable input before the survivor gets
    the survivor deleted."""
    return deployed_obsolete_after_merge(
        messages, result, lag=lag, verify_key=verify_key, valid=valid
    )


MUTANTS: dict[str, Swaps] = {
    "ties": {(merge, "rank"): rank_lower_hash_first},
    "replay-lowest": {(merge, "build_replay_set"): replay_set_from_lowest},
    "too-old-off-by-one": {(merge, "is_too_old"): too_old_one_late},
    "window-off-by-one": {(merge, "in_window"): window_one_wider},
    "no-pruning": {(data, "pruned"): unpruned},
    "unknown-keys": {(merge, "merge_messages"): merged_with_unknown_keys},
    "delete-winner": {(obsolete, "obsolete_after_merge"): obsolete_as_deployed},
}
"""Each mutant: the spec function it replaces, by (module, name)."""


def active(name: str | None) -> AbstractContextManager[None]:
    """Run the block with mutant `name` in place (None: the spec itself)."""
    return nullcontext() if name is None else swapped(MUTANTS[name])


def late(module: ModuleType, name: str) -> Callable[..., Any]:
    """`module.name`, looked up at each call: a mutant that swaps that very function (rather
    than one it calls) then takes effect."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(module, name)(*args, **kwargs)

    return call


def mutated(mutant: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` run with `mutant`'s swap in place for the length of each call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        with active(mutant):
            return function(*args, **kwargs)

    return call
