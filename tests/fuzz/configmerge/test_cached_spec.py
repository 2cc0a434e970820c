"""The cached spec answers as the spec does, computing each parse and each merge once."""

import pytest

from swarmconf.fuzz.configmerge.cached_spec import CachedLibrary
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge.reasons import ConfigError


def test_a_merge_is_computed_once_and_equals_the_specs() -> None:
    cache = CachedLibrary()
    calls = []

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(args)
        return spec.merge_parsed(*args, **kwargs)

    cache.merge_parsed = counting
    first = spec.ConfigMessage.new(1)
    first.data[b"a"] = 1
    second = spec.ConfigMessage.new(1)
    second.data[b"b"] = 2
    inputs = [first.serialize(), second.serialize()]
    merged = cache.merge(inputs, lag=5)
    assert cache.merge(inputs, lag=5) is merged and len(calls) == 1
    assert merged.serialize() == spec.merge(inputs, lag=5).serialize()
    cache.merge(inputs[::-1], lag=5)
    assert len(calls) == 2  # the order of the inputs is part of the key
    with pytest.raises(ConfigError):
        cache.merge([b"garbage"], lag=5)
    with pytest.raises(ConfigError):
        cache.merge([b"garbage"], lag=5)
    assert len(calls) == 2


def test_a_parsed_message_is_serialized_once_per_key() -> None:
    cache = CachedLibrary()
    message = spec.ConfigMessage.new(3)
    message.data[b"a"] = 1
    parsed = cache.parse(message.serialize())
    first = cache.publish(parsed, None)
    assert cache.publish(parsed, None)[0] is first[0]
    assert first == (parsed.serialize(), parsed.hash)
    key = bytes(range(32))
    assert cache.publish(parsed, key) == (parsed.serialize(key), parsed.hash)


def test_a_merged_message_is_serialized_once_per_key() -> None:
    cache = CachedLibrary()
    first, second = spec.ConfigMessage.new(1), spec.ConfigMessage.new(1)
    first.data[b"a"], second.data[b"b"] = 1, 2
    key = bytes(range(32))
    merged = cache.merge([first.serialize(), second.serialize()], sign_key=key)
    published = cache.publish(merged, key)
    assert cache.publish(merged, key)[0] is published[0]
    assert published == (merged.serialize(key), spec.parse(published[0]).hash)
