"""Every reference test runs twice: with the compiled bencode2 codec and on the pure fallback.

With the compiled codec, merges of three inputs or more match every input against the one
before (`splice`), whatever its size, so the matching meets every input the tests make.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from swarmconf.reference.configmerge import bt, splice


@pytest.fixture(autouse=True, params=["accelerated", "pure"])
def codec(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    assert bt._accelerated_decode is not None, "bencode2 is a dependency: install it"
    monkeypatch.setattr(bt, "ACCELERATED", request.param == "accelerated")
    monkeypatch.setattr(splice, "MIN_SIZE", 0)
    yield request.param
