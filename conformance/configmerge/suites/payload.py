"""Not yet ported."""

from ..cat_payload import build as build

__all__ = ["build"]
