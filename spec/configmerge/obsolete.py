"""What a push deletes (D27): the design text's "deletes … any known, older configuration
message(s) that are obsoleted", as hashes of the messages a client received.

A message is obsolete once the client's current message holds everything it holds, so no
client needs it again: after a merge, every input the ignore rules drop and every input merged
into a new message; after an edit, the message edited. An input that does not parse is never
obsolete: it may be a message of a later version, which this client cannot judge.
"""

from __future__ import annotations

from .merge import apply_ignore_rules, parse_valid
from .message import DEFAULT_LAG, ConfigMessage, message_hash


def obsolete_after_merge(
    messages: list[bytes],
    result: ConfigMessage,
    *,
    lag: int = DEFAULT_LAG,
    verify_key: bytes | None = None,
    valid: list[ConfigMessage] | None = None,
) -> list[bytes]:
    """The hashes, ascending, of the inputs a push of `merge(messages)`'s `result` deletes
    (D27, D14, D15, D17).

    A new merge message absorbs every valid input. A result that is one of the inputs (the
    single survivor of the ignore rules, D14) absorbs the inputs the ignore rules drop, and no
    other: where verification is required and no signing key is held (D17), the remaining
    inputs it did not merge are kept. `valid`, when given, is what `parse_valid` gives for
    `messages` (a caller that parsed them already).
    """
    if valid is None:
        valid = parse_valid(messages, lag, verify_key)
    if result.merged:
        absorbed = valid
    else:
        remaining = {message.hash for message in apply_ignore_rules(valid, lag)}
        absorbed = [message for message in valid if message.hash not in remaining]
    return sorted({message.hash for message in absorbed} - {result.hash})


def obsolete_after_edit(previous: ConfigMessage) -> list[bytes]:
    """The hash an edit's push deletes: that of the message the edit incremented (D27, D13)."""
    return [previous.hash]


def deployed_obsolete_after_merge(
    messages: list[bytes],
    result: ConfigMessage,
    *,
    lag: int = DEFAULT_LAG,
    verify_key: bytes | None = None,
    valid: list[ConfigMessage] | None = None,
) -> list[bytes]:
    """What the deployed client deletes after a merge (X12): every input that parses, except,
    when the result is one of the inputs, the input at the result's position among the inputs
    that parse, counted among *all* inputs.

    An input that does not parse before the survivor shifts that position: another input is
    kept, and the survivor itself is deleted. Unlike D27, it also deletes the remaining inputs
    a client that cannot sign leaves unmerged (D17). `valid` as for `obsolete_after_merge`.
    """
    if valid is None:
        valid = parse_valid(messages, lag, verify_key)
    parsed = {message.hash for message in valid}
    if result.merged:
        return sorted(parsed)
    position = next(index for index, message in enumerate(valid) if message.hash == result.hash)
    return sorted(parsed - {message_hash(messages[position])})
