"""Every K/V Gossip reason code is shown by a vector, or by a unit test when too big for one."""

import json
from pathlib import Path

import pytest

from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import ALICE
from swarmconf.spec.kvgossip.reasons import KvError, KvReason
from swarmconf.spec.kvgossip.records import MAX_VALUE_BYTES, decode_record, make_record

ROOT = Path(__file__).resolve().parents[3] / "vectors" / "v1"
# Codes whose inputs are megabytes: checked here instead of in a vector file.
TOO_BIG_FOR_VECTORS = {
    KvReason.VALUE_TOO_LARGE: "a value over 1 MiB",
    KvReason.SESSION_FRAME_TOO_LARGE: "a frame over 4 MiB (tests/kvgossip/test_session.py)",
}


def vector_reasons() -> set[str]:
    seen: set[str] = set()
    for path in ROOT.glob("kvgossip_*_test.json"):
        for group in json.loads(path.read_text())["testGroups"]:
            for case in group["tests"]:
                seen.update([case["reason"]] if "reason" in case else [])
                outcomes = (case.get("expected") or {}).get("outcomes", [])
                seen.update(o["reason"] for o in outcomes if o["reason"])
    return seen


def test_every_reason_is_covered() -> None:
    assert set(KvReason) - vector_reasons() == set(TOO_BIG_FOR_VECTORS)


def test_value_over_one_mib_is_refused() -> None:
    record = make_record(ALICE.seed, "/a/x", 1, b"v")
    wire = encode([record.body, record.signature, b"v" * (MAX_VALUE_BYTES + 1), []])
    with pytest.raises(KvError) as err:
        decode_record(wire)
    assert err.value.reason == KvReason.VALUE_TOO_LARGE
