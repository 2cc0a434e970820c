"""Every registered operation is known wherever a client author or a campaign meets it: the
protocol document names it, the worked adapter of its design answers it, and the deployed
client's emulation answers every config-merge operation.

An operation is registered once, in its design's `ops.OPS`; the built-in adapter, the
emulation's `hello` and the vector schemas are derived from that table. What is written by hand
elsewhere is checked here, so a forgotten place fails a test that names it.
"""

from __future__ import annotations

import functools
import importlib.util
from importlib.resources import files
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from swarmconf.conformance import configmerge
from swarmconf.conformance.configmerge.deployed import DeployedAdapter
from swarmconf.conformance.registry import designs

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
WORKED_ADAPTERS = {
    "configmerge": EXAMPLES / "conformance_adapter.py",
    "kvgossip": EXAMPLES / "kvgossip_adapter.py",
}
"""Each design's worked adapter on the conformance pages."""

DESIGN_OPS = sorted((design.name, op) for design in designs().values() for op in design.ops)
EMULATED_OPS = sorted(designs()[configmerge.NAME].ops)


@functools.cache
def worked_adapter(design: str) -> ModuleType:
    """The worked adapter of `design`, imported from its file (its `answer(request)` answers one
    request as its process does)."""
    path = WORKED_ADAPTERS[design]
    spec = importlib.util.spec_from_file_location(f"worked_{design}_adapter", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def knows(answer: Any, op: str) -> bool:
    """Whether an adapter's `answer(request)` lists `op` in `hello` and does not skip it."""
    listed = op in answer({"op": "hello", "protocol": 1})["ops"]
    return listed and "skipped" not in answer({"op": op})


def test_every_design_has_a_worked_adapter() -> None:
    assert set(WORKED_ADAPTERS) == set(designs())
    assert all(path.is_file() for path in WORKED_ADAPTERS.values())


@pytest.mark.parametrize("op", [op for _, op in DESIGN_OPS])
def test_the_protocol_document_names_every_operation(op: str) -> None:
    protocol = files("swarmconf.conformance").joinpath("PROTOCOL.md").read_text()
    assert f"`{op}`" in protocol, f"conformance/PROTOCOL.md does not describe `{op}`"


@pytest.mark.parametrize(("design", "op"), DESIGN_OPS)
def test_the_worked_adapter_answers_every_operation_of_its_design(design: str, op: str) -> None:
    adapter = worked_adapter(design)
    assert knows(adapter.answer, op), f"{WORKED_ADAPTERS[design].name} does not answer {op}"


@pytest.mark.parametrize("op", EMULATED_OPS)
def test_the_emulation_answers_every_config_merge_operation(op: str) -> None:
    assert knows(DeployedAdapter().handle, op), f"the deployed client's emulation skips {op}"
