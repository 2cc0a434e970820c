"""Not yet ported."""

from ..suite_chains import build

__all__ = ["build"]
