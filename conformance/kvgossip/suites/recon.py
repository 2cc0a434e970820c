"""Not yet ported."""

from ..suite_recon import build

__all__ = ["build"]
