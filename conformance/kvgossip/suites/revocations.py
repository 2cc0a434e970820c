"""Not yet ported."""

from ..suite_revocations import build

__all__ = ["build"]
