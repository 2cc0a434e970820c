"""Not yet ported."""

from ..suite_store import build

__all__ = ["build"]
