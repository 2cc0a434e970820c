"""The examples and constants the K/V Gossip pages state hold in `swarmconf.spec.kvgossip`."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarmconf.spec.kvgossip.keys import check_key, matches
from swarmconf.spec.kvgossip.reasons import KvError
from swarmconf.spec.kvgossip.session import DEFAULT_MAX_LOOPS
from swarmconf.spec.kvgossip.state import DEFAULT_SKEW_MS

PAGES = Path(__file__).resolve().parents[2] / "docs" / "pages" / "kvgossip"


def test_key_examples() -> None:
    page = (PAGES / "data-model.md").read_text()
    assert "`/fleet/plane_1/autopilot` is a key" in page
    check_key("/fleet/plane_1/autopilot")
    refused = {}
    for key in ("/fleet//x", "/fleet/../x", "fleet/x"):
        with pytest.raises(KvError) as error:
            check_key(key)
        refused[key] = error.value.reason
    claim = "`/fleet//x`, `/fleet/../x` and `fleet/x` are\nrefused (`{}`, `{}`, `{}`)".format(
        *refused.values()
    )
    assert claim in page


def test_pattern_examples() -> None:
    page = (PAGES / "data-model.md").read_text()
    assert "`/fleet/*/autopilot` matches `/fleet/plane_1/autopilot`" in page
    assert matches("/fleet/*/autopilot", "/fleet/plane_1/autopilot")
    assert "`/fleet/**` matches\n`/fleet/a` and `/fleet/a/b` but not `/fleet`" in page
    assert matches("/fleet/**", "/fleet/a") and matches("/fleet/**", "/fleet/a/b")
    assert not matches("/fleet/**", "/fleet")
    assert "`/fleet/**/state` matches `/fleet/state`" in page
    assert matches("/fleet/**/state", "/fleet/state")


def test_defaults() -> None:
    assert DEFAULT_SKEW_MS == 30_000
    assert "(30 s by default)" in (PAGES / "data-model.md").read_text()
    assert DEFAULT_MAX_LOOPS == 3
    assert "at most three times by default" in (PAGES / "sync.md").read_text()
