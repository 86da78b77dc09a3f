"""Keeping the counting loop's working memory in the process between pictures.

Counting makes a few dozen view-sized arrays per picture (about 2 MB each). glibc hands
blocks that big out as fresh memory maps and gives them back when they are freed, so every
picture pays for zero-filling and faulting in its working memory again: about as much time
as the arithmetic on it. Serving them from the heap, and keeping the heap's freed top for
the next picture, removes that cost; the peak memory stays what it was.
"""

from __future__ import annotations

import ctypes
import ctypes.util

# glibc's mallopt parameters (malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
# Blocks up to this size come from the heap, and this much freed heap is kept.
_MMAP_FROM = 64 * 1024 * 1024
_TRIM_FROM = 128 * 1024 * 1024

_tuned: bool | None = None


def keep_working_memory() -> bool:
    """Tune glibc's allocator for the counting loop (once per process); False where the C
    library is not glibc, which then keeps its defaults."""
    global _tuned
    if _tuned is None:
        _tuned = False
        name = ctypes.util.find_library("c")
        if name is not None:
            try:
                mallopt = ctypes.CDLL(name).mallopt
            except (OSError, AttributeError):
                return False
            mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
            mallopt.restype = ctypes.c_int
            _tuned = bool(mallopt(_M_MMAP_THRESHOLD, _MMAP_FROM)) and bool(
                mallopt(_M_TRIM_THRESHOLD, _TRIM_FROM)
            )
    return _tuned


__all__ = ["keep_working_memory"]
