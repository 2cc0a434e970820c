"""Not yet ported."""

from ..cat_merge import ignore_rules as build

__all__ = ["build"]
