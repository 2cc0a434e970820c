"""Not yet ported."""

from ..cat_exhaustive import build as build

__all__ = ["build"]
