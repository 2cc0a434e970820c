"""`swarmconf wrap` and `unwrap`, and `show` and `merge` reading payloads: the message back from
a compressed payload and from parts in any order; one reason-coded line for every bad payload."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import swarmconf.reference.configmerge as ref
from swarmconf.cli import main
from swarmconf.spec.configmerge import encrypt, pad
from swarmconf.spec.configmerge.compression import zstd_compress
from swarmconf.spec.configmerge.examples import m127
from swarmconf.spec.configmerge.parts import Part, encode_part

KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
DOMAIN = "convo"
PAYLOAD = ["--key", KEY.hex(), "--domain", DOMAIN]


def run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, bytes, str]:
    code = main(argv)
    captured = capsysbinary.readouterr()
    return code, captured.out, captured.err.decode()


def large_message() -> bytes:
    """A message that takes three parts."""
    message = ref.ConfigMessage.new(1)
    for n in range(3_000):
        message.data[b"k%06d" % n] = hashlib.blake2b(b"%d" % n, digest_size=48).digest()
    return message.serialize()


def sealed(tmp_path: Path, name: str, plaintext: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(encrypt(plaintext, KEY, profile="libsession", domain=DOMAIN.encode()))
    return str(path)


@pytest.fixture
def message_file(tmp_path: Path) -> Path:
    path = tmp_path / "m127.bin"
    path.write_bytes(m127())
    return path


@pytest.fixture
def large_file(tmp_path: Path) -> Path:
    path = tmp_path / "large.bin"
    path.write_bytes(large_message())
    return path


def test_unwrap_prints_the_message_of_a_compressed_payload(
    message_file: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    blob = tmp_path / "m127.blob"
    assert run(["wrap", *PAYLOAD, str(message_file), "-o", str(blob)], capsysbinary)[0] == 0
    opened = ref.decrypt(blob.read_bytes(), KEY, profile="libsession", domain=DOMAIN.encode())
    assert ref.unpad(opened)[:1] == b"z"
    code, out, err = run(["unwrap", *PAYLOAD, str(blob)], capsysbinary)
    assert (code, out, err) == (0, m127(), "")


def test_unwrap_prints_the_message_of_three_parts_in_any_order(
    large_file: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    out_name = str(tmp_path / "large.blob")
    code, _, err = run(["wrap", *PAYLOAD, str(large_file), "-o", out_name], capsysbinary)
    names = [f"{out_name}.{n}" for n in (1, 2, 3)]
    assert code == 0 and err == f"3 parts: {' '.join(names)}\n"
    assert not Path(out_name).exists() and not Path(f"{out_name}.4").exists()
    shuffled = [names[2], names[0], names[2], names[1]]
    keys = ["--key", OTHER_KEY.hex()]
    code, out, err = run(["unwrap", *keys, *PAYLOAD, *shuffled], capsysbinary)
    assert (code, out, err) == (0, large_message(), "")


def test_wrap_of_parts_as_hex_lines(
    large_file: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, _ = run(["wrap", *PAYLOAD, "--hex-out", str(large_file)], capsysbinary)
    lines = out.decode().split()
    assert code == 0 and len(lines) == 3
    assert [bytes.fromhex(line) for line in lines] == ref.wrap(large_message(), KEY, b"convo")


def test_show_and_merge_read_payloads(
    large_file: Path, message_file: Path, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    out_name = str(tmp_path / "large.blob")
    run(["wrap", *PAYLOAD, str(large_file), "-o", out_name], capsysbinary)
    names = [f"{out_name}.{n}" for n in (3, 1, 2)]
    code, out, _ = run(["show", "--json", *PAYLOAD, *names], capsysbinary)
    assert code == 0 and b'"seqno": 1' in out
    single = str(tmp_path / "m127.blob")
    run(["wrap", *PAYLOAD, str(message_file), "-o", single], capsysbinary)
    junk = sealed(tmp_path, "junk.blob", bytes(216))
    code, out, err = run(["merge", "-v", *PAYLOAD, *names, single, junk], capsysbinary)
    assert code == 0 and out == m127()
    assert f"skipping {junk}: PAYLOAD_EMPTY" in err


def bomb(tmp_path: Path) -> str:
    return sealed(tmp_path, "bomb.blob", pad(b"z" + zstd_compress(bytes(6_000_000), 1)))


def bad_part(tmp_path: Path) -> str:
    return sealed(tmp_path, "part.blob", encode_part(Part(bytes(32), 0, 1, b"x")))


@pytest.mark.parametrize(
    ("make_argv", "status", "reason"),
    [
        (lambda t, m, lg: ["unwrap", *PAYLOAD, bomb(t)], 1, "ZSTD_TOO_LARGE"),
        (lambda t, m, lg: ["unwrap", *PAYLOAD, bad_part(t)], 1, "PART_BAD_COUNT"),
        (
            lambda t, m, lg: ["unwrap", "--key", OTHER_KEY.hex(), "--domain", DOMAIN, m],
            1,
            "DECRYPT_FAILED",
        ),
        (lambda t, m, lg: ["unwrap", *PAYLOAD, lg + ".1", lg + ".3"], 1, "PARTS_INCOMPLETE"),
        (
            lambda t, m, lg: ["unwrap", *PAYLOAD, "--no-multipart", lg + ".1"],
            1,
            "PAYLOAD_MULTIPART_UNSUPPORTED",
        ),
        (lambda t, m, lg: ["unwrap", *PAYLOAD, m, m], 1, "PAYLOAD_SEVERAL_MESSAGES"),
        (lambda t, m, lg: ["show", *PAYLOAD, bomb(t)], 1, "ZSTD_TOO_LARGE"),
        (lambda t, m, lg: ["show", m, m], 2, "USAGE"),
        (lambda t, m, lg: ["merge", "--key", KEY.hex(), m], 2, "USAGE"),
        (
            lambda t, m, lg: ["wrap", *PAYLOAD, "--no-multipart", str(t / "large.bin")],
            1,
            "PUSH_TOO_LARGE",
        ),
        (lambda t, m, lg: ["wrap", *PAYLOAD, str(t / "large.bin")], 2, "USAGE"),
        (lambda t, m, lg: ["wrap", *PAYLOAD, "--level", "23", str(t / "m127.bin")], 2, "BAD_LEVEL"),
        (lambda t, m, lg: ["unwrap", "--key", "00", "--domain", DOMAIN, m], 2, "BAD_KEY"),
    ],
    ids=[
        "bomb",
        "count-1",
        "wrong-key",
        "missing-part",
        "pinned-client",
        "two-messages",
        "show-bomb",
        "show-two-files",
        "merge-no-domain",
        "pinned-push",
        "parts-to-stdout",
        "level",
        "short-key",
    ],
)
def test_bad_payloads_give_one_line_with_the_reason(
    make_argv: object,
    status: int,
    reason: str,
    large_file: Path,
    message_file: Path,
    tmp_path: Path,
    capsysbinary: pytest.CaptureFixture[bytes],
) -> None:
    single = str(tmp_path / "m127.blob")
    large = str(tmp_path / "large.blob")
    run(["wrap", *PAYLOAD, str(message_file), "-o", single], capsysbinary)
    run(["wrap", *PAYLOAD, str(large_file), "-o", large], capsysbinary)
    assert callable(make_argv)
    code, out, err = run(make_argv(tmp_path, single, large), capsysbinary)
    assert (code, out) == (status, b"")
    lines = err.splitlines()
    assert lines[-1].startswith(f"swarmconf: error: {reason}: ")
    assert len([line for line in lines if line.startswith("swarmconf: error")]) == 1
