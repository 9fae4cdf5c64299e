"""The following rule: a wave, while active, takes in later losses with its signature (waves.py says why)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable, NamedTuple, Sequence

from sagan_tui.core.triage import gaps as G
from sagan_tui.core.triage.timeline import Timeline
from sagan_tui.core.triage.verdict import verdict_of
from sagan_tui.core.triage.wave import Wave

if TYPE_CHECKING:
    from sagan_tui.core.models import Loss
    from sagan_tui.core.triage.diagnosis import TriageContext


NAN = float("nan")
_KNOWN = (0.0).__le__  # a known gap: 0 <= g (NaN, an unknown one, compares false)
_SIGNATURE = tuple.__new__  # a Signature made without its Python-level __new__ (fields in order)


class Signature(NamedTuple):
    """What a loss must share with a wave's founding run to join it (a tuple: one is made for
    every wave a later loss comes near, ~10^5 of them in a million scattered losses)."""

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
    known = sorted(gaps)
    # The common run has every gap known and none negative: sorted as it is. Otherwise the
    # unknown (NaN: it compares false) and negative ones drop out.
    if not known or not known[0] >= 0.0 or (total := sum(known)) != total:
        known = sorted(filter(_KNOWN, known))
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


def signature(tl: Timeline, a: int, b: int, core: Sequence[float], founding: Callable[[], Wave]) -> Signature:
    """The signature of the run [a, b) of `tl`'s sorted order: its kill time when its gaps
    cluster (the tolerance is its spread, at least the tight limit of gaps.py); else its machine
    when all ran on one known host; else its account when the verdict (weighed only then: it is
    the costly part) is an account stop. `core`: the run's gaps as `_core` leaves them;
    `founding`: the run as a Wave, made when a machine, an account or a poll's timing is read."""
    last = len(core) - 1
    if last >= G.TIGHT_MIN_N - 1:
        # The quartiles (inclusive method: statistics.quantiles' numbers), written out: each lies
        # between core[i] and core[i + 1], i = int(q * last) < last.
        p1, p2, p3 = 0.25 * last, 0.5 * last, 0.75 * last
        i1, i2, i3 = int(p1), int(p2), int(p3)
        q1 = core[i1] + (core[i1 + 1] - core[i1]) * (p1 - i1)
        q2 = core[i2] + (core[i2 + 1] - core[i2]) * (p2 - i2)
        q3 = core[i3] + (core[i3 + 1] - core[i3]) * (p3 - i3)
        limit = G.tight_limit(q2, G.resolution(founding().losses)) if _timed_by_polls(tl, a, b) else G.tight_limit(q2)
        if q3 - q1 <= limit:
            # Its tolerance, max(q3 - q1, limit), is the limit; made without the NamedTuple's
            # Python-level __new__ (a run a later loss comes near is weighed: ~10^5 of them).
            return _SIGNATURE(Signature, (q2, limit, None, None))
    losses = founding().losses
    hosts = {x.host for x in losses}
    if len(hosts) == 1 and None not in hosts:
        return Signature(host=next(iter(hosts)))
    if len({x.account for x in losses}) == 1 and verdict_of(founding()).cause == "account-stop":
        return Signature(account=losses[0].account)
    return Signature()


def _timed_by_polls(tl: Timeline, a: int, b: int) -> bool:
    # resolution() reads last_seen_at of every loss; a run without any is timed exactly. Read
    # from the column (input order, so memory order), once: a run's own losses, read where they
    # lie, cost a cache miss each, and a million scattered losses make ~10^5 runs to weigh.
    if not tl.any_polled():
        return False
    seen = tl.column("last_seen_at")
    return any(seen[i] is not None for i in tl.order[a:b])


