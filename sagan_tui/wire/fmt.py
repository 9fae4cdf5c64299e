"""The one formatting module (pure): times, durations, ages, money and id lists, for the screen, findings and reports."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable

# Evidence and statements list at most this many ids: a 3 a.m. reader wants the first few
# and a count, not a wall of ids (a benchmark wave can hold a million losses).
MAX_LISTED = 8


def utc(dt: datetime) -> datetime:
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt.astimezone(timezone.utc)


def hms(dt: datetime | None) -> str:
    """`10:53:54`, `—` for no time."""
    return "—" if dt is None else utc(dt).strftime("%H:%M:%S")


def hm(dt: datetime | None) -> str:
    """`10:53`, `—` for no time."""
    return "—" if dt is None else utc(dt).strftime("%H:%M")


def day(dt: datetime) -> str:
    return utc(dt).strftime("%Y-%m-%d")


def stamp(dt: datetime | None) -> str:
    """`2026-05-14 10:53:54 UTC`: a time with its date, where a day is not obvious (a detail view)."""
    return "—" if dt is None else f"{day(dt)} {hms(dt)} UTC"


def when(dt: datetime, now: datetime) -> str:
    """`10:53:54` today, `05-14 10:53` on another day: a timeline spans days."""
    t = utc(dt)
    return t.strftime("%H:%M:%S") if t.date() == utc(now).date() else t.strftime("%m-%d %H:%M")


def window(start: datetime, end: datetime, seconds: bool = False) -> str:
    """`10:53-10:55 UTC`, with the date(s) only when the window is not within one day; one
    time when both ends read the same (`10:53:54 UTC`, never `10:53:54-10:53:54`)."""
    f = hms if seconds else hm
    if day(start) != day(end):
        return f"{day(start)} {f(start)} to {day(end)} {f(end)} UTC"
    if f(start) == f(end):
        return f"{f(start)} UTC"
    return f"{f(start)}-{f(end)} UTC"


def since(then: datetime | None, now: datetime) -> float | None:
    """Seconds from `then` to `now`, None for no time."""
    return None if then is None else (utc(now) - utc(then)).total_seconds()


def coarse(seconds: float | None) -> str:
    """`<1m`, `45m`, `3h`, `5d`: minutes in the first hour, then whole hours, then days.

    Every visible row's age is redrawn when its text changes, and each redrawn row is a few
    hundred bytes to an SSH terminal: an age in hours changes once an hour, not once a minute.
    """
    if seconds is None:
        return "—"
    m = int(max(seconds, 0) // 60)
    if m < 1:
        return "<1m"
    if m < 60:
        return f"{m}m"
    h = m // 60
    return f"{h}h" if h < 48 else f"{h // 24}d"


def coarse_left(seconds: float | None) -> float:
    """Seconds until `coarse(seconds)` reads differently (never, for no duration)."""
    if seconds is None:
        return math.inf
    s = max(seconds, 0.0)
    step = 60 if s < 3600 else (3600 if s < 48 * 3600 else 86400)
    return step - s % step


def seen_text(seconds: float | None) -> str:
    """How long ago a live pod was last listed: `now` within the minute."""
    return "now" if seconds is not None and seconds < 60 else coarse(seconds)


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


def usd(amount: float | None, per_hour: bool = False) -> str:
    """`$1,234.50`, `$1.49/h`; `—` for no amount."""
    if amount is None:
        return "—"
    return f"${amount:,.2f}" + ("/h" if per_hour else "")


def plural(n: int, word: str, many: str | None = None) -> str:
    """`1 pod`, `2 pods`, `0 losses` (`many` for a plural that is not word + s)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def exp(number: int | None) -> str:
    return "#?" if number is None else f"#{number}"


def listed(items: Iterable[str], limit: int = MAX_LISTED) -> str:
    """`a, b, c` or `a, b, c, +12 more`."""
    items = list(items)
    head = ", ".join(items[:limit])
    return head if len(items) <= limit else f"{head}, +{len(items) - limit} more"


def capped(items: Iterable, limit: int = MAX_LISTED, show: Callable[[Any], str] | None = None) -> tuple[str, ...]:
    """Evidence lines, the rest summarised in one last line. With `show`, `items` are records and
    only the lines kept are formatted (a wave of 10^5 losses keeps 8)."""
    items = list(items)
    head = items[:limit] if show is None else [show(x) for x in items[:limit]]
    if len(items) <= limit:
        return tuple(head)
    return (*head, f"... and {len(items) - limit} more")
