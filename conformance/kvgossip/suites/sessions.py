"""Not yet ported."""

from ..suite_sessions import build

__all__ = ["build"]
