"""`swarmconf kv` refuses bad input with the one error line and its exit status, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarmconf.cli import main
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.grants import decode_grant


def kv(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["kv", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_keygen_grant_and_pubkey(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, alice, grant = (str(tmp_path / n) for n in ("root.key", "alice.key", "alice.grant"))
    status, root_pk, _ = kv(capsys, "keygen", "-o", root)
    assert status == 0 and (tmp_path / "root.key").stat().st_mode & 0o777 == 0o600
    assert kv(capsys, "pubkey", f"@{root}")[1] == root_pk
    assert kv(capsys, "pubkey", Path(root).read_text().strip())[1] == root_pk
    alice_pk = kv(capsys, "keygen", "--output", alice)[1].strip()
    status, grant_id, _ = kv(
        capsys, "grant", "--key", f"@{root}", "--to", alice_pk, "--pattern", "/a/**",
        "--subgrant", "--at", "5", "-o", grant,
    )  # fmt: skip
    assert status == 0
    issued = decode_grant(bytes.fromhex((tmp_path / "alice.grant").read_text()))
    assert issued.id.hex() == grant_id.strip()
    assert (issued.issuer.hex(), issued.issuee.hex()) == (root_pk.strip(), alice_pk)
    assert (issued.pattern, issued.subgrant, issued.issued_at) == ("/a/**", True, 5)
    assert crypto.public_key(bytes.fromhex(Path(alice).read_text())).hex() == alice_pk


@pytest.mark.parametrize(
    ("args", "status", "reason"),
    [
        (["keygen", "-o", "{dir}/exists.key"], 2, "OUTPUT_UNWRITABLE: cannot write"),
        (["pubkey", "@{dir}/missing.key"], 2, "INPUT_UNREADABLE: cannot read"),
        (["pubkey", "{dir}/exists.key"], 2, "KEY_NOT_HEX: a key is HEX or @FILE"),
        (["pubkey", "@{dir}/short.key"], 2, "BAD_ARGUMENT: a secret key is 32 bytes, not 31"),
        (["pubkey", "@{dir}/open.key"], 2, "PERMISSIONS_TOO_OPEN: {dir}/open.key has mode 0644"),
        (["cluster-key", "-o", "{dir}/exists.key"], 2, "BAD_ARGUMENT: cannot create"),
        (["serf-config", "--cluster-key", "{dir}/exists.key", "-o", "{dir}/s.json"], 2,
         "BAD_ARGUMENT: {dir}/exists.key must hold 32 bytes, not 48"),
        (["agent", "--data", "{dir}/a", "--name", "a", "--root", "ab" * 32], 2,
         "NO_CLUSTER_KEY: give --cluster-key FILE"),
        (["grant", "--key", "@{dir}/exists.key", "--to", "zz", "--pattern", "/a", "-o", "{dir}/g"],
         2, "KEY_NOT_HEX"),
        (["grant", "--key", "@{dir}/exists.key", "--to", "ab" * 32, "--pattern", "a/**",
          "-o", "{dir}/g"], 1, "PATTERN_SYNTAX"),
        (["set", "--data", "{dir}/nonode", "--key", "@{dir}/exists.key", "/a", "v"],
         3, "NODE_NOT_RUNNING"),
        (["set", "--data", "{dir}", "--key", "@{dir}/exists.key", "/a/../b", "v"],
         1, "KEY_DOT_SEGMENT"),
        (["set", "--data", "{dir}", "--key", "@{dir}/exists.key", "/a"], 2, "USAGE"),
        (["get", "--data", "{dir}/nonode", "/a"], 3, "NODE_NOT_RUNNING"),
        (["status", "--data", "{dir}/nonode"], 3, "NODE_NOT_RUNNING"),
    ],
)  # fmt: skip
def test_bad_input_is_a_reason_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], status: int, reason: str
) -> None:
    for name, text in (("exists", "11" * 32), ("short", "11" * 31), ("open", "11" * 32)):
        (tmp_path / f"{name}.key").write_text(text)
        (tmp_path / f"{name}.key").chmod(0o644 if name == "open" else 0o600)
    code, out, err = kv(capsys, *(a.format(dir=tmp_path) for a in args))
    assert (code, out) == (status, "")
    assert err.startswith(f"swarmconf: error: {reason.format(dir=tmp_path)}")
    assert "Traceback" not in err
    assert (tmp_path / "exists.key").read_text() == "11" * 32
