"""core/heap.py: a long-running poller gives its freed heap back between polls where the C library
is glibc, and does nothing (never fails) where it is not."""

from __future__ import annotations

import ctypes
import os
import platform
import subprocess
import sys

import pytest

from sagan_tui.core import heap


def test_give_back_calls_malloc_trim_and_is_a_no_op_without_it(monkeypatch):
    calls: list[int] = []
    monkeypatch.setattr(heap, "_trim", calls.append)
    heap.give_back()
    assert calls == [0]  # every free page, whatever the pad

    def no_libc(*_args, **_kwargs):
        raise OSError("no such library")

    monkeypatch.setattr(heap, "_trim", None)
    monkeypatch.setattr(ctypes, "CDLL", no_libc)
    heap.give_back()  # a C library it cannot load: nothing, no error
    assert heap._trim is False


MAPPED = """
import ctypes, sys
from sagan_tui.core.heap import few_heaps
if sys.argv[1] == "fixed":
    few_heaps()
libc = ctypes.CDLL(None)
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
big = libc.malloc(4 << 20)
libc.free(big)  # glibc's sliding threshold rises past 4 MiB here, unless it is fixed
block = libc.malloc(1 << 20)
for line in open("/proc/self/maps"):
    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
    if lo <= block < hi:
        print("heap" if "[heap]" in line else "mapped")
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt's settings are glibc's")
def test_few_heaps_fixes_the_mmap_threshold_so_a_large_block_is_never_left_in_the_heap():
    """After a 4 MiB block is freed, glibc puts the next 1 MiB block in the main heap (where it
    fragments what follows it), unless few_heaps fixed the threshold: then it is mapped whole."""
    seen = {}
    for mode in ("sliding", "fixed"):
        done = subprocess.run([sys.executable, "-c", MAPPED, mode], capture_output=True, text=True, timeout=60,
                              cwd=os.getcwd())
        assert done.returncode == 0, done.stderr[-2000:]
        seen[mode] = done.stdout.strip()
    assert seen == {"sliding": "heap", "fixed": "mapped"}, seen
