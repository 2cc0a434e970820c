"""Not yet ported."""

from ..cat_examples import build as build

__all__ = ["build"]
