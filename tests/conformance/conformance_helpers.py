"""Building small vector files for the runner's and the schema's tests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from swarmconf.conformance import vectors
from swarmconf.conformance.configmerge.vocabulary import KINDS, RULE_PATTERN
from swarmconf.spec.configmerge.reasons import Reason

FLAGS = {"Ktv": vectors.Flag("BASIC", "A known test vector.")}
SOURCE = vectors.Source("the runner's tests", "0", "unknown")


def hash_case(tc_id: int, msg: bytes, *, valid: bool = True) -> dict[str, Any]:
    """A `hash` case: valid with the BLAKE2b-256 of `msg`, or invalid with MSG_NOT_DICT."""
    case: dict[str, Any] = {
        "tcId": tc_id,
        "name": f"case-{tc_id}",
        "comment": f"hash of {msg!r}",
        "flags": ["Ktv"],
        "rules": ["D1"],
        "input": {"msg": msg.hex()},
    }
    if valid:
        case["result"] = "valid"
        case["expected"] = {"hash": hashlib.blake2b(msg, digest_size=32).hexdigest()}
    else:
        case["result"] = "invalid"
        case["reason"] = "MSG_NOT_DICT"
    return case


def suite(name: str, cases: list[dict[str, Any]]) -> vectors.Suite:
    """A config-merge suite of these cases (lag 5), each of the op it names, else `hash`."""
    built = vectors.Suite(
        "configmerge",
        name,
        "Test vectors for the runner's tests.",
        FLAGS,
        KINDS,
        rule_pattern=RULE_PATTERN,
        reasons=[reason.value for reason in Reason],
    )
    for case in cases:
        left_out = ("tcId", "name", "comment", "op")
        fields = {key: value for key, value in case.items() if key not in left_out}
        group = built.group(case.get("op", "hash"), lag=5)
        built.case(group, case["name"], case["comment"], **fields)
    return built


def document(name: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    return suite(name, cases).document(SOURCE)


def write_vectors(root: Path, name: str, cases: list[dict[str, Any]]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    path = root / vectors.vector_file_name(name)
    path.write_text(vectors.dump(document(name, cases)), encoding="utf-8")
    json.loads(path.read_text(encoding="utf-8"))
    return path
