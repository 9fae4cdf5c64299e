"""core/heap.py: a long-running poller gives its freed heap back between polls where the C library
is glibc, and does nothing (never fails) where it is not."""

from __future__ import annotations

import ctypes

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
