"""The following rule: a wave, while active, takes in later losses with its signature (waves.py says why)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from sagan_tui.triage import gaps as G
from sagan_tui.triage.timeline import Timeline

if TYPE_CHECKING:
    from sagan_tui.models import Loss
    from sagan_tui.triage.diagnosis import TriageContext
    from sagan_tui.triage.waves import Wave


@dataclass(frozen=True)
class Signature:
    """What a loss must share with a wave's founding run to join it."""

    kill_s: float | None = None  # the founding run's median RUNNING-to-lost, when its gaps cluster
    kill_tol_s: float = 0.0
    host: str | None = None  # the one machine every founding loss ran on, when known
    account: str | None = None  # the account, when the founding run is an account stop

    def matches(self, loss: Loss) -> bool:
        if self.kill_s is not None and (r := loss.running_at) is not None:
            # inline gap_of: this runs for every loss inside an active wave's window
            if abs((loss.lost_at - r).total_seconds() - self.kill_s) <= self.kill_tol_s:
                return True
        if self.host is not None and loss.host == self.host:
            return True
        return self.account is not None and loss.account == self.account

    def matches_run(self, losses: Sequence[Loss]) -> bool:
        """A later run that founds a wave of its own joins whole when it shares the signature:
        its kill time within tolerance, its one machine, or its one account."""
        if self.kill_s is not None:
            core = _core_gaps(losses)
            if core and abs(_median_sorted(core) - self.kill_s) <= self.kill_tol_s:
                return True
        if self.host is not None and all(x.host == self.host for x in losses):
            return True
        return self.account is not None and all(x.account == self.account for x in losses)


def _core_gaps(losses: Sequence[Loss]) -> list[float]:
    """The run's RUNNING-to-lost gaps, sorted, long-running bystanders left out (gaps.py's rule)."""
    gaps = sorted(g for x in losses if (r := x.running_at) is not None
                  and (g := (x.lost_at - r).total_seconds()) >= 0)
    n = len(gaps)
    if n < G.LONG_MIN_N:
        return gaps
    med = _median_sorted(gaps)
    mad = _median_sorted(sorted(abs(g - med) for g in gaps))
    return [g for g in gaps if not (g > G.LONG_FACTOR * med and g - med > G.LONG_MADS * mad)]


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


def signature(founding: Wave) -> Signature:
    """The founding run's signature: its kill time when its gaps cluster (the tolerance is its
    spread, at least the tight limit of gaps.py), its machine when all ran on one, its account
    when the verdict (weighed only then: it is the costly part) is an account stop."""
    losses = founding.losses
    core = _core_gaps(losses)
    kill = tol = None
    if len(core) >= G.TIGHT_MIN_N:
        q = _quartiles_sorted(core)
        limit = G.tight_limit(q[1], G.resolution(losses))
        if q[2] - q[0] <= limit:
            kill, tol = q[1], max(q[2] - q[0], limit)
    hosts = {x.host for x in losses}
    host = next(iter(hosts)) if len(hosts) == 1 and None not in hosts else None
    account = None
    if kill is None and host is None and len({x.account for x in losses}) == 1:
        if founding.verdict.cause == "account-stop":
            account = losses[0].account
    return Signature(kill, tol or 0.0, host, account)


@dataclass
class _Growing:
    """A wave being built: its founding run, the positions it holds, how far its guard reaches."""

    positions: list[int]
    horizon: float  # POSIX seconds: the last loss's time + the guard window
    founding: Wave
    followed: bool = False
    _sig: Signature | None = None

    @property
    def sig(self) -> Signature:
        # Weighed only when a later loss comes within the window: most runs never need it.
        if self._sig is None:
            self._sig = signature(self.founding)
        return self._sig


def follow(tl: Timeline, spans: Sequence[tuple[int, int]], gap: float, guard_s: float,
           context: TriageContext | None) -> list[Wave]:
    """Waves founded by `spans` (runs of the chaining gap, in order) and followed through the
    guard window: a run within an active wave's window that shares its signature joins whole,
    a loss outside every run joins the first active wave whose signature it shares."""
    from sagan_tui.triage.waves import Wave

    st = tl.sorted_times
    n = len(st)
    built: list[_Growing] = []
    live: list[_Growing] = []

    def loss_at(p: int) -> Loss:
        return tl.losses[tl.order[p]]

    def absorb(lo: int, hi: int) -> None:
        # Positions lo..hi-1 lie outside every run: each may join the first live wave it matches.
        for p in range(lo, hi):
            t = st[p]
            reach = [w for w in live if t <= w.horizon]
            if not reach:
                return  # horizons grow only by joining, so no later loss reaches either
            x = loss_at(p)
            for w in reach:
                if w.sig.matches(x):
                    w.positions.append(p)
                    w.horizon = t + guard_s
                    w.followed = True
                    break

    prev = 0
    for a, b in spans:
        if live:
            absorb(prev, a)
            live = [w for w in live if st[a] <= w.horizon]
        run = Wave(tl, a, b, context, gap=gap)
        host = next((w for w in live if w.sig.matches_run(run.losses)), None)
        if host is not None:
            host.positions.extend(range(a, b))
            host.horizon = st[b - 1] + guard_s
            host.followed = True
        else:
            g = _Growing(list(range(a, b)), st[b - 1] + guard_s, run)
            built.append(g)
            live.append(g)
        prev = b
    if live:
        absorb(prev, n)
    return [g.founding if not g.followed else
            Wave(tl, g.positions[0], g.positions[-1] + 1, context, members=tuple(g.positions), gap=gap)
            for g in built]
