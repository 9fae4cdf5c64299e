"""Diagnosis of a wave: short statements for the owner at 3 a.m., each with its evidence."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Iterable, Mapping, NamedTuple

from sagan_tui.wire.basics import HealthState
from sagan_tui.wire import fmt
from sagan_tui.core.triage import gaps as G
from sagan_tui.core.triage.evidence import BalanceStep, balance_reading, hosts_of

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.core.models import Loss, PodSighting, SourceHealth
    from sagan_tui.core.triage.waves import Wave


@dataclass(frozen=True)
class Finding:
    kind: str  # accounts, gaps, survivors, balance, long-running, host, datacenter, gpu, runpod-reason, repeat, burn
    statement: str
    evidence: tuple[str, ...] = ()


class Dispatch(NamedTuple):
    """One pod dispatched for an experiment; a plain (experiment, pod_id, created_at) tuple works too."""

    experiment: int
    pod_id: str
    created_at: datetime | None = None


@dataclass(frozen=True)
class TriageContext:
    """What, besides the wave, the diagnosis may look at. Everything optional."""

    sightings: tuple[PodSighting, ...] = ()  # the control group candidates
    health: Mapping[str, SourceHealth] = field(default_factory=dict)  # account -> health and balance
    dispatches: tuple[Dispatch, ...] = ()  # every experiment's pods in dispatch order
    accounts_polled: tuple[str, ...] = ()  # every configured account
    losses: tuple[Loss, ...] = ()  # every known loss, for the experiments' dispatch history
    balances: Mapping[str, tuple[BalanceStep, ...]] = field(default_factory=dict)  # account -> its history
    # pod id -> what RunPod's billing and audit log said of it, read around its wave (the cache's
    # loss_evidence row: billed_usd, billed_note, audit_state, audit_note, actor, action)
    evidence: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # pod id -> its system log as read at its loss (the cache's loss_syslog row: state, note, lines)
    syslog: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Accept lists and plain tuples from callers; store immutable, typed values.
        object.__setattr__(self, "balances", {a: tuple(BalanceStep(*s) for s in steps)
                                              for a, steps in dict(self.balances or {}).items()})
        object.__setattr__(self, "sightings", tuple(self.sightings))
        object.__setattr__(self, "dispatches", tuple(Dispatch(*d) for d in self.dispatches))
        object.__setattr__(self, "accounts_polled", tuple(self.accounts_polled))
        object.__setattr__(self, "losses", tuple(self.losses))


def dispatches_from(losses: Iterable[Loss], sightings: Iterable[PodSighting] = ()) -> tuple[Dispatch, ...]:
    """Dispatch history as the polls saw it, when Sagan's own is not at hand."""
    first: dict[str, Dispatch] = {}
    for x in (*losses, *sightings):
        at = x.running_at or getattr(x, "first_seen_at", None) or getattr(x, "lost_at", None)
        if x.experiment is not None and x.pod_id not in first:
            first[x.pod_id] = Dispatch(x.experiment, x.pod_id, at)
    return tuple(sorted(first.values(), key=lambda d: (d.created_at is None, d.created_at or 0, d.pod_id)))


def diagnose(wave: Wave, context: TriageContext | None = None) -> list[Finding]:
    """The findings on `wave`, most decisive first."""
    ctx = context or TriageContext()
    checks = (_accounts, _gaps, _survivors, _balances, _long_running, _hosts, _datacenters, _gpus,
              _runpod_reasons, _repeats, _burn)
    out: list[Finding] = []
    for check in checks:
        out.extend(check(wave, ctx))
    return out


def _pods_by_account(wave: Wave) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for x in wave.losses:
        out[x.account].append(x.pod_id)
    return out


def _accounts(wave: Wave, ctx: TriageContext) -> list[Finding]:
    by_acc = _pods_by_account(wave)
    evidence = [f"{a}: {len(p)} pod{'s' * (len(p) != 1)} ({fmt.listed(p)})" for a, p in sorted(by_acc.items())]
    names = ", ".join(wave.accounts)
    if len(wave.accounts) > 1:
        polled = set(ctx.accounts_polled)
        scope = ("both accounts" if len(wave.accounts) == 2 and polled <= set(wave.accounts)
                 else f"{len(wave.accounts)} accounts")
        return [Finding("accounts", f"spans {scope} ({names}): not an account-only cause (billing cap, key rotation)",
                        tuple(evidence))]
    for other in sorted(set(ctx.accounts_polled) - set(wave.accounts)):
        h = ctx.health.get(other)
        if h is not None and h.state == HealthState.ERROR:
            kind = h.error_kind.value if h.error_kind else "error"
            evidence.append(f"{other}: its poll is failing ({kind}): its pods' fate is unknown")
        elif h is not None and h.last_success is not None and h.last_success >= wave.end:
            evidence.append(f"{other}: polled OK at {fmt.hms(h.last_success)} UTC and lost nothing in the window")
        else:
            evidence.append(f"{other}: lost nothing in the window")
    return [Finding("accounts", f"only account {names}: check that account (billing, spend limit, key rotation, audit log)",
                    tuple(evidence))]


