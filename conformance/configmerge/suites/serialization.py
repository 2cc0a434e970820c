"""Not yet ported."""

from ..cat_serialize import build as build

__all__ = ["build"]
