"""Building small vector files for the runner's and the schema's tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from swarmconf.conformance.vectorfile import dump_vector_file

FLAGS = {"Ktv": {"bugType": "BASIC", "description": "A known test vector."}}


def hash_case(tc_id: int, msg: bytes, *, valid: bool = True) -> dict[str, Any]:
    """A `hash` case: valid with the BLAKE2b-256 of `msg`, or invalid with MSG_NOT_DICT."""
    case: dict[str, Any] = {
        "tcId": tc_id,
        "name": f"case-{tc_id}",
        "comment": f"hash of {msg!r}",
        "flags": ["Ktv"],
        "rules": ["D1"],
        "op": "hash",
        "input": {"msg": msg.hex()},
    }
    if valid:
        case["result"] = "valid"
        case["expected"] = {"hash": hashlib.blake2b(msg, digest_size=32).hexdigest()}
    else:
        case["result"] = "invalid"
        case["reason"] = "MSG_NOT_DICT"
    return case


def document(category: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "schema": f"{category}_schema_v1.json",
        "header": {
            "schemaVersion": 1,
            "category": category,
            "description": "Test vectors for the runner's tests.",
            "lag": 5,
            "profile": None,
            "flags": FLAGS,
        },
        "numberOfTests": len(cases),
        "testCases": cases,
    }


def write_vectors(root: Path, category: str, cases: list[dict[str, Any]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{category}_test.json"
    path.write_text(dump_vector_file(document(category, cases)), encoding="utf-8")
    json.loads(path.read_text(encoding="utf-8"))
    return path
