"""What the runner makes of a client's `hello`: misplaced or missing fields said in one line,
and operations supported in part (`partial`) leaving only the cases that need the rest."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from conformance_helpers import hash_case, write_vectors

import swarmconf.spec.configmerge.compression as compression
import swarmconf.spec.configmerge.payload as payload
from swarmconf.cli import main
from swarmconf.conformance.adapter import builtin_adapter
from swarmconf.conformance.client import ClientFailure, InProcessClient, Message
from swarmconf.conformance.hello import Declarations, check_hello
from swarmconf.conformance.runner import NOT_APPLICABLE, run_cases
from swarmconf.conformance.vectors import Case, load_cases

ADAPTER = Path(__file__).with_name("hello_adapter.py")
VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "v1"
GOOD = {"name": "fake", "language": "python", "protocol": 1, "ops": ["hash"]}
WITHOUT_ZSTD = {"wrap": ["level"], "unwrap": ["Compression"]}


def run_with_hello(tmp_path: Path, hello: dict[str, Any]) -> tuple[int, list[str]]:
    """The exit status of a run of two `hash` cases on a client answering `hello` so, and the
    ops it was sent."""
    write_vectors(tmp_path / "v", "basic", [hash_case(1, b"a"), hash_case(2, b"b")])
    log = tmp_path / "sent"
    log.touch()
    client = shlex.join([sys.executable, str(ADAPTER), json.dumps(hello), str(log)])
    argv = ["conformance", "run", "--client", client, "--vectors", str(tmp_path / "v")]
    status = main([*argv, "--timeout", "5"])
    return status, log.read_text().split()


def test_a_well_formed_hello_runs_without_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_with_hello(tmp_path, GOOD) == (0, ["hash", "hash"])
    out = capsys.readouterr().out
    assert "client: fake (python)\n" in out and "note:" not in out


def test_fields_inside_result_stop_the_run_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_with_hello(tmp_path, {"result": GOOD}) == (3, [])
    err = capsys.readouterr().err.strip()
    assert err == (
        "swarmconf: error: CLIENT_FAILED: the client answered hello with its fields inside"
        " `result`: name, language, protocol, ops belong at the top level of the answer,"
        " beside `id`"
    )


def test_a_hello_without_protocol_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = {key: value for key, value in GOOD.items() if key != "protocol"}
    assert run_with_hello(tmp_path, hello) == (3, [])
    err = capsys.readouterr().err
    assert "CLIENT_FAILED: the client answered hello without `protocol`: " in err
    assert 'the answer must say "protocol": 1; it was {"id": 1, "name": "fake"' in err
    assert len(err.strip().splitlines()) == 1


def test_a_malformed_declaration_stops_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_with_hello(tmp_path, {**GOOD, "ops": "hash"}) == (3, [])
    assert (
        'answered hello with a malformed declaration: `ops` is not a list of strings: "hash"'
        in capsys.readouterr().err
    )


def test_missing_names_and_unknown_fields_are_noted_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hello = {"protocol": 1, "ops": ["hash", "frobnicate"], "operations": ["hash"]}
    assert run_with_hello(tmp_path, hello) == (0, ["hash", "hash"])
    out = capsys.readouterr().out
    assert "client: ? (?)\n  note: hello has no name, language\n" in out
    assert "  note: hello fields this runner does not know, ignored: operations\n" in out
    assert "  note: hello lists operations no design has, ignored: frobnicate\n" in out


@pytest.mark.parametrize(
    ("partial", "why"),
    [
        ({"merge": ["level"]}, "`partial` names 'merge', which is not an operation `ops` lists"),
        ({"hash": ["levle"]}, "`partial` of 'hash': levle is neither a request field"),
        ({"hash": "lag"}, "`partial` is not an object of lists of strings"),
    ],
)
def test_a_partial_declaration_must_name_listed_ops_and_their_fields_or_flags(
    partial: Any, why: str
) -> None:
    with pytest.raises(ClientFailure, match="malformed declaration") as refused:
        check_hello({**GOOD, "partial": partial})
    assert why in refused.value.detail
    assert check_hello({**GOOD, "partial": {"hash": ["lag", "Ktv"]}}) == []


def case_of(op: str, request: dict[str, Any], flags: tuple[str, ...] = ()) -> Case:
    return Case(
        suite="payload",
        design="configmerge",
        tc_id=1,
        name="a-case",
        comment="",
        flags=flags,
        rules=(),
        op=op,
        request={"op": op, **request},
        result="valid",
        expected={},
        reason=None,
    )


def test_partial_support_makes_cases_with_a_named_field_or_flag_not_applicable() -> None:
    declared = Declarations.of({**GOOD, "ops": ["wrap", "unwrap"], "partial": WITHOUT_ZSTD})
    assert declared.partial == {"wrap": {"level"}, "unwrap": {"Compression"}}
    compressed = case_of("wrap", {"message": "64", "level": 1})
    assert declared.not_applicable(compressed) == "client supports 'wrap' only without level"
    assert declared.not_applicable(case_of("wrap", {"message": "64"})) == ""
    flagged = case_of("unwrap", {"blobs": []}, ("Compression", "Payload"))
    assert declared.not_applicable(flagged) == "client supports 'unwrap' only without Compression"
    assert declared.not_applicable(case_of("unwrap", {"blobs": []}, ("Payload",))) == ""


class WithoutZstd(InProcessClient):
    """The spec's adapter with `hello` extended by `partial`."""

    def __init__(self, partial: dict[str, list[str]] | None) -> None:
        super().__init__(builtin_adapter("spec"))
        self.partial = partial

    def start(self) -> Message:
        hello = super().start()
        return hello if self.partial is None else {**hello, "partial": self.partial}


def test_a_client_without_zstd_passes_the_payload_suite_declaring_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A client that never compresses and reads a `z` payload as any payload that is no part.
    def no_zstd(*args: object) -> bytes:
        raise RuntimeError("this client has no zstd")

    monkeypatch.setattr(compression, "zstd_compress", no_zstd)
    monkeypatch.setattr(payload, "read_message", lambda plaintext: plaintext)
    cases = load_cases(VECTORS, ["payload"])
    needing_zstd = [
        case
        for case in cases
        if (case.op == "wrap" and "level" in case.request)
        or (case.op == "unwrap" and "Compression" in case.flags)
    ]
    declared = run_cases(WithoutZstd(WITHOUT_ZSTD), cases)
    assert declared.totals()["failed"] == 0 and declared.ok
    assert [o.case for o in declared.outcomes if o.status == NOT_APPLICABLE] == needing_zstd
    undeclared = run_cases(WithoutZstd(None), cases)
    assert undeclared.totals()["failed"] > 0
