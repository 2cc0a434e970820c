"""Not yet ported."""

from ..cat_bt import build as build

__all__ = ["build"]
