"""What a push deletes (D27), and what the deployed client deletes instead (X12)."""

from __future__ import annotations

from swarmconf.spec.configmerge import ConfigMessage, merge, parse
from swarmconf.spec.configmerge.message import message_hash
from swarmconf.spec.configmerge.obsolete import (
    deployed_obsolete_after_merge,
    obsolete_after_edit,
    obsolete_after_merge,
)
from swarmconf.spec.configmerge.signing import signing_key

SEED = bytes(range(32))
PUBLIC = bytes(signing_key(SEED).verify_key)
UNPARSEABLE = b"d1:#i1e1:&i5ee"


def base() -> bytes:
    message = ConfigMessage.new(1)
    message.data[b"name"] = b"swarm"
    return message.serialize()


def edited(parent: bytes, key: bytes, value: bytes) -> bytes:
    message = parse(parent).increment()
    message.data[key] = value
    return message.serialize()


def hashes(*messages: bytes) -> list[bytes]:
    return sorted({message_hash(message) for message in messages})


def test_a_merge_makes_every_parsed_input_obsolete_and_keeps_the_unparseable() -> None:
    left, right = edited(base(), b"a", b"1"), edited(base(), b"b", b"2")
    inputs = [left, UNPARSEABLE, right, left]
    result = merge(inputs)
    assert result.merged
    assert obsolete_after_merge(inputs, result) == hashes(left, right)


def test_a_single_survivor_is_kept_and_what_it_includes_is_obsolete() -> None:
    first = base()
    second = edited(first, b"a", b"1")
    inputs = [first, second, UNPARSEABLE]
    result = merge(inputs)
    assert not result.merged and result.hash == message_hash(second)
    assert obsolete_after_merge(inputs, result) == hashes(first)


def test_a_client_that_cannot_sign_keeps_what_it_did_not_merge() -> None:
    seed = ConfigMessage.new(1).serialize(sign_key=SEED)
    left = parse(seed).increment()
    left.data[b"a"] = b"1"
    right = parse(seed).increment()
    right.data[b"b"] = b"2"
    inputs = [seed, left.serialize(sign_key=SEED), right.serialize(sign_key=SEED)]
    result = merge(inputs, verify_key=PUBLIC)
    assert not result.merged
    assert obsolete_after_merge(inputs, result, verify_key=PUBLIC) == hashes(seed)


def test_an_edit_makes_the_message_it_incremented_obsolete() -> None:
    previous = parse(base())
    assert obsolete_after_edit(previous) == [message_hash(base())]


def test_the_deployed_client_deletes_the_survivor_behind_an_unparseable_input() -> None:
    first = base()
    second = edited(first, b"a", b"1")
    inputs = [UNPARSEABLE, second, first]
    result = merge(inputs)
    assert obsolete_after_merge(inputs, result) == hashes(first)
    assert deployed_obsolete_after_merge(inputs, result) == hashes(first, second)
    behind = [UNPARSEABLE, first, second]
    assert deployed_obsolete_after_merge(behind, merge(behind)) == hashes(second)


def test_the_deployed_client_agrees_without_an_unparseable_input_first() -> None:
    first = base()
    second = edited(first, b"a", b"1")
    for inputs in ([first, second], [second, first, UNPARSEABLE]):
        result = merge(inputs)
        expected = obsolete_after_merge(inputs, result)
        assert deployed_obsolete_after_merge(inputs, result) == expected == hashes(first)
    left, right = edited(base(), b"a", b"1"), edited(base(), b"b", b"2")
    inputs = [UNPARSEABLE, left, right]
    result = merge(inputs)
    assert deployed_obsolete_after_merge(inputs, result) == obsolete_after_merge(inputs, result)