def _gaps(wave: Wave, ctx: TriageContext) -> list[Finding]:
    pairs = [(x, g) for x in wave.losses if (g := G.gap_of(x)) is not None]
    n, total, med = len(pairs), len(wave.losses), wave.gap_median_s
    if n == 0:
        return [Finding("gaps", "RUNNING time unknown for every pod: the gap after RUNNING cannot be judged")]
    longs = {x.pod_id for x in wave.long_running()}
    per_pod = fmt.capped(sorted(pairs, key=lambda t: t[1]), show=lambda p: f"{p[0].pod_id}: {fmt.duration(p[1])}" + (
        " (long-running: left out of the median)" if p[0].pod_id in longs else ""))
    late = _sagan_timed(wave)
    if late:
        per_pod += (f"{len(late)} of {total} timed only by Sagan noticing the loss (no poll saw them go): "
                    f"their gaps are upper bounds ({fmt.listed(late, 3)})",)
    if n < G.TIGHT_MIN_N:
        return [Finding("gaps", f"only {n} gap{'s' * (n != 1)} after RUNNING known: too few to call a pattern", per_pod)]
    core, res = wave.core_gaps, G.resolution(wave.losses)
    iqr = fmt.duration(wave.gap_spread_s or 0)
    rule = (f"a cluster's IQR is <= {fmt.duration(G.tight_limit(med or 0, res))} (10% of the median, at least "
            f"{G.TIGHT_FLOOR_S:.0f} s" + (f", + {fmt.duration(res)} of poll timing)" if res else ")"))
    if med is not None and G.is_tight(core, res):
        # The IQR, as the wave panel's "±" shows it: one spread statistic everywhere.
        of = f"{len(core)} pods" if len(core) == total else f"{len(core)} of {total} pods"
        return [Finding("gaps", f"gaps cluster at {fmt.duration(med)} after RUNNING (IQR {iqr}, {of}): "
                                "a systematic reaper, not the workload", (rule, *per_pod))]
    span = f"from {fmt.duration(min(core))} to {fmt.duration(max(core))} (median {fmt.duration(med or 0)}, IQR {iqr})"
    if len(late) * 2 >= n:
        # Sagan's watcher adds its own delay to each: a spread here says nothing about the reaper.
        return [Finding("gaps", f"gaps after RUNNING {span}, as Sagan noticed the losses: too coarse to judge a "
                                "reaper's timing (the panel's own polls time them better)", (rule, *per_pod))]
    return [Finding("gaps", f"gaps after RUNNING spread {span}: no single reaper timing", (rule, *per_pod))]


def _sagan_timed(wave: Wave) -> list[str]:
    # Only Sagan saw these go: their lost_at is when its watcher noticed, which can be well after
    # the pod vanished, so their gaps are upper bounds.
    return [x.pod_id for x in wave.losses if x.source == "sagan" and x.last_seen_at is None and G.gap_of(x) is not None]


def _survivors(wave: Wave, ctx: TriageContext) -> list[Finding]:
    if not ctx.sightings:
        return []  # no poll data at all: silence rather than a guess
    lost = set(wave.pod_ids)
    mates = [s for s in ctx.sightings if s.account in wave.accounts and s.pod_id not in lost]
    alive = survivors(wave, mates)
    names = ", ".join(wave.accounts)
    if alive:
        spared = [a for a in wave.accounts if any(s.account == a for s in alive)]
        ids = [f"{s.pod_id} ({s.account}, {fmt.exp(s.experiment)})" for s in alive]
        ev = [*fmt.capped(alive, show=lambda s: f"{s.pod_id}: running since {fmt.hms(s.running_at or s.first_seen_at)}, "
                                                f"seen running {fmt.hms(running_seen(s))} UTC")]
        ev += [f"{a}: no other pod ran across the window (no control there)"
               for a in wave.accounts if a not in spared]
        return [Finding("survivors", f"pods of the same accounts survived the window: {fmt.listed(ids, 3)}: "
                                     f"not an account-wide stop in {', '.join(spared)}", tuple(ev))]
    if not mates:
        return [Finding("survivors", f"no other pod of {names} ran across the window: "
                                     "no control group to tell account-wide from selective")]
    return [Finding("survivors", f"no pod of {names} survived the window: points at an account-wide stop "
                                 "(balance, spend limit, key, or RunPod acting on the account)",
                    fmt.capped(mates, show=lambda s: f"{s.pod_id}: last seen {fmt.hms(s.last_seen_at)} UTC"))]


