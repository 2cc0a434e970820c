"""Not yet ported."""

from ..cat_signatures import build as build

__all__ = ["build"]
