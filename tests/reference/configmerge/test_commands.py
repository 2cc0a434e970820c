"""The config-merge commands: outputs, and one reason-coded stderr line for every bad input."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import swarmconf.reference.configmerge as ref
from swarmconf.cli import main
from swarmconf.reference.configmerge.examples import build_chain

SEED = bytes(range(32))


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    chain = build_chain(ref)
    out = {}
    for name in ("m123", "m124", "m125a", "m125b", "m126a", "m127"):
        path = tmp_path / f"{name}.bin"
        path.write_bytes(chain[name])
        out[name] = path
    return out


def run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, str]:
    code = main(argv)
    captured = capsysbinary.readouterr()
    return code, captured.out, captured.err.decode()


def test_merge_writes_the_merged_message(
    files: dict[str, Path], capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = run(["merge", str(files["m125a"]), str(files["m125b"])], capsysbinary)
    assert (code, err) == (0, "")
    assert ref.parse(out).hash.hex().startswith("4880a507")


def test_merge_hex_and_stdin(
    files: dict[str, Path],
    capsysbinary: pytest.CaptureFixture[bytes],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    hex_file = tmp_path / "a.hex"
    hex_file.write_text(files["m125a"].read_bytes().hex() + "\n")
    piped = io.BytesIO(files["m125b"].read_bytes().hex().encode())
    stdin = type("Stdin", (), {"buffer": piped})
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, _ = run(["merge", "--hex-in", "--hex-out", str(hex_file), "-"], capsysbinary)
    assert code == 0
    assert ref.parse(bytes.fromhex(out.decode())).seqno == 126


def test_merge_skips_invalid_and_reports_with_verbose(
    files: dict[str, Path], capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"d1:#i1e1:&d1:ali2ei1eee1:=dee")
    code, out, err = run(["merge", "-v", str(junk), str(files["m124"])], capsysbinary)
    assert code == 0
    assert out == files["m124"].read_bytes()
    assert "skipping" in err and "DATA_SET_UNSORTED" in err and "kept seqno 124" in err


def test_merge_signs_and_verify_checks(
    files: dict[str, Path], capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    merged = tmp_path / "signed.bin"
    code, _, _ = run(
        [
            "merge",
            "--sign-key",
            SEED.hex(),
            "-o",
            str(merged),
            str(files["m125a"]),
            str(files["m125b"]),
        ],
        capsysbinary,
    )
    assert code == 0
    public = ref.parse(merged.read_bytes()).signature
    assert public is not None
    from nacl.bindings import crypto_sign_seed_keypair

    pub = crypto_sign_seed_keypair(SEED)[0]
    key_file = tmp_path / "pub.key"
    key_file.write_text(pub.hex())
    code, out, err = run(["verify", "--key", f"@{key_file}", str(merged)], capsysbinary)
    assert code == 0 and b"valid signature: seqno 126" in out
    code, _, err = run(["verify", "--key", pub.hex(), str(files["m124"])], capsysbinary)
    missing = "SIG_MISSING: Verification is required and the message has no signature."
    assert code == 1 and err == f"swarmconf: error: {missing}\n"
    tampered = tmp_path / "tampered.bin"
    tampered.write_bytes(merged.read_bytes().replace(b"5:hello", b"5:jello"))
    code, _, err = run(["verify", "--key", pub.hex(), str(tampered)], capsysbinary)
    invalid = "SIG_INVALID: The signature does not verify under the given key."
    assert code == 1 and err == f"swarmconf: error: {invalid}\n"


def test_show_json(files: dict[str, Path], capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, _ = run(["show", "--json", str(files["m127"])], capsysbinary)
    view: dict[str, Any] = json.loads(out)
    assert code == 0
    assert view["seqno"] == 127
    assert view["hash"].startswith("f589694c")
    assert view["data"]["dictA"] == {"goodbye": [123, 456, 789], "hello": 123}
    assert view["diff"] == {"dictA": {"goodbye": [[789], []]}}
    assert [e["seqno"] for e in view["lagged"]] == [123, 124, 124, 125, 125, 126, 126]


def test_show_text(files: dict[str, Path], capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, _ = run(["show", str(files["m124"])], capsysbinary)
    text = out.decode()
    assert code == 0
    assert "seqno: 124\n" in text
    assert "    goodbye: [123, 456]\n" in text
    assert 'good: [99, 123, "Foo", "bar"]' in text
    assert "diff: {dictA: {goodbye: [[123, 456], []]" in text


def test_diff(files: dict[str, Path], capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, _ = run(["diff", "--json", str(files["m126a"]), str(files["m127"])], capsysbinary)
    assert code == 0
    assert json.loads(out) == {
        "dictA": {"goodbye": [[789], []]},
        "dictB": {"answer": ""},
    }


@pytest.mark.parametrize("profile", ["spec", "libsession"])
def test_encrypt_decrypt_round_trip(
    files: dict[str, Path], capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path, profile: str
) -> None:
    key = bytes(range(100, 132)).hex()
    domain = ["--domain", "UserProfile"] if profile == "libsession" else []
    sealed = tmp_path / "sealed"
    args = ["--key", key, "--profile", profile, *domain]
    assert run(["encrypt", *args, "-o", str(sealed), str(files["m127"])], capsysbinary)[0] == 0
    code, out, _ = run(["decrypt", *args, str(sealed)], capsysbinary)
    assert code == 0 and out == files["m127"].read_bytes()
    sealed.write_bytes(sealed.read_bytes()[:-1] + b"x")
    code, _, err = run(["decrypt", *args, str(sealed)], capsysbinary)
    assert code == 1 and err == "swarmconf: error: DECRYPT_FAILED: authentication failed\n"


def test_libsession_commands_pad_unless_told_not_to(
    files: dict[str, Path], capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    key = bytes(range(100, 132))
    args = ["--key", key.hex(), "--profile", "libsession", "--domain", "UserProfile"]
    message = files["m127"].read_bytes()
    for padding, plaintext in [([], ref.pad(message)), (["--no-padding"], message)]:
        sealed = tmp_path / "sealed"
        code, _, _ = run(
            ["encrypt", *args, *padding, "-o", str(sealed), str(files["m127"])], capsysbinary
        )
        assert code == 0
        assert sealed.read_bytes() == ref.encrypt(
            plaintext, key, profile="libsession", domain=b"UserProfile"
        )
        code, out, _ = run(["decrypt", *args, "--no-padding", str(sealed)], capsysbinary)
        assert code == 0 and out == plaintext


def test_keygen(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, out, _ = run(["keygen", "--json"], capsysbinary)
    keys = json.loads(out)
    assert code == 0
    assert keys["secret"] == keys["seed"] + keys["public"]
    assert len(bytes.fromhex(keys["encryption"])) == 32


BAD_INPUTS = [
    (["show", "{junk}"], 1, "BT_UNKNOWN_TYPE"),
    (["show", "{deep}"], 1, "BT_TOO_DEEP"),
    (["show", "{huge_length}"], 1, "BT_TRUNCATED"),
    (["show", "--max-size", "100", "{big}"], 1, "INPUT_TOO_LARGE"),
    (["show", "--hex", "{junk}"], 1, "INPUT_NOT_HEX"),
    (["show", "{missing}"], 2, "INPUT_UNREADABLE"),
    (["merge", "-o", "{missing}/out", "{good}"], 2, "OUTPUT_UNWRITABLE"),
    (["merge", "{junk}", "{deep}"], 1, "NO_VALID_MESSAGE"),
    (["merge", "--lag", "0", "{good}"], 2, "BAD_LAG"),
    (["merge", "--sign-key", "abcd", "{good}"], 2, "BAD_KEY"),
    (["merge", "--sign-key", "zz", "{good}"], 2, "KEY_NOT_HEX"),
    (["verify", "--key", "00" * 32, "{good}"], 1, "SIG_MISSING"),
    (["encrypt", "--key", "00" * 31, "{good}"], 2, "BAD_KEY"),
    (["encrypt", "--key", "00" * 32, "--profile", "libsession", "{good}"], 2, "BAD_DOMAIN"),
    (["encrypt", "--key", "00" * 32, "--domain", "x", "{good}"], 2, "BAD_DOMAIN"),
    (["decrypt", "--key", "00" * 32, "{junk}"], 1, "DECRYPT_TOO_SHORT"),
    (["diff", "{good}", "{junk}"], 1, "BT_UNKNOWN_TYPE"),
]


@pytest.mark.parametrize(("argv", "code", "text"), BAD_INPUTS)
def test_bad_input_gives_one_line_and_status(
    argv: list[str], code: int, text: str, tmp_path: Path
) -> None:
    paths = {
        "junk": b"junk",
        "deep": b"l" * 100_000,
        "huge_length": b"d1:#i1e1:&d1:a99999999999999999:x",
        "big": b"d1:#i1e1:&d" + b"1:a" * 0 + b"e1:=dee" + b" " * 200,
        "good": b"d1:#i1e1:&de1:=dee",
    }
    for name, content in paths.items():
        (tmp_path / name).write_bytes(content)
    args = [a.format(**{n: str(tmp_path / n) for n in [*paths, "missing"]}) for a in argv]
    result = subprocess.run(
        [sys.executable, "-m", "swarmconf.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == code
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("swarmconf: error: ") and text in lines[0]
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "command", ["merge", "show", "diff", "verify", "encrypt", "decrypt", "keygen"]
)
def test_help_has_examples(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    assert "examples:\n  swarmconf " + command in capsys.readouterr().out
