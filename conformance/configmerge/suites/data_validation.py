"""Not yet ported."""

from ..cat_data import build as build

__all__ = ["build"]
