"""The checked-in K/V Gossip vectors: schema-valid, reproducible, and passed by the spec."""

import json
from pathlib import Path

import jsonschema
import pytest

from swarmconf.conformance.kvgossip import SUITES, documents, write_all
from swarmconf.conformance.kvgossip.base import dump, schema_file, vector_file
from swarmconf.conformance.kvgossip.runner import check_document

ROOT = Path(__file__).resolve().parents[3] / "vectors" / "v1"
FILES = sorted(ROOT.glob("kvgossip_*_test.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_suite_has_a_file() -> None:
    assert sorted(p.name for p in FILES) == sorted(vector_file(s) for s in SUITES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file_matches_its_schema(path: Path) -> None:
    document = load(path)
    schema = load(ROOT / "schemas" / document["schema"])
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(document)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_ids_flags_and_reasons_are_consistent(path: Path) -> None:
    document = load(path)
    cases = [c for g in document["testGroups"] for c in g["tests"]]
    assert [c["tcId"] for c in cases] == list(range(1, len(cases) + 1))
    assert document["numberOfTests"] == len(cases)
    assert len({c["name"] for c in cases}) == len(cases)
    assert {f for c in cases for f in c["flags"]} == set(document["notes"])
    for case in cases:
        assert ("reason" in case) == (case["result"] == "invalid"), case["name"]


def test_schema_refuses_an_unknown_field() -> None:
    document = load(ROOT / vector_file("keys"))
    document["testGroups"][0]["tests"][0]["surprise"] = 1
    schema = load(ROOT / "schemas" / schema_file("keys"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_spec_passes_every_vector(path: Path) -> None:
    assert check_document(load(path)) == []


def test_runner_notices_a_wrong_expectation() -> None:
    document = load(ROOT / vector_file("treehash"))
    document["testGroups"][0]["tests"][0]["expected"]["treeHash"] = "00" * 32
    assert check_document(document) == ["treehash#1 empty"]


def test_regenerating_changes_nothing(tmp_path: Path) -> None:
    write_all(tmp_path)
    for name in SUITES:
        for rel in (vector_file(name), f"schemas/{schema_file(name)}"):
            assert (tmp_path / rel).read_bytes() == (ROOT / rel).read_bytes(), rel


def test_generation_is_deterministic_in_process() -> None:
    first = {k: dump(d) for k, (d, _) in documents().items()}
    assert first == {k: dump(d) for k, (d, _) in documents().items()}
