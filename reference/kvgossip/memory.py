"""Give the memory of a burst of large buffers back to the OS once the burst is over.

CPython frees a large request's buffers when the last reference goes, but exceptions raised
while handling it can keep them in reference cycles until a collection, and glibc keeps freed
pages in its heap (its mmap threshold rises after the first large free), so the resident size
stays at its peak. `release()` collects cycles and calls `malloc_trim(0)`; without glibc it only
collects.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

LARGE = 1 << 20
"""A frame at least this size makes its burst worth releasing after."""
SETTLE = 0.5
"""Seconds after a burst's last connection closes before releasing (transports close late)."""
_LIBC_NAME = ctypes.util.find_library("c")
_TRIM = getattr(ctypes.CDLL(_LIBC_NAME), "malloc_trim", None) if _LIBC_NAME else None


def release() -> None:
    """Collect reference cycles, then hand free heap pages back to the OS where glibc can."""
    gc.collect()
    if _TRIM is not None:
        _TRIM(0)