def survivors(wave: Wave, sightings: Iterable[PodSighting]) -> list[PodSighting]:
    """Pods of the wave's accounts that ran across its whole window: the control group."""
    lost = set(wave.pod_ids)
    floor = _earliest_loss(wave)
    return sorted((s for s in sightings if s.account in wave.accounts and s.pod_id not in lost
                   and _survived(s, floor, wave.end)), key=lambda s: (s.account, s.pod_id))


def _earliest_loss(wave: Wave) -> datetime:
    """The earliest moment any of the wave's pods may really have gone. A loss only Sagan saw is
    dated by its notice, maybe half a minute late: it may have gone any time after RUNNING, so a
    control must have run since then (the long-running bystander's RUNNING is no bound)."""
    longs = {x.pod_id for x in wave.long_running()}
    bounds = [x.last_seen_at or (x.running_at if x.source == "sagan" and x.running_at and x.pod_id not in longs
                                 else x.lost_at) for x in wave.losses]
    return min([wave.start, *bounds])


def _survived(s: PodSighting, floor: datetime, end: datetime) -> bool:
    """Ran from before the wave's first possible loss until a poll after its last: survival is
    about the window, so a stop or a loss after that (the owner's, RunPod's) changes nothing."""
    began = s.running_at or s.first_seen_at
    seen = running_seen(s)
    return began is not None and began <= floor and seen is not None and seen >= end


def running_seen(s: PodSighting) -> datetime | None:
    """The last time a poll saw the pod RUNNING (a sighting without that column: its last
    sighting, if it was RUNNING then)."""
    if s.running_seen_at is not None:
        return s.running_seen_at
    return s.last_seen_at if s.desired_status in (None, "RUNNING") else None


def _balances(wave: Wave, ctx: TriageContext) -> list[Finding]:
    out, unknown = [], []
    for acc in wave.accounts:
        r = balance_reading(acc, wave.start, wave.end, ctx.health.get(acc), ctx.balances.get(acc, ()))
        if r.state == "unknown":
            unknown.append(r.statement)
            continue
        h = ctx.health.get(acc)
        spend = ([f"{acc}: spend {fmt.usd(h.spend_per_hr)}/h" + (f" of limit {fmt.usd(h.spend_limit)}/h"
                                                                 if h.spend_limit is not None else "")]
                 if h is not None and h.spend_per_hr is not None else [])
        out.append(Finding("balance", r.statement, (*r.evidence, *spend)))
    if unknown and (ctx.health or ctx.balances):
        out.append(Finding("balance", f"{'; '.join(unknown)}: check it in the RunPod console"))
    return out


def _hosts(wave: Wave, ctx: TriageContext) -> list[Finding]:
    hosts = hosts_of(x.host for x in wave.losses)
    total, known = len(wave.losses), sum(hosts.values())
    if not hosts:
        return []
    ev = fmt.capped(f"{h}: {n} pod{'s' * (n != 1)} ({fmt.listed([x.pod_id for x in wave.losses if x.host == h], 3)})"
                    for h, n in hosts.items())
    ev += (f"unknown: {total - known} pods",) if known < total else ()
    if len(hosts) == 1 and known >= 2:
        (host,) = hosts
        return [Finding("host", f"{'all' if known == total else f'{known} of {total}'} on one machine {host}: "
                                "a host failure fits", ev)]
    if len(hosts) == 1:
        return [Finding("host", f"machine known for only {known} of {total} pods: too few to place the rest", ev)]
    return [Finding("host", f"on {len(hosts)} machines: not one host failing", ev)]


def _long_running(wave: Wave, ctx: TriageContext) -> list[Finding]:
    longs = wave.long_running()
    if not longs:
        return []
    ids = [f"{x.pod_id} ({fmt.exp(x.experiment)})" for x in longs]
    return [Finding("long-running", f"long-running pod{'s' * (len(longs) > 1)} killed in the same window: "
                                    f"{fmt.listed(ids, 3)}: the sweep is not only about new pods",
                    fmt.capped(longs, show=lambda x: f"{x.pod_id}: RUNNING since {fmt.hms(x.running_at)}, lost "
                                                     f"{fmt.hms(x.lost_at)} UTC after {fmt.duration(G.gap_of(x) or 0)}"))]


