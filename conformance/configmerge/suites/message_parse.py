"""Not yet ported."""

from ..cat_parse import build as build

__all__ = ["build"]
