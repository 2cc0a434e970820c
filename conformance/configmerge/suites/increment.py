"""Not yet ported."""

from ..cat_increment import build as build

__all__ = ["build"]
