"""Not yet ported."""

from ..cat_merge import merges as build

__all__ = ["build"]
