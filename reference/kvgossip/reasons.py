"""Reason codes of the node itself, beside the spec's `KvReason`.

The spec's codes cover what a record, a revocation, a payload or a session message can get
wrong; these cover the node's own plumbing: connections, its session cap, its control socket
and the command line. Like the spec's, a code's value is its name.
"""

from __future__ import annotations

from enum import StrEnum


class NodeReason(StrEnum):
    """Why the node or `swarmconf kv` refused or ended something."""

    # Connections and sessions
    CONNECTION_CLOSED = "CONNECTION_CLOSED"
    """A connection closed between frames."""
    FRAME_TRUNCATED = "FRAME_TRUNCATED"
    """A connection closed inside a frame."""
    CONNECT_FAILED = "CONNECT_FAILED"
    """A peer's sync port could not be reached."""
    SESSION_LIMIT = "SESSION_LIMIT"
    """A sync connection was closed at once: as many sessions as allowed are being answered."""
    INTERNAL_ERROR = "INTERNAL_ERROR"
    """A session ended on an unexpected exception (logged); its open transaction rolled back."""
    # Control socket and command line
    CONTROL_BAD_REQUEST = "CONTROL_BAD_REQUEST"
    """A control request is not a map with a known `op` and well-typed fields."""
    NODE_NOT_RUNNING = "NODE_NOT_RUNNING"
    """No node answers on the control socket of the data directory."""
    BAD_ARGUMENT = "BAD_ARGUMENT"
    """A command-line argument or file is unusable (unreadable, not hex, wrong size)."""
    NOT_FOUND = "NOT_FOUND"
    """The key is absent or deleted."""
    # Membership, limits and privacy (threat model)
    HANDSHAKE_FAILED = "HANDSHAKE_FAILED"
    """A sync connection did not prove it holds the cluster key (stranger, wrong key, silence)."""
    UNKNOWN_NODE_ID = "UNKNOWN_NODE_ID"
    """A sync connection claimed a node id that no member of the cluster announces."""
    NODE_ID_NOT_PROVEN = "NODE_ID_NOT_PROVEN"
    """A sync connection's peer did not sign with the identity key announced for its node id,
    or is not the node that was meant to be reached."""
    WIRE_TAMPERED = "WIRE_TAMPERED"
    """A message on a sealed sync connection did not authenticate where it arrived: altered,
    forged, reordered, or following one that was dropped."""
    WIRE_REPLAYED = "WIRE_REPLAYED"
    """A sealed sync connection carried a copy of a message it had already delivered."""
    WIRE_TRUNCATED = "WIRE_TRUNCATED"
    """A sealed sync connection ended without its closing FINAL message, or inside a message."""
    HELLO_ID_MISMATCH = "HELLO_ID_MISMATCH"
    """A session's HELLO named another node id than the one its connection proved."""
    PEER_LIMIT = "PEER_LIMIT"
    """A sync connection was closed at once: its host or peer already holds its share of slots."""
    SESSION_DEADLINE = "SESSION_DEADLINE"
    """A session ran past its overall deadline and was ended."""
    SESSION_BUDGET = "SESSION_BUDGET"
    """A peer sent more bytes than one session may carry; the session was ended."""
    NOTICE_RATE_LIMIT = "NOTICE_RATE_LIMIT"
    """A change notice was dropped unread: more arrived than the node acts on per second."""
    NOTICE_UNKNOWN_WRITER = "NOTICE_UNKNOWN_WRITER"
    """A change notice named a writer that is not an alive member running a node."""
    CONTROL_LIMIT = "CONTROL_LIMIT"
    """A control connection was closed at once: as many as allowed are open."""
    PERMISSIONS_TOO_OPEN = "PERMISSIONS_TOO_OPEN"
    """The data directory, the store, a key file or the control socket is open to other users."""
    NO_CLUSTER_KEY = "NO_CLUSTER_KEY"
    """A node was started without a cluster key and without `--insecure` on loopback."""
