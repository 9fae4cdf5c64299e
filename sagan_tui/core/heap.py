"""A long-running poller's freed memory given back to the system between polls.

Rule: a poll of a large fleet decodes tens of megabytes of JSON and rows, in the loop's thread and
in worker threads, and frees them when it ends; glibc keeps the freed pages in its heaps (one per
thread that allocated), so a `watch` or `sync` left running sat at its busiest poll's size for ever
(bench `watch_rss_hour`: 250 MB resident on 10,000 pods, 155 MB once given back). `malloc_trim(0)`
after each poll returns them; it costs milliseconds. Where the C library is not glibc, nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util

_trim = None


def give_back() -> None:
    """Return the heaps' free pages to the system (glibc's malloc_trim); a no-op elsewhere."""
    global _trim
    if _trim is None:
        try:
            _trim = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):
            _trim = False
    if _trim:
        _trim(0)
