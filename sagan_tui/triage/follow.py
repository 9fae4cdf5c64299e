"""The following rule: a wave, while active, takes in later losses with its signature (waves.py says why)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from sagan_tui.triage import gaps as G
from sagan_tui.triage.timeline import Timeline

if TYPE_CHECKING:
    from sagan_tui.models import Loss
    from sagan_tui.triage.diagnosis import TriageContext
    from sagan_tui.triage.waves import Wave


NAN = float("nan")


@dataclass(frozen=True)
class Signature:
    """What a loss must share with a wave's founding run to join it."""

    kill_s: float | None = None  # the founding run's median RUNNING-to-lost, when its gaps cluster
    kill_tol_s: float = 0.0
    host: str | None = None  # the one machine every founding loss ran on (run times that do not cluster)
    account: str | None = None  # the account, when the founding run is an account stop

    def matches_loss(self, loss: Loss) -> bool:
        """A machine or account signature against one loss (a kill-time one is compared on the
        gap alone, in `follow`)."""
        if self.host is not None:
            return loss.host == self.host
        return self.account is not None and loss.account == self.account

    def matches_run(self, median: float, losses: Callable[[], Sequence[Loss]]) -> bool:
        """A later run that founds a wave of its own joins whole when it shares the signature:
        the median of its core gaps (NaN when none is known) within tolerance, its one machine,
        or its one account."""
        if self.kill_s is not None:
            return abs(median - self.kill_s) <= self.kill_tol_s  # NaN compares false
        if self.host is not None:
            return all(x.host == self.host for x in losses())
        return self.account is not None and all(x.account == self.account for x in losses())


def _core(gaps: Iterable[float]) -> list[float]:
    """Known gaps, sorted, long-running bystanders left out (gaps.py's rule)."""
    known = [g for g in gaps if g >= 0]  # NaN compares false: unknown gaps drop out
    known.sort()
    if len(known) < G.LONG_MIN_N:
        return known
    med = _median_sorted(known)
    if known[-1] <= G.LONG_FACTOR * med:
        return known  # the common case: nothing long-running, no deviations to weigh
    mad = _median_sorted(sorted(abs(g - med) for g in known))
    return [g for g in known if not (g > G.LONG_FACTOR * med and g - med > G.LONG_MADS * mad)]


def _median_sorted(values: Sequence[float]) -> float:
    n = len(values)
    h = n // 2
    return values[h] if n % 2 else (values[h - 1] + values[h]) / 2


def _quartiles_sorted(v: Sequence[float]) -> tuple[float, float, float]:
    """(p25, median, p75) of sorted values, inclusive method: statistics.quantiles' numbers, cheaper."""
    def at(q: float) -> float:
        pos = q * (len(v) - 1)
        i = int(pos)
        return v[i] if i + 1 >= len(v) else v[i] + (v[i + 1] - v[i]) * (pos - i)
    return at(0.25), at(0.5), at(0.75)


def signature(founding: Wave, core: Sequence[float]) -> Signature:
    """The founding run's signature: its kill time when its gaps cluster (the tolerance is its
    spread, at least the tight limit of gaps.py); else its machine when all ran on one known
    host; else its account when the verdict (weighed only then: it is the costly part) is an
    account stop. `core`: the founding run's gaps as `_core` leaves them."""
    if len(core) >= G.TIGHT_MIN_N:
        q = _quartiles_sorted(core)
        limit = G.tight_limit(q[1], G.resolution(founding.losses) if _timed_by_polls(founding) else 0.0)
        if q[2] - q[0] <= limit:
            return Signature(q[1], max(q[2] - q[0], limit))
    losses = founding.losses
    hosts = {x.host for x in losses}
    if len(hosts) == 1 and None not in hosts:
        return Signature(host=next(iter(hosts)))
    if len({x.account for x in losses}) == 1 and founding.verdict.cause == "account-stop":
        return Signature(account=losses[0].account)
    return Signature()


def _timed_by_polls(founding: Wave) -> bool:
    # resolution() reads last_seen_at of every loss; a run without any is timed exactly. Read
    # from the column (input order, so memory order) rather than by building the run's losses.
    tl = founding.timeline
    if not tl.any_polled():
        return False
    seen = tl.column("last_seen_at")
    return any(seen[i] is not None for i in tl.order[founding.first:founding.stop])


@dataclass
class _Growing:
    """A wave being built: its founding run, the positions it holds, how far its guard reaches."""

    positions: list[int]
    horizon: float  # POSIX seconds: the last loss's time + the guard window
    founding: Wave
    core: list[float]  # the founding run's gaps, as _core leaves them
    followed: bool = False
    _sig: Signature | None = None

    @property
    def sig(self) -> Signature:
        # Weighed only when a later loss comes within the window: most runs never need it.
        if self._sig is None:
            self._sig = signature(self.founding, self.core)
        return self._sig


def follow(tl: Timeline, spans: Sequence[tuple[int, int]], gap: float, guard_s: float,
           context: TriageContext | None) -> list[Wave]:
    """Waves founded by `spans` (runs of the chaining gap, in order) and followed through the
    guard window: a run within an active wave's window that shares its signature joins whole,
    a loss outside every run joins the first active wave whose signature it shares.

    The loops below run once per loss near a wave (most of a million scattered losses are), so
    they compare floats at hand and read a Loss only for a machine or account signature.
    """
    from sagan_tui.triage.waves import Wave

    st = tl.sorted_times
    n = len(st)
    gaps = tl.sorted_gaps()
    losses, order = tl.losses, tl.order
    built: list[_Growing] = []
    live: list[_Growing] = []

    def absorb(lo: int, hi: int) -> None:
        # Positions lo..hi-1 lie outside every run: each may join the first live wave it matches.
        for p in range(lo, hi):
            t = st[p]
            reached = False  # horizons grow only by joining, so once none reaches, none will
            for w in live:
                if t > w.horizon:
                    continue
                reached = True
                s = w.sig
                k = s.kill_s
                if abs(gaps[p] - k) <= s.kill_tol_s if k is not None else s.matches_loss(losses[order[p]]):
                    w.positions.append(p)
                    w.horizon = t + guard_s
                    w.followed = True
                    break
            if not reached:
                return

    prev = 0
    for a, b in spans:
        if live:
            absorb(prev, a)
            live = [w for w in live if st[a] <= w.horizon]
        run = Wave(tl, a, b, context, gap=gap)
        core = _core(gaps[a:b])
        host = None
        if live:
            median = _median_sorted(core) if core else NAN
            host = next((w for w in live if w.sig.matches_run(median, lambda: run.losses)), None)
        if host is not None:
            host.positions.extend(range(a, b))
            host.horizon = st[b - 1] + guard_s
            host.followed = True
        else:
            g = _Growing(list(range(a, b)), st[b - 1] + guard_s, run, core)
            built.append(g)
            live.append(g)
        prev = b
    if live:
        absorb(prev, n)
    return [g.founding if not g.followed else
            Wave(tl, g.positions[0], g.positions[-1] + 1, context, members=tuple(g.positions), gap=gap)
            for g in built]