class _Growing:
    """A wave being built (the `index`-th found): its founding run [a, b) of sorted positions,
    the later positions it took in, how far its guard reaches, and its signature once a later
    loss asks for it."""

    __slots__ = ("index", "tl", "a", "b", "horizon", "later", "core", "_sig", "_founding", "context", "gap")

    def __init__(self, index: int, tl: Timeline, a: int, b: int, horizon: float, core: list[float] | None,
                 context: TriageContext | None, gap: float):
        self.index, self.tl, self.a, self.b, self.horizon, self.core = index, tl, a, b, horizon, core
        self.later: list[int] = []  # positions past the founding run, ascending
        self._sig: Signature | None = None
        self._founding: Wave | None = None
        self.context, self.gap = context, gap

    def weigh(self) -> Signature:
        """Its signature, weighed when a later loss first comes within its window (most runs
        never need it); read as `w._sig or w.weigh()` where every loss asks."""
        if self._sig is None:
            core = self.core
            if core is None:
                core = self.core = _core(self.tl.sorted_gaps()[self.a:self.b])
            self._sig = signature(self.tl, self.a, self.b, core, self.founding)
        return self._sig

    def founding(self) -> Wave:
        if self._founding is None:
            self._founding = Wave._new(self.tl, self.a, self.b, self.context, None, self.gap)
        return self._founding

    def wave(self) -> Wave:
        if not self.later:
            return self.founding()
        return Wave._new(self.tl, self.a, self.later[-1] + 1, self.context, (*range(self.a, self.b), *self.later),
                         self.gap)


def follow(tl: Timeline, spans: Sequence[tuple[int, int]], gap: float, guard_s: float,
           context: TriageContext | None) -> list[Wave]:
    """Waves founded by `spans` (runs of the chaining gap, in order) and followed through the
    guard window: a run within an active wave's window that shares its signature joins whole,
    a loss outside every run joins the first active wave whose signature it shares.

    A million scattered losses make ~10^5 runs and put most losses in some wave's window, so the
    work per run and per loss is kept to floats at hand: a run's Wave is made only when it founds
    one, its core gaps only when weighed, and a Loss is read only for a machine or account
    signature.
    """
    st = tl.sorted_times
    n = len(st)
    gaps = tl.sorted_gaps()
    built: list = []  # a _Growing while its wave may still grow, then its Wave
    live: list[_Growing] = []

    def absorb(lo: int, hi: int) -> None:
        # Positions lo..hi-1 lie outside every run: each may join the first live wave it matches.
        # Horizons grow only by joining, so once no live wave reaches a loss, none reaches a later one.
        if lo >= hi:
            return
        if len(live) == 1:
            w = live[0]
            horizon = w.horizon
            if st[lo] > horizon:
                return
            s = w._sig or w.weigh()
            if s.kill_s is not None:  # the common case: one active wave, a kill time, floats at hand
                k, tol, took = s.kill_s, s.kill_tol_s, w.later.append
                for p in range(lo, hi):
                    t = st[p]
                    if t > horizon:
                        break
                    if abs(gaps[p] - k) <= tol:
                        took(p)
                        horizon = t + guard_s
                w.horizon = horizon
                return
        losses, order = tl.losses, tl.order
        for p in range(lo, hi):
            t = st[p]
            reached = False
            for w in live:
                if t > w.horizon:
                    continue
                reached = True
                s = w._sig or w.weigh()
                k = s.kill_s
                if abs(gaps[p] - k) <= s.kill_tol_s if k is not None else s.matches_loss(losses[order[p]]):
                    w.later.append(p)
                    w.horizon = t + guard_s
                    break
            if not reached:
                return

    # A wave leaves `live` for good once a run starts past its guard, and is made then: its
    # builder and lists die young, where the collector never walks them again (kept to the end,
    # ~10^5 of them pushed the collector into a full collection of every loss).
    prev = 0
    for a, b in spans:
        core = None
        if live:
            absorb(prev, a)
            first = st[a]
            if len(live) == 1:
                if first > live[0].horizon:
                    built[live[0].index] = live[0].wave()
                    live = []
            else:
                kept = []
                for w in live:
                    if first <= w.horizon:
                        kept.append(w)
                    else:
                        built[w.index] = w.wave()
                live = kept
            if live:
                core = _core(gaps[a:b])
                median = _median_sorted(core) if core else NAN
                host = None
                for w in live:
                    s = w._sig or w.weigh()
                    k = s.kill_s
                    if (abs(median - k) <= s.kill_tol_s if k is not None  # the common case, inline
                            else s.matches_run(median, lambda: tl.sorted_losses(a, b))):
                        host = w
                        break
                if host is not None:
                    host.later.extend(range(a, b))
                    host.horizon = st[b - 1] + guard_s
                    prev = b
                    continue
        g = _Growing(len(built), tl, a, b, st[b - 1] + guard_s, core, context, gap)
        built.append(g)
        live.append(g)
        prev = b
    absorb(prev, n)
    for w in live:
        built[w.index] = w.wave()
    return built
