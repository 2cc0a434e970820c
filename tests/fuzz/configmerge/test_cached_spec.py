"""The cached spec answers as the spec does, computing each parse and each merge once."""

import pytest

from swarmconf.fuzz.configmerge.cached_spec import CachedLibrary
from swarmconf.fuzz.configmerge.differential import recording_engine, request_of, with_messages
from swarmconf.fuzz.configmerge.run import run_case
from swarmconf.fuzz.configmerge.scenario import generate_scenario
from swarmconf.fuzz.configmerge.schedule import generate_schedule
from swarmconf.reference import configmerge as reference
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge.message import message_hash
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


def test_the_oracle_answers_merges_from_the_engines_merges() -> None:
    scenario = generate_scenario(1, 3)
    engine = recording_engine(scenario)
    for number in range(5):
        run_case(engine, generate_schedule(scenario, 1, 3, number))
    computed = len(engine.cache.merged)
    merges = [key for key in engine.touched if key[0] == "merge"]
    assert merges
    for key in merges:
        assert "result" in engine.oracle.handle(request_of(engine, key))
    assert len(engine.cache.merged) == computed


def test_the_oracles_merge_answers_parse_no_input_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its `obsolete` (D27) comes from the cache's parses, not from the library parsing the
    inputs anew (each parse verifies a signature: scenario 2 is signed)."""
    from swarmconf.reference.configmerge import payload

    scenario = generate_scenario(1, 2)
    engine = recording_engine(scenario)
    for number in range(5):
        run_case(engine, generate_schedule(scenario, 1, 2, number))
    merges = [key for key in engine.touched if key[0] == "merge"]
    assert merges and engine.verify_key is not None
    parses = []

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        parses.append(args)
        return reference.parse(*args, **kwargs)

    monkeypatch.setattr(payload, "parse", counting)
    for key in merges:
        answer = engine.oracle.handle(request_of(engine, key))
        deleted = engine.merges[key[1:]].obsolete
        assert answer["result"]["obsolete"] == sorted(message_hash(m).hex() for m in deleted)
    assert parses == []


@pytest.mark.parametrize("number", [2, 3, 13])
def test_the_oracle_answers_every_request_as_the_specs_own_adapter(number: int) -> None:
    """Scenario 2 is signed, 3 is not, 13 has a client without the key and one writing an
    unknown key, so that some answers are refusals."""
    from swarmconf.conformance.adapter import builtin_adapter

    scenario = generate_scenario(1, number)
    engine = recording_engine(scenario)
    for schedule in range(10):
        run_case(engine, generate_schedule(scenario, 1, number, schedule))
    keys = list(with_messages(engine, engine.touched))
    requests = [request_of(engine, key) for key in keys]
    plain = builtin_adapter("spec")
    answers = [engine.expected(key, request) for key, request in zip(keys, requests, strict=True)]
    assert answers == [plain.handle(request) for request in requests]
    assert {request["op"] for request in requests} >= {"merge", "increment", "serialize"}
    assert set(engine.answered) & set(keys)  # some edits answered from the edit itself


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
