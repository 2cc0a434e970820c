"""Not yet ported."""

from ..suite_treehash import build

__all__ = ["build"]
