"""Not yet ported."""

from ..suite_encoding import build

__all__ = ["build"]
