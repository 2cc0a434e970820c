"""`swarmconf kv` refuses bad input with a reason code on stderr and status 1, no traceback."""

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
    status, root_pk, _ = kv(capsys, "keygen", root)
    assert status == 0 and (tmp_path / "root.key").stat().st_mode & 0o777 == 0o600
    assert kv(capsys, "pubkey", root)[1] == root_pk
    alice_pk = kv(capsys, "keygen", alice)[1].strip()
    status, grant_id, _ = kv(
        capsys, "grant", "--key", root, "--to", alice_pk, "--pattern", "/a/**", "--subgrant",
        "--at", "5", "-o", grant,
    )  # fmt: skip
    assert status == 0
    issued = decode_grant(bytes.fromhex((tmp_path / "alice.grant").read_text()))
    assert issued.id.hex() == grant_id.strip()
    assert (issued.issuer.hex(), issued.issuee.hex()) == (root_pk.strip(), alice_pk)
    assert (issued.pattern, issued.subgrant, issued.issued_at) == ("/a/**", True, 5)
    assert crypto.public_key(bytes.fromhex(Path(alice).read_text())).hex() == alice_pk


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (["keygen", "{dir}/exists.key"], "BAD_ARGUMENT: cannot create"),
        (["pubkey", "{dir}/missing.key"], "BAD_ARGUMENT: cannot read"),
        (["pubkey", "{dir}/notahex.key"], "BAD_ARGUMENT: key file"),
        (["pubkey", "{dir}/short.key"], "BAD_ARGUMENT: key file"),
        (["pubkey", "{dir}/open.key"], "PERMISSIONS_TOO_OPEN: {dir}/open.key has mode 0644"),
        (["grant", "--key", "{dir}/exists.key", "--to", "zz", "--pattern", "/a", "-o", "{dir}/g"],
         "BAD_ARGUMENT: public key"),
        (["grant", "--key", "{dir}/exists.key", "--to", "ab" * 32, "--pattern", "a/**",
          "-o", "{dir}/g"], "PATTERN_SYNTAX"),
        (["set", "--data", "{dir}/nonode", "--key", "{dir}/exists.key", "/a", "v"],
         "NODE_NOT_RUNNING"),
        (["set", "--data", "{dir}", "--key", "{dir}/exists.key", "/a/../b", "v"],
         "KEY_DOT_SEGMENT"),
        (["get", "--data", "{dir}/nonode", "/a"], "NODE_NOT_RUNNING"),
        (["status", "--data", "{dir}/nonode"], "NODE_NOT_RUNNING"),
    ],
)  # fmt: skip
def test_bad_input_is_a_reason_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], reason: str
) -> None:
    for name, text in (("exists", "11" * 32), ("notahex", "not hex"), ("short", "11" * 31)):
        (tmp_path / f"{name}.key").write_text(text)
        (tmp_path / f"{name}.key").chmod(0o600)
    (tmp_path / "open.key").write_text("11" * 32)
    (tmp_path / "open.key").chmod(0o644)
    status, out, err = kv(capsys, *(a.format(dir=tmp_path) for a in args))
    assert status == 1 and out == ""
    assert err.startswith(f"swarmconf kv: {reason.format(dir=tmp_path)}")
    assert "Traceback" not in err
    assert (tmp_path / "exists.key").read_text() == "11" * 32