def _concentration(wave: Wave, kind: str, attr: str, what: str, prep: str, one: str, many: str) -> list[Finding]:
    counts = Counter(v for x in wave.losses if (v := getattr(x, attr)))
    known, total = sum(counts.values()), len(wave.losses)
    if not counts:
        return []
    ranked = sorted(counts.items(), key=lambda vc: (-vc[1], vc[0]))
    ev = tuple(f"{v}: {c} pod{'s' * (c != 1)}" for v, c in ranked) + (
        (f"unknown: {total - known} pods",) if known < total else ())
    if len(counts) == 1 and known >= max(2, total / 2):
        (value,) = counts
        scope = "all" if known == total else f"all {known} with a known {what} ({total - known} unknown)"
        return [Finding(kind, f"{scope} {prep} one {what} {value}: {one}", ev)]
    if len(counts) == 1:
        return [Finding(kind, f"{what} known for only {known} of {total} pods ({next(iter(counts))}): "
                              "too few to place the rest", ev)]
    return [Finding(kind, f"spread over {len(counts)} {what}s ({', '.join(v for v, _ in ranked)}): {many}", ev)]


def _datacenters(wave: Wave, ctx: TriageContext) -> list[Finding]:
    return _concentration(wave, "datacenter", "datacenter", "data center", "in",
                          "regional capacity reclaim likely", "not a regional reclaim")


def _gpus(wave: Wave, ctx: TriageContext) -> list[Finding]:
    return _concentration(wave, "gpu", "gpu", "GPU type", "on",
                          "a reclaim of that GPU pool fits", "not one GPU pool")


def _runpod_reasons(wave: Wave, ctx: TriageContext) -> list[Finding]:
    by_reason: dict[str, list[str]] = defaultdict(list)
    for x in wave.losses:
        if x.reason and "by runpod" in x.reason.lower():
            by_reason[x.reason].append(x.pod_id)
    return [Finding("runpod-reason", f"RunPod says \"{reason}\" for {len(ids)} pod{'s' * (len(ids) != 1)}: "
                                     "RunPod stopped them, not Sagan", fmt.capped(ids))
            for reason, ids in sorted(by_reason.items())]


def _repeats(wave: Wave, ctx: TriageContext) -> list[Finding]:
    lost = {x.pod_id: x for x in (*ctx.losses, *wave.losses)}
    known_history = bool(ctx.dispatches)
    history = ctx.dispatches or dispatches_from(lost.values(), ctx.sightings)
    per_exp: dict[int, list[Dispatch]] = defaultdict(list)
    for d in history:
        # As of the wave's end: a later re-dispatch is not part of this wave's story.
        if d.created_at is None or d.created_at <= wave.end:
            per_exp[d.experiment].append(d)
    out = []
    for e in wave.experiments:
        ds = sorted(per_exp.get(e, ()), key=lambda d: (d.created_at is None, d.created_at or 0, d.pod_id))
        streak = []
        for d in reversed(ds):
            if d.pod_id not in lost:
                break
            streak.append(lost[d.pod_id])
        # Pods of one run (same run_id) are one dispatch: #333's r5 lost two pods at once.
        runs = len({x.run_id or x.pod_id for x in streak})
        if runs < 2:
            continue
        streak.reverse()
        spent, _ = G.burn(streak)
        run = "in a row" if known_history else f"since {fmt.hms(streak[0].lost_at)} UTC"
        pods = "" if runs == len(streak) else f" ({len(streak)} pods)"
        out.append(Finding("repeat", f"{fmt.exp(e)} lost {runs} dispatches{pods} {run}: a recovery loop "
                                     "burning money, hold it",
                           (*fmt.capped(streak, show=lambda x: f"{x.pod_id}: lost {fmt.hms(x.lost_at)} UTC ({x.account})"),
                            f"burned {fmt.usd(spent)} on them")))
    return out


def _burn(wave: Wave, ctx: TriageContext) -> list[Finding]:
    n = len(wave.losses)
    priced = n - wave.burn_unknown
    tail = f"; {wave.burn_unknown} more with no price or RUNNING time" if wave.burn_unknown else ""
    priced_pairs = [(x, g) for x in wave.losses if x.cost_per_hr is not None and (g := G.gap_of(x)) is not None]
    ev = fmt.capped(priced_pairs, show=lambda p: f"{p[0].pod_id}: {fmt.usd(p[0].cost_per_hr)}/h x "
                                                 f"{fmt.duration(p[1])} = {fmt.usd(p[0].cost_per_hr * p[1] / 3600)}")
    return [Finding("burn", f"{fmt.usd(wave.burn_usd)} of GPU time burned on {priced} lost pod"
                            f"{'s' * (priced != 1)} (price x time from RUNNING to lost; RunPod bills per second)"
                            f"{tail}", ev)]
