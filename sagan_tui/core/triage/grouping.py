"""Grouping by cause: a wave's losses split into sub-waves that share a signature, the rest named unrelated.

Closeness in time (the chaining gap of waves.py) makes candidates, not a cause: a reaper and a
balance stop 40 s apart, or a dead machine and a stray loss elsewhere, chain into one run. So
inside each wave the losses are grouped by what they share, the largest group first (ties in
this order):

- `actor`: the audit log names one user or API key that stopped or terminated them;
- `account-stop`: one PREPAID account whose balance read at or under zero around the wave
  (evidence.py's reading; POSTPAID is invoiced and stops nothing);
- `host`: one known machine, at least 2 losses;
- `kill-time`: RUNNING-to-lost gaps inside one window of twice gaps.py's tight limit (plus the
  polls' timing) above the least of them, at least TIGHT_MIN_N losses.

A wave has one kill-time group at most, and what no group claims goes with it: a reaper's
kill time spreads (a sweep every minute kills pods 46 to 108 s old), and it takes old pods too
(DOMAIN.md's lqpfpmbytlgded), so a gap alone never proves a loss foreign. Without one, a loss
whose gap is unknown goes with the largest group (unknown is no evidence against); any other is
*unrelated*: kept beside the largest group, named by its verdict, never weighed. A wave whose
largest group holds every loss, or that no group fits at all (three losses that share nothing),
stays whole, and its verdict says what it lacks. A group of one makes no wave.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from sagan_tui.wire import fmt
from sagan_tui.core.triage import gaps as G
from sagan_tui.core.triage.evidence import balance_reading

if TYPE_CHECKING:
    from sagan_tui.core.models import Loss
    from sagan_tui.core.triage.wave import Wave
    from sagan_tui.core.triage.diagnosis import TriageContext

KINDS = ("actor", "account-stop", "host", "kill-time")  # the tie order: decisive evidence first


@dataclass(frozen=True)
class Group:
    """Losses (indexes into the wave's own order) that share one signature."""

    kind: str  # one of KINDS, or "time" for a wave held together by closeness alone
    statement: str  # "killed ~62 s after RUNNING", "on machine ks2-h17", "personal ran out"
    members: tuple[int, ...]

    def to_json(self) -> dict:
        return {"kind": self.kind, "statement": self.statement}


@dataclass(frozen=True)
class Split:
    """The groups of a wave, largest first, and the losses that fit none (indexes)."""

    groups: tuple[Group, ...]
    unrelated: tuple[int, ...]


def kill_window(least: float, resolution: float = 0.0) -> float:
    """How far above the least gap a kill-time group reaches: ± the tight limit around a kill time."""
    return 2.0 * G.tight_limit(least, resolution)


def split(losses: Sequence[Loss], ctx: TriageContext | None) -> Split:
    """The signature groups of `losses` (one wave, ordered by lost_at), by the module's rule."""
    n = len(losses)
    left = set(range(n))
    groups: list[Group] = []
    while left:
        found = [g for g in _candidates(losses, sorted(left), ctx) if len(g.members) >= 2
                 and not (g.kind == "kill-time" and any(h.kind == "kill-time" for h in groups))]
        if not found:
            break
        best = max(found, key=lambda g: (len(g.members), -KINDS.index(g.kind)))
        groups.append(best)
        left -= set(best.members)
    if not groups:
        return Split((Group("time", "lost close in time, sharing no signature", tuple(range(n))),), ())
    kill = next((g for g in groups if g.kind == "kill-time"), None)
    joined, unrelated = [], []
    for i in sorted(left):
        (joined if kill is not None or G.gap_of(losses[i]) is None else unrelated).append(i)
    if joined:
        home = kill or groups[0]
        groups[groups.index(home)] = Group(home.kind, home.statement, tuple(sorted((*home.members, *joined))))
    return Split(tuple(groups), tuple(unrelated))


def _candidates(losses: Sequence[Loss], idx: Sequence[int], ctx: TriageContext | None) -> list[Group]:
    sub = [losses[i] for i in idx]
    return [*_actors(sub, idx, ctx), *_stopped_accounts(sub, idx, ctx), *_hosts(sub, idx), *_kill_time(sub, idx)]


def _actors(sub: Sequence[Loss], idx: Sequence[int], ctx: TriageContext | None) -> list[Group]:
    if ctx is None or not ctx.evidence:
        return []
    by: dict[str, list[int]] = {}
    for i, x in zip(idx, sub):
        row = ctx.evidence.get(x.pod_id)
        if row and row.get("audit_state") == "acted":
            by.setdefault(str(row.get("actor")), []).append(i)
    return [Group("actor", f"stopped or terminated by {actor} (audit log)", tuple(m)) for actor, m in by.items()]


def _stopped_accounts(sub: Sequence[Loss], idx: Sequence[int], ctx: TriageContext | None) -> list[Group]:
    if ctx is None or not (ctx.health or ctx.balances):
        return []
    start, end = min(x.lost_at for x in sub), max(x.lost_at for x in sub)
    out = []
    for acc in sorted({x.account for x in sub}):
        h = ctx.health.get(acc)
        if getattr(h, "billing_mode", None) == "POSTPAID":
            continue  # invoiced: its balance stops nothing
        r = balance_reading(acc, start, end, h, ctx.balances.get(acc, ()))
        if r.state == "out":
            out.append(Group("account-stop", r.short or f"{acc} ran out",
                             tuple(i for i, x in zip(idx, sub) if x.account == acc)))
    return out


def _hosts(sub: Sequence[Loss], idx: Sequence[int]) -> list[Group]:
    counts = Counter(x.host for x in sub if x.host)
    return [Group("host", f"on machine {h}", tuple(i for i, x in zip(idx, sub) if x.host == h))
            for h, c in counts.items() if c >= 2]


def _kill_time(sub: Sequence[Loss], idx: Sequence[int]) -> list[Group]:
    known = sorted((g, i) for i, x in zip(idx, sub) if (g := G.gap_of(x)) is not None)
    if len(known) < G.TIGHT_MIN_N:
        return []
    res = G.resolution(sub)
    best: tuple[int, int] = (0, 0)
    j = 0
    for a in range(len(known)):
        reach = known[a][0] + kill_window(known[a][0], res)
        j = max(j, a)
        while j + 1 < len(known) and known[j + 1][0] <= reach:
            j += 1
        if j + 1 - a > best[1] - best[0]:
            best = (a, j + 1)
    a, b = best
    if b - a < G.TIGHT_MIN_N:
        return []
    med = G.median([g for g, _ in known[a:b]]) or 0.0
    return [Group("kill-time", f"killed ~{fmt.duration(med)} after RUNNING", tuple(sorted(i for _, i in known[a:b])))]


def describe(losses: Sequence[Loss], ctx: TriageContext | None) -> Group:
    """The signature a whole wave shares (its largest group when that holds every loss)."""
    s = split(losses, ctx)
    top = s.groups[0]
    if len(top.members) == len(losses):
        return top
    return Group("time", "lost close in time; " + "; ".join(g.statement for g in s.groups), tuple(range(len(losses))))


def signature_of(wave: Wave) -> Group:
    """What `wave`'s losses share: a kill time, a machine, a stopped account, an actor, or only
    closeness in time. Kept in the record's dict (chains.py sets it when a split made the wave)."""
    kept = wave.__dict__
    g = kept.get("signature")
    if g is None:
        g = kept["signature"] = describe(wave.losses, wave.context)
    return g
