"""Not yet ported."""

from ..suite_keys import build

__all__ = ["build"]
