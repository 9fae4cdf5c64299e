"""Short text forms of times, durations, money and pod lists, shared by findings and reports."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Iterable

# Evidence and statements list at most this many ids: a 3 a.m. reader wants the first few
# and a count, not a wall of ids (a benchmark wave can hold a million losses).
MAX_LISTED = 8


def utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def hms(dt: datetime | None) -> str:
    return "—" if dt is None else utc(dt).strftime("%H:%M:%S")


def hm(dt: datetime) -> str:
    return utc(dt).strftime("%H:%M")


def day(dt: datetime) -> str:
    return utc(dt).strftime("%Y-%m-%d")


def window(start: datetime, end: datetime, seconds: bool = False) -> str:
    """`10:53-10:55 UTC`, with the date(s) only when the window is not within one day."""
    f = hms if seconds else hm
    if day(start) != day(end):
        return f"{day(start)} {f(start)} to {day(end)} {f(end)} UTC"
    return f"{f(start)}-{f(end)} UTC"


def audit_window(start: datetime, end: datetime) -> str:
    """Whole minutes around a wave, a minute early: the true moment of a loss precedes its poll."""
    a = utc(start) - timedelta(seconds=60)
    b = utc(end)
    b = b if (b.second, b.microsecond) == (0, 0) else b + timedelta(seconds=60 - b.second, microseconds=-b.microsecond)
    return window(a.replace(second=0, microsecond=0), b)


def duration(seconds: float) -> str:
    """`61 s`, `10 min 1 s`, `2 h 5 min`: what the owner reads aloud."""
    s = int(round(seconds))
    if s < 120:
        return f"{s} s"
    if s < 3600:
        m, r = divmod(s, 60)
        return f"{m} min {r} s" if r and m < 10 else f"{m} min"
    h, r = divmod(s // 60, 60)
    return f"{h} h {r} min" if r else f"{h} h"


def usd(amount: float) -> str:
    return f"${amount:,.2f}"


def exp(number: int | None) -> str:
    return "#?" if number is None else f"#{number}"


def listed(items: Iterable[str], limit: int = MAX_LISTED) -> str:
    """`a, b, c` or `a, b, c, +12 more`."""
    items = list(items)
    head = ", ".join(items[:limit])
    return head if len(items) <= limit else f"{head}, +{len(items) - limit} more"


def capped(items: Iterable[str], limit: int = MAX_LISTED) -> tuple[str, ...]:
    """Evidence lines, the rest summarised in one last line."""
    items = list(items)
    if len(items) <= limit:
        return tuple(items)
    return (*items[:limit], f"... and {len(items) - limit} more")
