"""Balance runway per RunPod account (balance / spend per hour), its text, and the once-per-crossing warning.

RunPod stops every pod of an account whose balance reaches $0: "$35.00 at $1.49/h" means the
account's pods die in about 23 hours. Pure: the status line, the account view and the notices
read the same Runway; an account whose balance cannot be read says why instead of a number.
"""

from __future__ import annotations

from collections import deque
from datetime import datetime
from typing import Iterable, Mapping, NamedTuple, Sequence

from sagan_tui.wire.basics import HealthState, SourceHealth

DEFAULT_WARN_HOURS = 12.0
OK, LOW, OUT, IDLE, UNKNOWN = "ok", "low", "out", "idle", "unknown"


class Runway(NamedTuple):  # not a dataclass: the first frame imports this (no exec'd methods)
    account: str
    state: str  # ok, low (under the threshold), out (balance at $0), idle (no spend), unknown
    hours: float | None  # balance / spend per hour; None when idle or unknown
    text: str  # "23 h left", "LOW 5 h left", "OUT: $0", "no spend", "balance n/a (REST v2 has no balance)"
    short: str  # the same in a few cells, for 80 columns: "23h", "LOW 5h", "OUT", "idle", "n/a"

    @property
    def under(self) -> bool:
        return self.state in (LOW, OUT)


def left(hours: float) -> str:
    """`45 min`, `5 h`, `23 h`, `3.2 d`: how long a balance lasts, to the precision that matters."""
    if hours < 1:
        return f"{max(1, round(hours * 60))} min"
    if hours < 48:
        return f"{hours:.0f} h" if hours >= 10 else f"{hours:.1f} h".replace(".0 h", " h")
    return f"{hours / 24:.1f} d".replace(".0 d", " d")


def _why_unreadable(h: SourceHealth) -> tuple[str, str]:
    if h.state == HealthState.ERROR:
        kind = h.error_kind.value if h.error_kind else "error"
        return f"balance n/a (poll failing: {kind})", "n/a"
    note = getattr(h, "balance_note", None)  # the source's own reason, e.g. "n/a (GraphQL retired)"
    if note:
        return f"balance {' '.join(str(note).split())[:60]}", "n/a"
    if h.transport == "rest-v2":
        return "balance n/a (REST v2's balance route gave none)", "n/a"
    if h.message:
        return f"balance n/a ({' '.join(str(h.message).split())[:60]})", "n/a"
    return "balance n/a (not in RunPod's reply)", "n/a"


def runway(h: SourceHealth, warn_hours: float = DEFAULT_WARN_HOURS) -> Runway | None:
    """The runway of one account (None for Sagan, a disabled account, or one never polled)."""
    if h.source == "sagan" or h.state == HealthState.DISABLED:
        return None
    if h.balance is None:
        if h.state == HealthState.UNKNOWN and h.last_success is None:
            return None  # not polled yet: the status line already says so
        text, short = _why_unreadable(h)
        return Runway(h.source, UNKNOWN, None, text, short)
    if getattr(h, "billing_mode", None) == "POSTPAID":
        # Invoiced: the balance is no runway, and reaching $0 stops nothing.
        return Runway(h.source, IDLE, None, "POSTPAID: invoiced, no runway", "postpaid")
    if h.balance <= 0 or h.under_balance:
        return Runway(h.source, OUT, 0.0, "OUT: $0, RunPod stops its pods", "OUT")
    spend = h.spend_per_hr or 0.0
    if spend <= 0:
        return Runway(h.source, IDLE, None, "no spend", "idle")
    hours = h.balance / spend
    if warn_hours > 0 and hours < warn_hours:
        return Runway(h.source, LOW, hours, f"LOW {left(hours)} left", f"LOW {left(hours).replace(' ', '')}")
    return Runway(h.source, OK, hours, f"{left(hours)} left", left(hours).replace(" ", ""))


HISTORY_POINTS = 240  # balance samples kept per account: 20 min of 5 s polls, or hours of slower ones


class RunwayWatch:
    """Warns once when an account's runway falls under the threshold (from over it: one already under
    at the first reading is shown by the status line, not announced), again only after it rose back over;
    keeps each account's balance as seen by the polls since the panel started, for the account view."""

    def __init__(self) -> None:
        self.under: set[str] = set()
        self.seen: set[str] = set()  # accounts read once: the first reading arms, it does not fire
        self.history: dict[str, deque[tuple[datetime, float]]] = {}

    def check(self, health: Mapping[str, SourceHealth] | Iterable[SourceHealth],
              warn_hours: float = DEFAULT_WARN_HOURS) -> list[str]:
        """The notices (one line each) for accounts that just crossed under; an unreadable balance
        neither fires nor re-arms. The panel shows them as "Runway short" and rings."""
        hs = health.values() if isinstance(health, Mapping) else health
        out: list[str] = []
        for h in hs:
            if h.balance is not None and h.last_success is not None:
                seen = self.history.setdefault(h.source, deque(maxlen=HISTORY_POINTS))
                if not seen or seen[-1][0] != h.last_success:
                    seen.append((h.last_success, h.balance))
            r = runway(h, warn_hours)
            if r is None or r.state == UNKNOWN or warn_hours <= 0:
                continue
            first = r.account not in self.seen
            self.seen.add(r.account)
            if r.under and r.account not in self.under:
                self.under.add(r.account)
                if not first:  # an account already low at start is in the status line, not news
                    out.append(notice_text(h, r, warn_hours))
            elif not r.under:
                self.under.discard(r.account)
        return out


def notice_text(h: SourceHealth, r: Runway, warn_hours: float) -> str:
    if r.state == OUT:
        return f"{r.account}: balance at $0: RunPod stops every pod of the account"
    return (f"{r.account}: ${h.balance:,.2f} at ${h.spend_per_hr:,.2f}/h lasts {left(r.hours or 0)}"
            f" (under {warn_hours:g} h); RunPod stops every pod of the account at $0")


BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], width: int) -> str:
    """The last `width` values as bars, lowest to highest of those shown; flat values are a flat line."""
    shown = list(values)[-width:] if width > 0 else []
    if not shown:
        return ""
    lo, hi = min(shown), max(shown)
    if hi - lo < 1e-9:
        return BARS[3] * len(shown)
    return "".join(BARS[min(len(BARS) - 1, int((v - lo) / (hi - lo) * len(BARS)))] for v in shown)


def resample(points: Sequence[tuple[datetime, float]], start: datetime, end: datetime, n: int) -> list[float]:
    """A balance known at moments (each holds until the next) read at `n` even steps over [start, end]:
    the history the cache keeps only when the balance moved, as a line over time."""
    pts = sorted(p for p in points if p[1] is not None)
    if not pts or n <= 0 or end <= start:
        return [b for _t, b in pts][-n:] if n > 0 else []
    out, i, held = [], 0, None
    step = (end - start) / n
    for k in range(1, n + 1):
        t = start + step * k
        while i < len(pts) and pts[i][0] <= t:
            held = pts[i][1]
            i += 1
        if held is not None:
            out.append(held)
    return out
