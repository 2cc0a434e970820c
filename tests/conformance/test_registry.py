"""Each design registers its vectors with the conformance role through one record, found by
entry point (that the shared modules never name a design is checked in tests/test_layers.py)."""

from __future__ import annotations

import pytest

from swarmconf.conformance import registry
from swarmconf.conformance.adapter import builtin_adapter
from swarmconf.conformance.configmerge import ops as configmerge_ops
from swarmconf.conformance.kvgossip import ops as kvgossip_ops
from swarmconf.conformance.kvgossip.vocabulary import KINDS, SCHEMAS
from swarmconf.conformance.vectors import HEX32, hexlist, obj


def test_both_designs_are_registered_by_entry_point() -> None:
    designs = registry.designs()
    assert list(designs) == ["configmerge", "kvgossip"]
    assert designs["configmerge"].ops is configmerge_ops.OPS
    assert designs["kvgossip"].ops is kvgossip_ops.OPS


def test_a_suite_id_belongs_to_the_design_of_the_longest_prefix() -> None:
    assert registry.design_of("kvgossip_keys").name == "kvgossip"
    assert registry.design_of("merges").name == "configmerge"


def test_operations_are_joined_and_never_declared_twice() -> None:
    ops = registry.all_ops()
    assert set(ops) == set(configmerge_ops.OPS) | set(kvgossip_ops.OPS)
    assert not set(configmerge_ops.OPS) & set(kvgossip_ops.OPS)


@pytest.mark.parametrize("impl", ["spec", "reference"])
def test_the_builtin_adapter_has_every_designs_handlers(impl: str) -> None:
    hello = builtin_adapter(impl).handle({"op": "hello"})
    assert hello["ops"] == sorted(registry.all_ops())
    assert hello["profiles"] == registry.all_profiles() != []


def test_an_unknown_builtin_implementation_is_refused() -> None:
    with pytest.raises(ValueError, match="no built-in implementation"):
        builtin_adapter("nope")


def test_kv_kinds_come_from_the_operations_fields() -> None:
    """Every K/V operation has its schema parts; the group fields are the hoisted ones."""
    assert set(KINDS) == set(kvgossip_ops.OPS)
    revocation = SCHEMAS.group_kind(kvgossip_ops.OPS["kv_revocation"])
    assert revocation.params == {"rootKey": HEX32}
    assert revocation.expected == obj({"grantId": HEX32, "revoker": HEX32})
    assert SCHEMAS.group_kind(kvgossip_ops.OPS["kv_revset"]).input == obj({"grantIds": hexlist()})
    for op, kind in KINDS.items():
        fields = kvgossip_ops.OPS[op].request_kinds()
        assert set(kind.params) | set(kind.input["properties"]) == set(fields), op
