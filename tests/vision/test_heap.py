"""The allocator tuning for the counting loop."""

from __future__ import annotations

import platform

import pytest

from companion.vision.heap import keep_working_memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="only glibc is tuned")
def test_glibc_keeps_the_working_memory_once_asked() -> None:
    assert keep_working_memory()
    # Asking again changes nothing and says the same.
    assert keep_working_memory()
