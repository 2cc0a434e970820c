"""A merge case's input: its messages as the protocol sends them, and any other fields."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from swarmconf.conformance.vectors import Json


def merge_input(messages: Iterable[bytes], **fields: Any) -> Json:
    """`msgs` (the messages hex-encoded, in order) and `fields` (`lag`, `data`, keys)."""
    return {"msgs": [message.hex() for message in messages], **fields}
