"""conformance/PROTOCOL.md says what the code does: the order of checks, the runner's lines on
`hello`, the sizes of inputs, the example `hello`, and the rule ranges of the vector pages."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import re
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import swarmconf.spec.configmerge.payload as payload
from swarmconf.conformance.adapter import builtin_adapter
from swarmconf.conformance.client import ClientFailure
from swarmconf.conformance.configmerge.design import QUIRKS
from swarmconf.conformance.hello import check_hello
from swarmconf.conformance.vectors import load_cases
from swarmconf.spec.configmerge import message
from swarmconf.spec.configmerge.reasons import Reason
from swarmconf.spec.configmerge.rules import CLIENT_RULES, PAYLOAD_RULES, RULES

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL = (ROOT / "conformance" / "PROTOCOL.md").read_text()
VECTORS = ROOT / "vectors" / "v1"
CODE = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def section(text: str, start: str, end: str) -> str:
    return text[text.index(start) : text.index(end, text.index(start))]


def checks_in_source_order(function: Callable[..., Any]) -> list[str]:
    """The `Reason` codes `function` and the spec functions it calls name, depth first, each
    where it is first named (calls are followed by name, within the spec's modules)."""
    found: list[str] = []
    seen: set[Callable[..., Any]] = set()

    def walk(target: Callable[..., Any]) -> None:
        seen.add(target)
        module = importlib.import_module(target.__module__)
        visit(ast.parse(textwrap.dedent(inspect.getsource(target))), module)

    def visit(node: ast.AST, module: ModuleType) -> None:
        if (
            isinstance(node, ast.Attribute)
            and getattr(node.value, "id", None) == "Reason"
            and node.attr not in found
        ):
            found.append(node.attr)
        for child in ast.iter_child_nodes(node):
            visit(child, module)
        if isinstance(node, ast.Call):
            called = called_function(node.func, module)
            is_spec = getattr(called, "__module__", "").startswith("swarmconf.spec.")
            if inspect.isfunction(called) and is_spec and called not in seen:
                walk(called)

    walk(function)
    return found


def called_function(name: ast.expr, module: ModuleType) -> object:
    """What a call's `f` or `module.f` names in `module`, if anything."""
    if isinstance(name, ast.Name):
        return getattr(module, name.id, None)
    if isinstance(name, ast.Attribute) and isinstance(name.value, ast.Name):
        owner = getattr(module, name.value.id, None)
        return getattr(owner, name.attr, None) if inspect.ismodule(owner) else None
    return None


def test_the_order_of_checks_is_the_parsers() -> None:
    text = section(PROTOCOL, "### Order of checks", "The vectors pin this order")
    written = list(dict.fromkeys(CODE.findall(text)))
    parsed = [code for code in checks_in_source_order(message.parse) if code != "BAD_VALUE_TYPE"]
    bt_codes = [code.name for code in Reason if code.name.startswith("BT_")]
    assert set(written) == set(parsed) | set(bt_codes)

    def stage(code: str) -> str:
        return code.split("_")[0]

    # Stage by stage in the parser's order; within a stage (bt's reading order aside), in its.
    assert list(dict.fromkeys(map(stage, written))) == list(dict.fromkeys(map(stage, parsed)))
    for name in {stage(code) for code in parsed} - {"BT"}:
        assert [c for c in written if stage(c) == name] == [c for c in parsed if stage(c) == name]


HELLO = {"name": "fake", "language": "python", "protocol": 1, "ops": ["hash"]}


@pytest.mark.parametrize(
    "hello",
    [
        {"result": {"name": "fake", "language": "python", "protocol": 1, "ops": ["hash"]}},
        {"id": 1, "skipped": "unknown op 'hello'"},
        {**HELLO, "protocol": 2},
        {**HELLO, "ops": "hash"},
    ],
)
def test_the_refusals_of_hello_shown_are_the_runners(hello: dict[str, Any]) -> None:
    with pytest.raises(ClientFailure) as refused:
        check_hello(hello)
    assert f"CLIENT_FAILED: the client {refused.value}\n" in PROTOCOL


def test_the_example_hello_is_accepted_without_notes(generate: ModuleType) -> None:
    hello = generate.example_hello()
    assert check_hello(hello) == []
    assert json.dumps(hello["partial"]) in PROTOCOL


PARSING = ("parse", "hash", "serialize", "increment", "merge", "sign", "verify")
"""The operations that parse a message they are given."""


def message_sizes() -> dict[str, int]:
    """The largest message of each kind of case: `acceptable` ones, those of `wrap`, and those
    of the operations that parse one."""
    sizes = {"acceptable": 0, "wrap": 0, "parsed": 0}
    for case in load_cases(VECTORS, designs=["configmerge"]):
        request = case.request
        texts = [request.get("msg", ""), request.get("message", ""), *request.get("msgs", [])]
        size = max(len(text) // 2 for text in texts)
        kind = "acceptable" if case.result == "acceptable" else "wrap" if case.op == "wrap" else ""
        if not kind and case.op in PARSING:
            kind = "parsed"
        if kind:
            sizes[kind] = max(sizes[kind], size)
    return sizes


def test_the_input_sizes_stated_are_the_vectors() -> None:
    sizes = message_sizes()
    text = " ".join(section(PROTOCOL, "### Input size", "## K/V Gossip operations").split())
    assert f"{sizes['acceptable']:,}-byte message, are `acceptable`" in text
    assert f"at most {sizes['parsed']:,} bytes for the message operations" in text
    assert f"{sizes['wrap']:,} bytes for `wrap`" in text


def test_the_one_unflagged_compressed_payload_is_the_one_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read_message = payload.read_message
    compressed: list[bytes] = []

    def reading(plaintext: bytes) -> bytes:
        if plaintext.startswith(b"z"):
            compressed.append(plaintext)
        return read_message(plaintext)

    monkeypatch.setattr(payload, "read_message", reading)
    adapter = builtin_adapter("spec")
    named = []
    for case in load_cases(VECTORS, ["payload"]):
        if case.op == "unwrap" and "Compression" not in case.flags:
            compressed.clear()
            adapter.handle(case.request)
            if compressed:
                named.append(f"`{case.suite}#{case.tc_id} {case.name}`")
    assert [name.split()[1] for name in named] == ["parts-joined-compressed-integer`"]
    assert named[0] in PROTOCOL  # with its number as the vectors have it


@pytest.mark.parametrize(
    ("page", "letters"),
    [
        ("conformance/VECTORS.md", "DX"),
        ("conformance/PROTOCOL.md", "X"),
        ("docs/pages/conformance/vectors.md", "DX"),
    ],
)
def test_rule_ranges_reach_the_last_rule_and_quirk(page: str, letters: str) -> None:
    text = (ROOT / page).read_text()
    last = {
        "D": max(int(rule[1:]) for rule in [*RULES, *PAYLOAD_RULES, *CLIENT_RULES]),
        "X": len(QUIRKS),
    }
    for letter in letters:
        ends = re.findall(rf"`?{letter}1`?\.\.`?{letter}(\d+)`?", text)
        assert ends and all(int(end) == last[letter] for end in ends), (letter, ends)
