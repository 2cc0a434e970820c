"""Every checked-in config-merge vector obeys the internal-consistency rules, and each rule
catches the kind of wrong vector it is written for."""

from __future__ import annotations

import copy
import hashlib
from pathlib import Path
from typing import Any

import pytest

from swarmconf.conformance.configmerge import consistency
from swarmconf.conformance.vectors import Case, load_cases, read_document, suite_of, vector_files

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "v1"
FILES = [path for path in vector_files(VECTORS) if not path.name.startswith("kvgossip_")]


def _cases(suite: str) -> list[Case]:
    return load_cases(VECTORS, [suite])


def _checked(case: Case) -> dict[str, Any]:
    return copy.deepcopy(consistency.as_checked(case))


def _case(suite: str, name: str) -> tuple[dict[str, Any], int]:
    (case,) = [case for case in _cases(suite) if case.name == name]
    return _checked(case), case.request["lag"]


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_every_vector_is_consistent(path: Path) -> None:
    assert consistency.document_problems(read_document(path), suite_of(path)) == []


def test_a_signed_increment_hashed_without_its_signature_is_caught() -> None:
    case, lag = _case("signatures", "increment-signed")
    unsigned = bytes.fromhex(case["expected"]["msg"])[: -(len(b"1:~64:") + 64 + 1)] + b"e"
    case["expected"]["hash"] = hashlib.blake2b(unsigned, digest_size=32).hexdigest()
    assert consistency.hash_of_written_bytes(case, lag) != []


def test_a_signed_new_message_hashed_without_its_signature_is_caught() -> None:
    case, lag = _case("signatures", "new-signed-seed")
    assert consistency.hash_of_written_bytes(case, lag) == []
    case["expected"]["hash"] = "00" * 32
    assert consistency.hash_of_written_bytes(case, lag) != []


def test_a_parse_hash_not_of_the_input_is_caught() -> None:
    case, lag = _case("signatures", "parse-signed-unverified")
    case["input"]["msg"] = case["input"]["msg"][:-2] + "65"  # same length, another byte
    case["input"]["msg"] = case["input"]["msg"].replace("7e", "7f", 1)
    assert consistency.hash_of_received_bytes(case, lag) != []


def test_lagged_entries_out_of_order_or_window_are_caught() -> None:
    case, lag = _case("signatures", "increment-signed")
    assert consistency.lagged_entries_in_order(case, lag) == []
    assert consistency.lagged_entries_in_order(case, 1) != []  # outside a window of 1


def test_a_wrong_seqno_and_a_missing_parent_are_caught() -> None:
    case, lag = _case("signatures", "increment-signed")
    case["input"]["msg"] = case["input"]["msg"].replace("693565", "693665", 1)  # seqno 5 -> 6
    assert consistency.seqno_follows_the_op(case, lag) != []
    assert consistency.increment_lags_its_parent(case, lag) != []


def test_a_non_canonical_written_message_is_caught() -> None:
    case, lag = _case("signatures", "new-signed-seed")
    case["expected"]["msg"] = case["expected"]["msg"].replace("693765", "69303765", 1)  # i07e
    assert consistency.written_message_is_canonical(case, lag) != []


def test_an_unmerged_result_that_is_no_input_is_caught() -> None:
    case = next(
        _checked(case)
        for case in _cases("ignore_rules")
        if case.result == "valid" and case.expected and not case.expected["merged"]
    )
    assert consistency.survivor_is_an_input(case, 5) == []
    case["expected"]["hash"] = "11" * 32
    assert consistency.survivor_is_an_input(case, 5) != []


def test_wrong_ciphertext_lengths_and_padding_are_caught() -> None:
    by_op = {
        case.op: _checked(case)
        for case in _cases("encryption")
        if case.result == "valid" and case.request.get("profile", "spec") == "spec"
    }
    by_op["encrypt"]["expected"]["ciphertext"] += "00"
    assert consistency.ciphertext_length(by_op["encrypt"], 5) != []
    by_op["pad"]["expected"]["padded"] = "01" + by_op["pad"]["expected"]["padded"][2:]
    assert consistency.padding_is_leading_zeros(by_op["pad"], 5) != []


@pytest.mark.parametrize(
    ("size", "overhead", "padded"),
    [(0, 40, 216), (216, 40, 216), (217, 40, 472), (5080, 40, 5080), (5081, 40, 6104)],
)
def test_padded_size_follows_d19(size: int, overhead: int, padded: int) -> None:
    assert consistency.padded_size(size, overhead) == padded
