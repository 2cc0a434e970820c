"""A counterexample as conformance vectors: each client's script of the case, the spec's
answers expected; the spec passes them, the mutant whose campaign found the case fails them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from swarmconf.cli import main
from swarmconf.cliutil import Exit
from swarmconf.conformance.adapter import Adapter, builtin_adapter
from swarmconf.fuzz.configmerge.campaigns import mutant_adapter
from swarmconf.fuzz.configmerge.check import Bound
from swarmconf.fuzz.configmerge.export import export
from swarmconf.fuzz.configmerge.model import case_of
from swarmconf.fuzz.explore import explore


def answers(adapter: Adapter, document: dict[str, Any]) -> list[bool]:
    """Whether the adapter answers each case of the file as expected."""
    found = []
    for group in document["testGroups"]:
        params = {key: value for key, value in group.items() if key not in ("type", "tests")}
        for test in group["tests"]:
            answer = adapter.handle({"op": "client", **params, **test["input"]})
            found.append(answer.get("result") == test["expected"])
    return found


def test_a_mutants_counterexample_fails_as_vectors_where_the_spec_passes(tmp_path: Path) -> None:
    bound = Bound(2, 2, mutant="ties")
    result, search = explore(bound.model(), stop_on_violation=True)
    found = result.violations["P3"]
    case = case_of(bound.model(), search.trace(found), judged=found.action is None)
    path = export(case, tmp_path)
    document = json.loads(path.read_text())
    assert document["numberOfTests"] == 2 and (tmp_path / "schemas").is_dir()
    assert all(answers(builtin_adapter("spec"), document))
    with mutant_adapter("ties") as broken:
        assert not all(answers(broken, document))


def test_the_command_writes_vectors_the_runner_takes(tmp_path: Path) -> None:
    out = tmp_path / "vectors"
    assert main(["fuzz", "vectors", "1:0:0", "--swarm", "reference", "-o", str(out)]) == Exit.OK
    args = ["conformance", "run", "--client", "builtin:spec", "--vectors", str(out)]
    assert main(args) == Exit.OK


def test_a_case_through_an_adapter_exports_with_the_deployed_clients_answers(
    tmp_path: Path,
) -> None:
    import sys

    emulation = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed"
    out = tmp_path / "vectors"
    args = ["fuzz", "vectors", "1:0:0", "--behaviours", "libsession,client", "--client"]
    assert main([*args, emulation, "-o", str(out)]) == Exit.OK
    document = json.loads((out / "client_steps_test.json").read_text())
    assert set(document["notes"]) >= {
        flag for group in document["testGroups"] for t in group["tests"] for flag in t["flags"]
    }
    run = ["conformance", "run", "--client", emulation, "--vectors", str(out)]
    assert main(run) == Exit.OK
