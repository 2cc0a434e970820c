"""Private by default and closed without a key: modes, start-up checks and the cluster key file."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from swarmconf.cli import main
from swarmconf.reference.kvgossip.identity import (
    IDENTITY_FILE,
    IdentityError,
    load_identity,
    node_id_of,
)
from swarmconf.reference.kvgossip.membership import (
    SERF_RECONNECT_INTERVAL,
    ClusterKey,
    MembershipError,
    read_cluster_key,
    write_cluster_key,
)
from swarmconf.reference.kvgossip.node import Node, NodeConfig, NodeStartError
from swarmconf.reference.kvgossip.privacy import PermissionsError, private_dir
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.spec.kvgossip.fixtures import ROOT


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@contextmanager
def umask(value: int) -> Iterator[None]:
    old = os.umask(value)
    try:
        yield
    finally:
        os.umask(old)


def test_cluster_key_command_writes_a_private_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "cluster.key"
    with umask(0):
        assert main(["kv", "cluster-key", "-o", str(path)]) == 0
    assert mode(path) == 0o600
    key = read_cluster_key(path)
    assert len(key.secret) == 32 and key.gossip_key != key.rpc_token
    assert main(["kv", "cluster-key", "-o", str(path)]) == 2  # never overwrites
    assert "BAD_ARGUMENT" in capsys.readouterr().err
    assert read_cluster_key(path) == key


def test_serf_config_holds_the_derived_secrets_privately(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = ClusterKey.generate()
    write_cluster_key(tmp_path / "cluster.key", key)
    out = tmp_path / "serf.json"
    args = ["kv", "serf-config", "--cluster-key", str(tmp_path / "cluster.key"), "-o", str(out)]
    with umask(0):
        assert main(args) == 0
    assert mode(out) == 0o600
    assert json.loads(out.read_text()) == {
        "encrypt_key": key.gossip_key,
        "rpc_auth": key.rpc_token,
        "reconnect_interval": SERF_RECONNECT_INTERVAL,
    }
    assert main(args) == 2 and "BAD_ARGUMENT: cannot create" in capsys.readouterr().err


def test_a_readable_or_malformed_cluster_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cluster.key"
    write_cluster_key(path, ClusterKey.generate())
    path.chmod(0o644)
    with pytest.raises(PermissionsError) as loose:
        read_cluster_key(path)
    assert loose.value.reason == NodeReason.PERMISSIONS_TOO_OPEN
    assert "chmod 0600" in loose.value.detail
    path.chmod(0o600)
    path.write_text("c2hvcnQ=\n")
    with pytest.raises(MembershipError, match="must hold 32 bytes"):
        read_cluster_key(path)


def test_node_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    data = tmp_path / "node"
    with umask(0):
        private_dir(data)
        SqliteStore(data / "store.db", ROOT.pk).close()
    assert mode(data) == 0o700
    assert mode(data / "store.db") == 0o600
    assert all(mode(p) == 0o600 for p in data.iterdir())  # the WAL files follow the store


def test_a_node_refuses_an_open_data_dir(tmp_path: Path) -> None:
    data = tmp_path / "open"
    data.mkdir(mode=0o755)
    data.chmod(0o755)
    config = NodeConfig(data, ROOT.pk, "a", cluster_key=ClusterKey.generate())
    with pytest.raises(PermissionsError, match=r"mode 0755; run: chmod 0700"):
        Node(config)
    data.chmod(0o700)
    SqliteStore(data / "store.db", ROOT.pk).close()
    (data / "store.db").chmod(0o644)
    with pytest.raises(PermissionsError, match=r"store.db has mode 0644"):
        Node(config)


def test_a_node_keeps_a_private_identity_key_its_node_id_derives_from(tmp_path: Path) -> None:
    data = tmp_path / "a"
    config = NodeConfig(data, ROOT.pk, "a", cluster_key=ClusterKey.generate())
    with umask(0):
        node = Node(config)
    assert node.status()["node_id"] == node.node_id.hex()
    node.store.close()
    assert mode(data / IDENTITY_FILE) == 0o600
    assert node.node_id == node_id_of(node.identity.public)
    again = Node(config)
    again.store.close()
    assert again.node_id == node.node_id  # kept across restarts
    (data / IDENTITY_FILE).chmod(0o644)
    with pytest.raises(PermissionsError, match=r"identity.key has mode 0644"):
        Node(config)
    (data / IDENTITY_FILE).chmod(0o600)
    (data / IDENTITY_FILE).write_text("not base64!\n")
    with pytest.raises(IdentityError) as refused:
        load_identity(data)
    assert refused.value.reason == NodeReason.BAD_ARGUMENT


def test_no_key_means_no_start_unless_insecure_on_loopback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(NodeStartError) as refused:
        Node(NodeConfig(tmp_path / "a", ROOT.pk, "a"))
    assert refused.value.reason == NodeReason.NO_CLUSTER_KEY
    with pytest.raises(NodeStartError, match="loopback only"):
        Node(NodeConfig(tmp_path / "a", ROOT.pk, "a", host="0.0.0.0", insecure=True))
    with caplog.at_level(logging.WARNING, "swarmconf.reference.kvgossip"):
        node = Node(NodeConfig(tmp_path / "a", ROOT.pk, "a", insecure=True))
    node.store.close()
    assert any("INSECURE" in r.getMessage() for r in caplog.records)
    assert node.counters()["refused_connections"] == {}


def test_the_agent_command_names_the_missing_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["kv", "agent", "--data", str(tmp_path / "a"), "--name", "a", "--root", ROOT.pk.hex()]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("swarmconf: error: NO_CLUSTER_KEY: give --cluster-key FILE")
