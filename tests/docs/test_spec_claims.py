"""The facts the specification pages state (bytes, reason codes, hashes, sizes) hold in the code."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import nacl.bindings
import pytest

from swarmconf.reference import configmerge as reference
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge import ConfigError, examples

PAGES = Path(__file__).resolve().parents[2] / "docs" / "pages"
IMPLEMENTATIONS = [spec, reference]
ROW = re.compile(r"^\| `(d[^`]*)` \| (valid|`([A-Z_]+)`)", re.MULTILINE)


def byte_table_rows() -> list[tuple[str, str, str]]:
    """(page, message bytes, expected result) for each row of every `| Bytes | Result |` table."""
    rows = []
    for path in sorted(PAGES.rglob("*.md")):
        text = path.read_text()
        if "| Bytes | Result |" in text:
            page = path.relative_to(PAGES).as_posix()
            for match in ROW.finditer(text):
                rows.append((page, match.group(1), match.group(3) or "valid"))
    return rows


BYTE_ROWS = byte_table_rows()


def test_pages_have_byte_tables() -> None:
    pages = {page for page, _, _ in BYTE_ROWS}
    assert {"spec/structure.md", "spec/data-model.md"} <= pages
    assert len(BYTE_ROWS) >= 15


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS, ids=lambda m: m.__name__)
@pytest.mark.parametrize(("page", "message", "expected"), BYTE_ROWS)
def test_byte_table_row(implementation: ModuleType, page: str, message: str, expected: str) -> None:
    data = message.encode()
    if expected == "valid":
        assert implementation.parse(data).hash == hashlib.blake2b(data, digest_size=32).digest()
    else:
        with pytest.raises(ConfigError) as refused:
            implementation.parse(data)
        assert refused.value.reason == expected


def test_smallest_message_is_what_a_new_message_writes() -> None:
    page = (PAGES / "spec" / "structure.md").read_text()
    written = spec.ConfigMessage.new(0).serialize()
    assert f"```text\n{written.decode()}\n```" in page


def test_padding_examples() -> None:
    page = (PAGES / "spec" / "encryption.md").read_text()
    assert spec.padded_size(100) == 216 and "plaintext of 216 bytes" in page
    plaintext = spec.pad(b"d" + b"x" * 99)
    ciphertext = spec.encrypt(plaintext, b"k" * 32, profile="libsession", domain=b"d")
    assert len(ciphertext) == 256 and "a 256-byte ciphertext" in page
    assert spec.padded_size(5000) == 5080 and "5080 bytes of plaintext" in page


def _increment_without_change(message: bytes) -> bytes:
    return spec.parse(message).increment().serialize()


def _merge_without_edit(messages: list[bytes]) -> bytes:
    return spec.merge(messages).serialize()


BUILDERS: dict[str, Callable[[], bytes]] = {
    "119": lambda: examples.chain_to(119),
    "120": lambda: examples.chain_to(120),
    "121": lambda: examples.chain_to(121),
    "122": lambda: examples.chain_to(122),
    "123": examples.m123,
    "124": lambda: _increment_without_change(examples.m123()),
    "124 (124b)": examples.m124,
    "125a": examples.m125a,
    "125b": examples.m125b,
    "126 (126a)": examples.m126a,
    "126b": examples.m126b,
    "127, no edit": lambda: _merge_without_edit([examples.m126a(), examples.m126b()]),
    "127": examples.m127,
}
HASH_ROW = re.compile(r"^\| ([^|]+?) \| [^|]+ \| `([0-9a-f]{64})` \|$", re.MULTILINE)


def test_errata_hashes_are_the_hashes_of_the_corrected_examples() -> None:
    page = (PAGES / "errata.md").read_text()
    listed = {label: digest for label, digest in HASH_ROW.findall(page)}
    assert listed.keys() == BUILDERS.keys()
    for label, build in BUILDERS.items():
        assert hashlib.blake2b(build(), digest_size=32).hexdigest() == listed[label], label


def test_merging_127_with_its_ancestors_gives_127_back() -> None:
    page = (PAGES / "errata.md").read_text()
    assert "Merging 127, 125a and 126b gives 127 back, unchanged." in page
    again = spec.merge([examples.m127(), examples.m125a(), examples.m126b()])
    assert again.serialize() == examples.m127()


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS, ids=lambda m: m.__name__)
def test_encryption_profiles_are_as_the_page_describes(implementation: ModuleType) -> None:
    page = (PAGES / "spec" / "encryption.md").read_text()
    plaintext, key, domain = spec.examples.m118(), bytes(range(32)), b"convo"
    assert "`libsession-config-nonce-hash-key`" in page
    nonce = hashlib.blake2b(plaintext, digest_size=24, key=b"libsession-config-nonce-hash-key")
    sealed = xchacha(plaintext, nonce.digest(), key)
    assert implementation.encrypt(plaintext, key) == sealed + nonce.digest()

    assert "`libsessionutil-config-encrypted-` followed by the domain" in page
    padded = bytes(spec.padded_size(len(plaintext)) - len(plaintext)) + plaintext
    derived = hashlib.blake2b(key + len(padded).to_bytes(8, "big") + domain, digest_size=32)
    nonce = hashlib.blake2b(
        padded, digest_size=24, key=b"libsessionutil-config-encrypted-" + domain
    )
    sealed = xchacha(padded, nonce.digest(), derived.digest())
    expected = sealed + nonce.digest()
    encrypted = implementation.encrypt(padded, key, profile="libsession", domain=domain)
    assert encrypted == expected


def xchacha(plaintext: bytes, nonce: bytes, key: bytes) -> bytes:
    return bytes(
        nacl.bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, None, nonce, key)
    )
