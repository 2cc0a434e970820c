"""Whether swarmconf's zstd frames are byte for byte those of Debian's libzstd at level 1 (D21).

Racing clients deduplicate only identical blobs, so the compressed bytes matter. The deployed
client calls libzstd's one-shot `ZSTD_compress(dst, capacity, src, size, 1)`; swarmconf
compresses through python-zstandard and the libzstd it bundles. The two agree on every message
of this corpus up to 250 KB and on zero and random inputs up to 5 MB, and where the two libzstd
versions are the same, on every input. Between 1.5.4 and 1.5.7 some messages from about 280 KB
differ (errata, D21). The Makefile installs Debian's `zstd`, which brings `libzstd1`.
"""

from __future__ import annotations

import ctypes
import hashlib
import random

import pytest
import zstandard

from swarmconf.reference.configmerge import ConfigMessage
from swarmconf.spec.configmerge import examples
from swarmconf.spec.configmerge.compression import zstd_compress


def system_library() -> ctypes.CDLL:
    library = ctypes.CDLL("libzstd.so.1")
    library.ZSTD_versionString.restype = ctypes.c_char_p
    library.ZSTD_compressBound.restype = ctypes.c_size_t
    library.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
    library.ZSTD_compress.restype = ctypes.c_size_t
    library.ZSTD_compress.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_int,
    ]
    library.ZSTD_isError.restype = ctypes.c_uint
    library.ZSTD_isError.argtypes = [ctypes.c_size_t]
    return library


LIBRARY = system_library()
VERSIONS = (LIBRARY.ZSTD_versionString().decode(), ".".join(map(str, zstandard.ZSTD_VERSION)))
"""The system libzstd's version and the one python-zstandard bundles."""
MEASURED = ("1.5.4", "1.5.7")
"""The versions the errata's figures come from: Debian 12's libzstd1 and python-zstandard 0.25."""


def system_compress(data: bytes) -> bytes:
    """libzstd's one-shot compression at level 1, as the deployed client calls it."""
    capacity = LIBRARY.ZSTD_compressBound(len(data))
    out = ctypes.create_string_buffer(capacity)
    written = LIBRARY.ZSTD_compress(out, capacity, data, len(data), 1)
    assert not LIBRARY.ZSTD_isError(written)
    return out.raw[:written]


def generated(entries: int, kind: str, seed: int) -> bytes:
    """A message of `entries` keys holding text, hashes, integers or small dicts."""
    chance = random.Random(seed)
    message = ConfigMessage.new(chance.randrange(1, 10**6))
    for n in range(entries):
        value: int | bytes | dict[bytes, int | bytes]
        if kind == "text":
            value = b"value-%d-%b" % (n, b"x" * chance.randrange(40))
        elif kind == "hash":
            value = hashlib.blake2b(b"%d/%d" % (seed, n), digest_size=32).digest()
        elif kind == "ints":
            value = chance.randrange(-(2**63), 2**63)
        else:
            value = {b"n%d" % j: b"s%d" % chance.randrange(1000) for j in range(1, 4)}
        message.data[b"key-%07d" % n] = value
    return message.serialize()


EXAMPLES = [
    getattr(examples, name)() for name in dir(examples) if name[:1] == "m" and name[1:4].isdigit()
]
MESSAGES = [
    generated(entries, kind, seed=entries)
    for entries in (0, 1, 3, 10, 30, 100, 300, 1_000, 3_000)
    for kind in ("text", "hash", "ints", "dicts")
]
FILLERS = [bytes(size) for size in (1, 76_760, 5_000_000)] + [
    random.Random(size).randbytes(size) for size in (1, 1_000, 1_000_000, 5_000_000)
]
LARGE = [generated(10_000, kind, seed=10_000) for kind in ("text", "hash")]
"""Messages of 630 and 710 KB."""


@pytest.mark.parametrize("data", EXAMPLES + MESSAGES + FILLERS, ids=len)
def test_level_1_frames_are_those_of_the_system_libzstd(data: bytes) -> None:
    assert zstd_compress(data, 1) == system_compress(data)


def test_large_messages_differ_only_between_library_versions() -> None:
    """Above about 280 KB, libzstd 1.5.4 and 1.5.7 write some level-1 frames differently; the
    frames of either read back with the other."""
    differing = [len(data) for data in LARGE if zstd_compress(data, 1) != system_compress(data)]
    if VERSIONS[0] == VERSIONS[1]:
        assert differing == []
    elif VERSIONS == MEASURED:
        assert len(differing) == len(LARGE)
    for data in LARGE:
        assert zstandard.ZstdDecompressor().decompress(system_compress(data)) == data
