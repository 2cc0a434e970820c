"""Not yet ported."""

from ..cat_encryption import build as build

__all__ = ["build"]
