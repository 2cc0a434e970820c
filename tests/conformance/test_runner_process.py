"""The runner against an adapter process that crashes, hangs, or prints garbage."""

from __future__ import annotations

import shlex
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from conformance_helpers import hash_case, write_vectors

from swarmconf import __version__
from swarmconf.cli import main
from swarmconf.conformance.vectors import load_cases

FAKE = Path(__file__).with_name("fake_adapter.py")


def fake_client(starts: Path) -> str:
    return shlex.join([sys.executable, str(FAKE), str(starts)])


def run(root: Path, starts: Path, *extra: str) -> int:
    argv = ["conformance", "run", "--client", fake_client(starts), "--vectors", str(root)]
    return main([*argv, "--timeout", "2", *extra])


def test_passing_client_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_vectors(tmp_path / "v", "basic", [hash_case(1, b"a"), hash_case(2, b"b")])
    assert run(tmp_path / "v", tmp_path / "starts") == 0
    out = capsys.readouterr().out
    assert "basic" in out and "2 passed      0 acceptable      0 failed" in out


def test_wrong_answers_are_named_with_a_readable_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [hash_case(1, b"ok"), hash_case(2, b"not a dict", valid=False)]
    write_vectors(tmp_path / "v", "basic", cases)
    assert run(tmp_path / "v", tmp_path / "starts") == 1
    out = capsys.readouterr().out
    assert "FAIL basic#2 case-2: accepted an invalid input (expected MSG_NOT_DICT)" in out
    assert "comment: hash of b'not a dict'" in out
    assert "flags: Ktv; rules: D1" in out
    assert "-reason: MSG_NOT_DICT" in out
    assert "FAIL basic#1" not in out


def test_crash_is_reported_and_the_client_restarted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [hash_case(1, b"a"), hash_case(2, b"crash now"), hash_case(3, b"b")]
    write_vectors(tmp_path / "v", "basic", cases)
    junit = tmp_path / "junit.xml"
    assert run(tmp_path / "v", tmp_path / "starts", "--junit", str(junit)) == 1
    out = capsys.readouterr().out
    assert "FAIL basic#2 case-2: client crashed: exit status 3" in out
    assert "dying on purpose" in out
    assert "2 passed      0 acceptable      1 failed" in out
    assert (tmp_path / "starts").read_text().count("start") == 2
    suite = ElementTree.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and suite.get("tests") == "3"
    failed = [case.get("name") for case in suite if case.find("failure") is not None]
    assert failed == ["2 case-2"]


def test_hang_is_cut_short_by_the_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [hash_case(1, b"hang here"), hash_case(2, b"b")]
    write_vectors(tmp_path / "v", "basic", cases)
    assert run(tmp_path / "v", tmp_path / "starts") == 1
    out = capsys.readouterr().out
    assert "FAIL basic#1 case-1: client timeout: no answer within 2 s" in out
    assert "1 passed      0 acceptable      1 failed" in out


def test_garbage_output_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_vectors(tmp_path / "v", "basic", [hash_case(1, b"garbage"), hash_case(2, b"b")])
    assert run(tmp_path / "v", tmp_path / "starts") == 1
    out = capsys.readouterr().out
    assert "FAIL basic#1 case-1: client garbage: not a JSON object: 'this is not json'" in out
    assert "1 passed      0 acceptable      1 failed" in out


def test_ops_the_client_does_not_list_are_not_applicable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = hash_case(1, b"a")
    case.update(op="verify", input={"msg": "00", "verify_key": "00" * 32})
    case["expected"] = {"seqno": 1, "hash": "00" * 32}
    write_vectors(tmp_path / "v", "basic", [case, hash_case(2, b"b")])
    assert run(tmp_path / "v", tmp_path / "starts") == 0
    out = capsys.readouterr().out
    assert "1 passed      0 acceptable      0 failed      0 skipped      1 not applicable" in out


def test_suite_filter_and_unknown_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_vectors(tmp_path / "v", "good", [hash_case(1, b"a")])
    write_vectors(tmp_path / "v", "bad", [hash_case(1, b"a", valid=False)])
    assert run(tmp_path / "v", tmp_path / "starts", "--suite", "good") == 0
    assert run(tmp_path / "v", tmp_path / "starts", "--suite", "bad") == 1
    assert run(tmp_path / "v", tmp_path / "starts", "--suite", "nope") == 2
    assert "no vector file for suites ['nope']" in capsys.readouterr().err


def test_the_former_category_option_still_filters(tmp_path: Path) -> None:
    write_vectors(tmp_path / "v", "good", [hash_case(1, b"a")])
    write_vectors(tmp_path / "v", "bad", [hash_case(1, b"a", valid=False)])
    assert run(tmp_path / "v", tmp_path / "starts", "--category", "good") == 0
    assert run(tmp_path / "v", tmp_path / "starts", "--category", "bad") == 1


def test_an_unknown_design_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_vectors(tmp_path / "v", "good", [hash_case(1, b"a")])
    assert run(tmp_path / "v", tmp_path / "starts", "--design", "nope") == 2
    assert "unknown designs ['nope']" in capsys.readouterr().err


def test_a_client_that_cannot_start_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_vectors(tmp_path / "v", "basic", [hash_case(1, b"a")])
    argv = ["conformance", "run", "--client", str(tmp_path / "missing"), "--vectors"]
    assert main([*argv, str(tmp_path / "v")]) == 3
    assert "CLIENT_FAILED: the client failed to start" in capsys.readouterr().err


VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "v1"


def test_builtin_adapter_as_a_process_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    client = shlex.join([sys.executable, "-m", "swarmconf.conformance.adapter", "--impl", "spec"])
    argv = ["conformance", "run", "--client", client, "--suite", "design_examples"]
    junit = tmp_path / "junit.xml"
    assert main([*argv, "--suite", "message_parse", "--junit", str(junit)]) == 0
    out = capsys.readouterr().out
    assert f"client: swarmconf.spec {__version__} (python)" in out
    count = len(load_cases(VECTORS, ["message_parse"]))
    assert f"{'message_parse':<28} {count:>6} passed      0 acceptable      0 failed" in out
    suites = ElementTree.parse(junit).getroot().findall("testsuite")
    assert [suite.get("name") for suite in suites] == ["design_examples", "message_parse"]


def test_template_adapter_supports_nothing_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    template = Path(__file__).parents[2] / "conformance" / "template_adapter.py"
    client = shlex.join([sys.executable, str(template)])
    assert main(["conformance", "run", "--client", client, "--suite", "diffs"]) == 1
    count = len(load_cases(VECTORS, ["diffs"]))
    captured = capsys.readouterr()
    assert f"0 failed      0 skipped {count:>6} not applicable" in captured.out
    assert "no case was checked: the client supports none of them" in captured.err


def test_an_empty_vector_directory_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conformance", "run", "--client", "builtin:spec", "--vectors", str(tmp_path)]) == 2
    assert "no vector files in" in capsys.readouterr().err


def test_a_client_speaking_another_protocol_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    adapter = tmp_path / "future.py"
    adapter.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    print(json.dumps({'id': request.get('id'), 'protocol': 2}), flush=True)\n"
    )
    write_vectors(tmp_path / "v", "basic", [hash_case(1, b"a")])
    client = shlex.join([sys.executable, str(adapter)])
    argv = ["conformance", "run", "--client", client, "--vectors", str(tmp_path / "v")]
    assert main(argv) == 3
    assert "CLIENT_FAILED: the client speaks another protocol" in capsys.readouterr().err
