"""The worked adapter on the conformance pages answers every operation as the built-in one does."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

from nacl.signing import SigningKey

from swarmconf.conformance.adapter import builtin_adapter
from swarmconf.conformance.client import make_client
from swarmconf.conformance.configmerge.ops import OPS as CONFIG_OPS
from swarmconf.conformance.runner import PASSED, run_cases
from swarmconf.conformance.vectors import load_cases
from swarmconf.spec.configmerge import ConfigMessage, bt, encrypt, examples, parse, wrap

ADAPTER = Path(__file__).resolve().parents[2] / "docs" / "examples" / "conformance_adapter.py"
SEED = bytes(range(32))
KEY = bytes(range(100, 132))


def data_hex(value: dict[bytes, Any]) -> str:
    return bt.encode(value).hex()


def requests() -> list[dict[str, Any]]:
    m123, m125a, m125b = examples.m123(), examples.m125a(), examples.m125b()
    signed = parse(m123).serialize(SEED)
    verify_key = bytes(SigningKey(SEED).verify_key).hex()
    data = data_hex({b"a": 1, b"s": [1, b"x"], b"d": {b"k": b"v"}})
    other = data_hex({b"a": 2, b"s": [b"x", b"y"]})
    ciphertext = encrypt(m123, KEY, profile="libsession", domain=b"k").hex()
    blobs = [blob.hex() for blob in wrap(m123, KEY, b"k")]
    receive = bt.encode({b"do": b"receive", b"msgs": [m125a, m125b]}).hex()
    edit = bt.encode({b"do": b"edit", b"data": {b"a": 1}}).hex()
    steps = [receive, edit, bt.encode({b"do": b"push"}).hex(), bt.encode({b"do": b"confirm"}).hex()]
    return [
        {"op": "parse", "msg": m123.hex(), "lag": 5},
        {"op": "parse", "msg": signed.hex(), "lag": 5, "verify_key": verify_key},
        {"op": "parse", "msg": b"d1:#i0e1:&d1:gli2ei1eee1:=dee".hex(), "lag": 5},
        {"op": "parse", "msg": m123.hex(), "lag": 0},
        {"op": "hash", "msg": examples.m124().hex(), "lag": 5},
        {"op": "new", "seqno": 7, "lag": 5, "data": data},
        {"op": "new", "seqno": 7, "lag": 5, "data": data, "sign_key": SEED.hex()},
        {"op": "serialize", "msg": signed.hex(), "lag": 5},
        {"op": "diff", "old": data, "new": other},
        {"op": "increment", "msg": m123.hex(), "lag": 5, "data": other},
        {"op": "merge", "msgs": [m125a.hex(), m125b.hex()], "lag": 5},
        {"op": "merge", "msgs": [m125a.hex(), m125b.hex()], "lag": 5, "data": other},
        {"op": "merge", "msgs": [m125a.hex()], "lag": 5},
        {"op": "merge", "msgs": ["00"], "lag": 5},
        {"op": "sign", "msg": m123.hex(), "lag": 5, "sign_key": SEED.hex()},
        {"op": "verify", "msg": signed.hex(), "lag": 5, "verify_key": verify_key},
        {"op": "verify", "msg": m123.hex(), "lag": 5, "verify_key": verify_key},
        {"op": "encrypt", "plaintext": m123.hex(), "key": KEY.hex(), "profile": "spec"},
        {
            "op": "decrypt",
            "ciphertext": ciphertext,
            "key": KEY.hex(),
            "profile": "libsession",
            "domain": "6b",
        },
        {
            "op": "decrypt",
            "ciphertext": ciphertext,
            "key": SEED.hex(),
            "profile": "libsession",
            "domain": "6b",
        },
        {"op": "pad", "plaintext": ConfigMessage.new(1).serialize().hex(), "overhead": 40},
        {"op": "unpad", "padded": "0000" + ConfigMessage.new(1).serialize().hex()},
        {"op": "wrap", "message": m123.hex(), "key": KEY.hex(), "domain": "6b", "level": 1},
        {"op": "wrap", "message": m123.hex(), "key": KEY.hex(), "domain": "6b", "level": 0},
        {"op": "unwrap", "blobs": blobs, "keys": [SEED.hex(), KEY.hex()], "domain": "6b"},
        {"op": "unwrap", "blobs": blobs, "keys": [SEED.hex()], "domain": "6b"},
        *(
            {"op": "client", "msg": examples.m124().hex(), "lag": 5, "profile": p, "steps": steps}
            for p in ("spec", "libsession")
        ),
        {"op": "client", "lag": 5, "profile": "spec", "steps": [edit], "verify_key": verify_key},
    ]


def test_requests_cover_every_operation() -> None:
    assert {request["op"] for request in requests()} == set(CONFIG_OPS)


def test_worked_adapter_agrees_with_the_builtin_adapter() -> None:
    oracle = builtin_adapter("spec")
    client = make_client(f"{shlex.quote(sys.executable)} {shlex.quote(str(ADAPTER))}", 30)
    hello = client.start()
    try:
        assert set(hello["ops"]) == set(CONFIG_OPS)
        for request in requests():
            answer = client.request(dict(request))
            answer.pop("id", None)
            assert answer == oracle.handle(dict(request)), request
    finally:
        client.close()


def test_unknown_op_is_skipped() -> None:
    client = make_client(f"{shlex.quote(sys.executable)} {shlex.quote(str(ADAPTER))}", 30)
    client.start()
    try:
        answer = client.request({"op": "frobnicate"})
    finally:
        client.close()
    assert "skipped" in answer


def test_adapter_page_includes_the_tested_file() -> None:
    page = (ADAPTER.parents[1] / "pages" / "conformance" / "worked-adapter.md").read_text()
    assert '--8<-- "examples/conformance_adapter.py"' in page


def test_worked_adapter_fares_exactly_as_the_builtin_reference_on_every_vector() -> None:
    vectors = ADAPTER.parents[2] / "vectors" / "v1"
    cases = load_cases(vectors, designs=["configmerge"])
    command = f"{shlex.quote(sys.executable)} {shlex.quote(str(ADAPTER))}"
    worked = run_cases(make_client(command, 30), cases)
    builtin = run_cases(make_client("builtin:reference", 30), cases)
    assert len(cases) > 20_000
    assert [o.status for o in worked.outcomes] == [o.status for o in builtin.outcomes]
    assert sum(o.status == PASSED for o in worked.outcomes) > 0.99 * len(cases)
