"""A long-running poller's freed memory given back to the system between polls.

Rule: a poll of a large fleet decodes tens of megabytes of JSON and rows, in the loop's thread and
in worker threads, and frees them when it ends; glibc keeps the freed pages in its heaps (one per
thread that allocated), so a `watch` or `sync` left running sat at its busiest poll's size for ever
(bench `watch_rss_hour`: 250 MB resident on 10,000 pods, 155 MB once given back). `malloc_trim(0)`
after each poll returns them; it costs milliseconds. Where the C library is not glibc, nothing.
A full collection goes first: a poll's cyclic garbage (replies, futures, tracebacks) would
otherwise wait for a rare full collection, holding its pages through many polls.

Rule: a long-running poller also sets glibc's heaps once, before its threads start
(`few_heaps`): two arenas, not one per thread that ever allocated (each keeps its own free
pages), and a fixed mmap threshold of 256 KiB, so a reply's body or a list of 10,000 rows is
mapped and unmapped whole (glibc's sliding threshold otherwise rises to the largest block freed,
and such blocks then land in, and fragment, the heap). Together they took `watch_rss_hour`'s
process from ~132 MB to ~124 MB after 40 polls of 10,000 pods.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc

_trim = None
M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8  # glibc's malloc.h
MMAP_THRESHOLD = 256 * 1024
ARENAS = 2


def _libc():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None


def few_heaps() -> None:
    """Two malloc arenas and a fixed mmap threshold (see above); a no-op without glibc's mallopt.
    Call it once, before the process starts its threads."""
    lib = _libc()
    mallopt = getattr(lib, "mallopt", None) if lib is not None else None
    if mallopt is not None and getattr(lib, "malloc_trim", None) is not None:  # glibc, not musl
        mallopt(M_ARENA_MAX, ARENAS)
        mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


def give_back() -> None:
    """Return the heaps' free pages to the system (glibc's malloc_trim); a no-op elsewhere."""
    global _trim
    gc.collect()
    if _trim is None:
        _trim = getattr(_libc(), "malloc_trim", None) or False
    if _trim:
        _trim(0)
