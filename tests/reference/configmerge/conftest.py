"""Every reference test runs twice: with the compiled bencode2 codec and on the pure fallback."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from swarmconf.reference.configmerge import bt


@pytest.fixture(autouse=True, params=["accelerated", "pure"])
def codec(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    assert bt._accelerated_decode is not None, "bencode2 is a dependency: install it"
    monkeypatch.setattr(bt, "ACCELERATED", request.param == "accelerated")
    yield request.param
