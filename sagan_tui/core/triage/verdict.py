"""The verdict on a wave: the cause the evidence points to, how sure, what speaks for and against, what to do.

Causes: `platform-reaper` (pods killed a fixed time after RUNNING, survivors ruling out an
account-wide stop), `account-stop` (an account's balance ran out or its spend hit the limit, or
every running pod of one account went while other accounts' pods lived), `host-failure` (the
lost pods shared one machine, pods on other machines lived, run times do not cluster),
`account-action` (the audit log names a user or API key of the account that stopped or
terminated them: account_evidence.py weighs it, and the billing mode), and `unclear` (nothing
singles out a cause; the missing evidence is named).

How it is weighed. Each piece of evidence gives points for or against a cause:

| evidence | platform-reaper | account-stop | host-failure |
|---|---|---|---|
| gaps after RUNNING cluster (IQR rule of gaps.py) | +2 | | -1 |
| gaps spread | -2 | | +1 |
| ... but all fresh, an older pod of a hit account spared, several machines (fresh-only) | +2 (not -2) | | 0 (not +1) |
| several accounts hit | +1 | -2 | |
| pods of the hit accounts survived the window | +2 | -2 | |
| every running pod of a hit account went (others had run beside them) | | +2 | |
| ... (no other pod ran there: no control) | | +1 | |
| ... and another account's pods lived | | +1 | |
| a hit account's balance ran out / under balance / spend at limit | -1 | +3 | -1 |
| all lost pods on one machine (podHostId) | | | +3 |
| ... and pods on other machines of that data centre lived | | | +1 |
| ... but a pod on that machine lived | | | -2 |
| lost pods on several machines | | | -2 |
| machines unknown, all in one data centre (the fallback) | | | +1 |
| machines unknown, several data centres | | | -2 |
| a hit account is POSTPAID (its balance stops nothing; shown against every cause) | | -3 | |
| the audit log names who stopped them (account-action +3, +6 for all) | -2 | -2 | -2 |
| the audit log is readable and names no one (account-action -2) | +1 | | |
| a lost pod's system log names that cause's stop (platform / balance / host line; once per wave) | +1 | +1 | +1 |

A balance that is fine is shown against `account-stop` but weighs nothing: a spend limit, a key
or RunPod acting on the account stay possible, and a balance the panel cannot read must never
make an account stop look likelier than one it can read.

score = for - against. The cause is the best score if it is >= 2 and beats every other cause's
(positive) score by >= 1; otherwise `unclear`. Confidence:
- `high`: score >= 5, nothing against it, ahead by >= 3, and at least two kinds of evidence for it;
- `medium`: score >= 3 and ahead by >= 2;
- `low`: otherwise.
The system log (syslog_evidence.py) counts toward the cause only: the confidence is judged as
if no line had been read, so a line may pick the cause where the rest ties (then `low`), never
make a verdict surer or less sure. A line naming the account's own request is account-action +1.
Caps: `platform-reaper` with fewer than 4 lost pods is at most medium (few pods); `account-stop`
without a balance that ran out is at most medium; `host-failure` without known machines (data
centre only, as on REST v2) is at most low. `unclear` is always low.

Fresh-only: a sweep every minute kills pods between one and two minutes old, so its gaps spread;
when every lost pod was young (all under the oldest gap), a pod of a hit account that had run
FRESH_SPARED times that long lived through the window, and the losses sat on more than one
machine (a dying machine takes every age), the spread is a selective reaper's, not evidence
against one.

The runner-up: besides the verdict stands the best other cause that any evidence weighed (a cause
nothing spoke to is no competitor), its net score and its strongest evidence (for it if any) (`host-failure -1: all 4 with a known machine on ks2-h17`), so a close call reads as one.
Losses of the wave's run that fit no signature (grouping.py) are named by the verdict and never
weighed.

Everything here is pure: the verdict depends only on the wave's losses (as a set) and the context.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Iterable, Sequence

from sagan_tui.wire import fmt
from sagan_tui.core.triage import gaps as G
from sagan_tui.core.triage.account_evidence import ACTION, action_next_step, audit_points, postpaid_points
from sagan_tui.core.triage.diagnosis import Finding, TriageContext, diagnose, running_seen, survivors
from sagan_tui.core.triage.evidence import balance_reading, hosts_of, over_rest
from sagan_tui.core.triage.syslog_evidence import KIND as SYSLOG, contrary, syslog_points

if TYPE_CHECKING:
    from sagan_tui.core.models import PodSighting
    from sagan_tui.core.triage.waves import Wave

REAPER, ACCOUNT, HOST, UNCLEAR = "platform-reaper", "account-stop", "host-failure", "unclear"
CAUSES = (REAPER, ACCOUNT, HOST, ACTION)
LEVELS = ("low", "medium", "high")
MIN_SCORE, MIN_LEAD = 2, 1
HIGH_SCORE, HIGH_LEAD, MEDIUM_SCORE, MEDIUM_LEAD = 5, 3, 3, 2
FEW_PODS = 4
# The cause each kind of system-log stop line speaks for (syslog_evidence.py).
SYSLOG_CAUSES = {"platform": REAPER, "host": HOST, "owner": ACTION, "balance": ACCOUNT}
FRESH_SPARED = 2.0  # a spared pod this many times older than the oldest lost one makes a sweep fresh-only


@dataclass(frozen=True)
class Point:
    """One piece of evidence's weight toward one cause (negative: against it)."""

    cause: str
    weight: int
    kind: str  # the diagnosis finding it rests on: gaps, accounts, survivors, balance, host, datacenter
    finding: Finding
    account: str | None = None  # the account a balance point is about


@dataclass(frozen=True)
class Verdict:
    cause: str
    confidence: str
    for_: tuple[Finding, ...]
    against: tuple[Finding, ...]
    next_step: str
    missing: tuple[str, ...] = ()
    scores: tuple[tuple[str, int], ...] = ()
    weights: tuple[tuple[str, int], ...] = field(default=(), repr=False)  # finding kind -> weight toward the cause
    broke: tuple[tuple[str, str], ...] = ()  # (account, what its balance said) for accounts that ran out
    runner_up: tuple[str, int, str] | None = None  # (cause, net score, its strongest evidence)
    unrelated: tuple[str, ...] = ()  # losses of the run left out: fit no signature, weighed nowhere

    @property
    def runner_up_text(self) -> str:
        """`host-failure -1: all 4 with a known machine on ks2-h17`; empty when there is none."""
        if self.runner_up is None:
            return ""
        cause, score, why = self.runner_up
        return f"{cause} {score:+d}: {why}"

    @property
    def title(self) -> str:
        """`PLATFORM REAPER, high`."""
        return f"{self.cause.replace('-', ' ').upper()}, {self.confidence}"

    @property
    def headline(self) -> str:
        """`PLATFORM REAPER, high: hold re-dispatch, ticket to RunPod with 5 pod ids`."""
        return f"{self.title}: {self.next_step}"

    def to_json(self) -> dict:
        """DESIGN.md's verdict object; missing evidence is listed among what speaks against."""
        return {"cause": self.cause, "confidence": self.confidence,
                "for": [_one(f) for f in self.for_],
                "against": [_one(f) for f in self.against] + [f"missing: {m}" for m in self.missing],
                "next_step": self.next_step,
                "runner_up": None if self.runner_up is None else dict(zip(("cause", "score", "evidence"),
                                                                          self.runner_up)),
                "unrelated": list(self.unrelated)}


def _one(f: Finding) -> str:
    return f.statement + (f" [{'; '.join(f.evidence)}]" if f.evidence else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


# --- evidence ------------------------------------------------------------------------------

def _gap_points(wave: Wave, ctx: TriageContext) -> tuple[list[Point], list[str]]:
    core, total = wave.core_gaps, len(wave.losses)
    if len(core) < G.TIGHT_MIN_N:
        return [], [f"RUNNING time known for only {wave.gaps_known} of {total} pods: the kill time cannot be judged"]
    sagan_only = [x for x in wave.losses if x.source == "sagan" and x.last_seen_at is None]
    if len(sagan_only) * 2 >= wave.gaps_known:
        return [], ["most losses were timed only by Sagan noticing them: too coarse to judge a kill time"]
    med, iqr = wave.gap_median_s or 0.0, wave.gap_spread_s or 0.0
    ids = fmt.capped([(x, g) for x in wave.losses if (g := G.gap_of(x)) is not None],
                     show=lambda p: f"{p[0].pod_id}: {fmt.duration(p[1])}")
    if G.is_tight(core, G.resolution(wave.losses)):
        f = Finding("gaps", f"killed {fmt.duration(med)} after RUNNING (IQR {fmt.duration(iqr)}, "
                            f"{_plural(len(core), 'pod')}): a fixed kill time", ids)
        return [Point(REAPER, 2, "gaps", f),
                Point(HOST, -1, "gaps", Finding("gaps", f"run times cluster at {fmt.duration(med)}: a dying machine "
                                                        "kills pods whatever their age", ids))], []
    span = f"from {fmt.duration(min(core))} to {fmt.duration(max(core))}"
    spared = _spared_elders(wave, ctx, max(core))
    if spared:
        f = Finding("gaps", f"killed young, {span} after RUNNING, while {spared}: a reaper of fresh pods, "
                            "selective", ids)
        return [Point(REAPER, 2, "gaps", f)], []
    return [Point(REAPER, -2, "gaps", Finding("gaps", f"run times spread {span}: no fixed kill time", ids)),
            Point(HOST, 1, "gaps", Finding("gaps", f"run times spread {span}: the pods went together whatever "
                                                   "their age", ids))], []


def _spared_elders(wave: Wave, ctx: TriageContext, oldest: float) -> str:
    """What makes a spread of kill times a fresh-only sweep (the module's rule), said; empty if not."""
    if len(hosts_of(x.host for x in wave.losses)) == 1 or not ctx.sightings or oldest <= 0:
        return ""
    elders = [(s, age) for s in survivors(wave, ctx.sightings)
              if (age := (wave.start - (s.running_at or s.first_seen_at)).total_seconds()) >= FRESH_SPARED * oldest]
    if not elders:
        return ""
    s, age = max(elders, key=lambda e: (e[1], e[0].pod_id))
    more = f" and {_plural(len(elders) - 1, 'other')}" if len(elders) > 1 else ""
    return f"{s.pod_id} ({s.account}, RUNNING for {fmt.duration(age)}){more} lived through the window"


def _candidates(wave: Wave, sightings: Iterable[PodSighting], account: str) -> list[PodSighting]:
    """Pods of `account` that ran beside the wave's (the lost ones left out)."""
    lost = set(wave.pod_ids)
    return [s for s in sightings if s.account == account and s.pod_id not in lost
            and (s.running_at or s.first_seen_at) is not None and (s.running_at or s.first_seen_at) <= wave.end
            and (seen := running_seen(s)) is not None and seen >= wave.start]


def _account_points(wave: Wave, ctx: TriageContext) -> tuple[list[Point], list[str]]:
    points, missing = [], []
    hit = wave.accounts
    by_acc: dict[str, list[str]] = defaultdict(list)
    for x in wave.losses:
        by_acc[x.account].append(x.pod_id)
    if len(hit) > 1:
        ev = tuple(f"{a}: {_plural(len(by_acc[a]), 'pod')} ({fmt.listed(by_acc[a], 3)})" for a in hit)
        points += [Point(REAPER, 1, "accounts", Finding("accounts", f"spans {len(hit)} accounts ({', '.join(hit)}): "
                                                                    "a cause beyond one account", ev)),
                   Point(ACCOUNT, -2, "accounts", Finding("accounts", f"spans {len(hit)} accounts "
                                                                      f"({', '.join(hit)}): not one account's stop", ev))]
    if not ctx.sightings:
        return points, ["no pod sightings: the control group (pods that lived through the window) is unknown"]
    alive = survivors(wave, ctx.sightings)
    if alive:
        ids = [f"{s.pod_id} ({s.account})" for s in alive]
        ev = fmt.capped(alive, show=lambda s: f"{s.pod_id}: RUNNING since {fmt.hms(s.running_at or s.first_seen_at)}, "
                                              f"seen running {fmt.hms(running_seen(s))} UTC")
        spared = sorted({s.account for s in alive})
        points += [Point(REAPER, 2, "survivors", Finding("survivors", f"{fmt.listed(ids, 3)} lived through the window: "
                                                                      "the killing was selective", ev)),
                   Point(ACCOUNT, -2, "survivors", Finding("survivors", f"pods of {', '.join(spared)} lived through "
                                                                        f"the window ({fmt.listed(ids, 3)}): "
                                                                        "not an account-wide stop", ev))]
        return points, missing
    whole = []
    for acc in hit:
        beside = _candidates(wave, ctx.sightings, acc)
        # A pod the latest poll still saw RUNNING did not stop: it is no evidence of a stop,
        # and while one is listed, "every running pod went" is not true.
        listed = [s for s in beside if not s.gone and s.desired_status == "RUNNING"]
        others = [s for s in beside if s not in listed]
        n = len(by_acc[acc])
        if listed:
            missing.append(f"{_plural(len(listed), 'pod')} of {acc} still listed RUNNING, not yet seen past"
                           f" the window ({fmt.listed([s.pod_id for s in listed], 3)})")
        elif others:
            whole.append(Point(ACCOUNT, 2, "survivors", Finding(
                "survivors", f"every running pod of {acc} went: {_plural(n, 'pod')} lost, and "
                             f"{_plural(len(others), 'other')} that ran beside them stopped too",
                fmt.capped(others, show=lambda s: f"{s.pod_id}: last seen running {fmt.hms(running_seen(s))} UTC"))))
        elif n >= 2:
            whole.append(Point(ACCOUNT, 1, "survivors", Finding(
                "survivors", f"all {n} running pods of {acc} went ({fmt.listed(by_acc[acc], 3)})")))
            missing.append(f"no control pod in {acc}: no other pod ran there across the window")
        else:
            missing.append(f"no control pod in {acc}: no other pod ran there across the window")
    points += whole
    if whole and len(hit) == 1:
        lived = [s for s in survivors_elsewhere(wave, ctx.sightings)]
        if lived:
            points.append(Point(ACCOUNT, 1, "accounts", Finding(
                "accounts", f"only {hit[0]} was hit: pods of {', '.join(sorted({s.account for s in lived}))} "
                            f"lived ({fmt.listed([s.pod_id for s in lived], 3)})")))
    return points, missing


def survivors_elsewhere(wave: Wave, sightings: Iterable[PodSighting]) -> list[PodSighting]:
    """Pods of other accounts than the wave's that ran across its window."""
    lost = set(wave.pod_ids)
    return sorted((s for s in sightings if s.account not in wave.accounts and s.pod_id not in lost
                   and (b := s.running_at or s.first_seen_at) is not None and b <= wave.start
                   and (seen := running_seen(s)) is not None and seen >= wave.end), key=lambda s: s.pod_id)


def _balance_points(wave: Wave, ctx: TriageContext, postpaid: set[str] = frozenset()
                    ) -> tuple[list[Point], list[Finding], list[str], list]:
    points, shown, missing, broke = [], [], [], []
    for acc in wave.accounts:
        if acc in postpaid:
            continue  # invoiced: whatever its balance reads, it stopped nothing (account_evidence.py)
        r = balance_reading(acc, wave.start, wave.end, ctx.health.get(acc), ctx.balances.get(acc, ()))
        if r.state == "unknown":
            missing.append(r.statement)
            continue
        lost = [x for x in wave.losses if x.account == acc]
        f = Finding("balance", r.statement, r.evidence)
        if r.state == "ok":
            shown.append(f)  # weighs nothing: see the module's docstring
            continue
        went = (f"its {_plural(len(lost), 'pod')} stopped "
                f"{fmt.window(min(x.lost_at for x in lost), max(x.lost_at for x in lost), seconds=True)}")
        f = Finding("balance", f"{r.statement}; {went}", r.evidence)
        points += [Point(ACCOUNT, 3, "balance", f, acc), Point(REAPER, -1, "balance", f, acc),
                   Point(HOST, -1, "balance", f, acc)]
        broke.append((acc, r.short))
    return points, shown, missing, broke


def _same_dc_survivors(wave: Wave, sightings: Iterable[PodSighting], host: str | None, dcs: set[str]) -> list:
    lost = set(wave.pod_ids)
    return [s for s in sightings if s.pod_id not in lost and s.datacenter in dcs
            and (host is None or s.host != host) and _ran_across(s, wave)]


def _ran_across(s: PodSighting, wave: Wave) -> bool:
    began, seen = s.running_at or s.first_seen_at, running_seen(s)
    return began is not None and began <= wave.start and seen is not None and seen >= wave.end


def _host_points(wave: Wave, ctx: TriageContext) -> tuple[list[Point], list[str], bool]:
    """(points, missing, whether machines were known)."""
    total = len(wave.losses)
    hosts = hosts_of(x.host for x in wave.losses)
    known = sum(hosts.values())
    dcs = {x.datacenter for x in wave.losses if x.datacenter}
    if known * 2 < total or known < 2:
        rest = sorted({a for a in wave.accounts if (h := ctx.health.get(a)) is not None and over_rest(h.transport)})
        why = (f"machine of {total - known} of {total} pods unknown"
               + (f" ({', '.join(rest)} polled over REST v2, which names no machine, and GraphQL gave none): "
                  "the data centre stands in" if rest
                  else ": the data centre stands in"))
        if len(dcs) > 1:
            f = Finding("datacenter", f"spread over {len(dcs)} data centres ({', '.join(sorted(dcs))}): "
                                      "not one machine")
            return [Point(HOST, -2, "datacenter", f)], [why], False
        if len(dcs) == 1 and total >= 2:
            (dc,) = dcs
            lived = _same_dc_survivors(wave, ctx.sightings, None, dcs)
            tail = f"; {fmt.listed([s.pod_id for s in lived], 3)} lived there" if lived else ""
            f = Finding("datacenter", f"all in data centre {dc} (machines unknown){tail}")
            return [Point(HOST, 1, "datacenter", f)], [why], False
        return [], [why], False
    ev = fmt.capped(f"{h}: {_plural(n, 'pod')}" for h, n in hosts.items())
    if len(hosts) > 1:
        return [Point(HOST, -2, "host", Finding("host", f"on {len(hosts)} machines: not one host failing", ev))], [], True
    (host,) = hosts
    points = [Point(HOST, 3, "host", Finding("host", f"all {known} with a known machine on {host}", ev))]
    lost = set(wave.pod_ids)
    same = [s for s in ctx.sightings if s.host == host and s.pod_id not in lost and _ran_across(s, wave)]
    if same:
        points.append(Point(HOST, -2, "host", Finding("host", f"{fmt.listed([s.pod_id for s in same], 3)} on {host} "
                                                              "lived through the window: the machine did not die")))
    lived = _same_dc_survivors(wave, ctx.sightings, host, dcs)
    if lived:
        points.append(Point(HOST, 1, "host", Finding(
            "host", f"pods on other machines of {', '.join(sorted(dcs))} lived: {fmt.listed([s.pod_id for s in lived], 3)}",
            fmt.capped(lived, show=lambda s: f"{s.pod_id}: on {s.host or 'an unknown machine'}"))))
    return points, [], True


# --- weighing ------------------------------------------------------------------------------

def verdict(wave: Wave, context: TriageContext | None = None) -> Verdict:
    """The verdict on `wave` given `context`; never raises on missing or odd evidence (it says so)."""
    ctx = context or TriageContext()
    if list(ctx.sightings) != sorted(ctx.sightings, key=_by_id):
        # Evidence lists follow the sightings' order: the verdict must not depend on it.
        ctx = replace(ctx, sightings=sorted(ctx.sightings, key=_by_id))
    points: list[Point] = []
    missing: list[str] = []
    for pts, miss in (_gap_points(wave, ctx), _account_points(wave, ctx)):
        points += pts
        missing += miss
    modes = {a: getattr(h, "billing_mode", None) for a, h in ctx.health.items()}
    post_points, always_against, postpaid = postpaid_points(wave, modes, ACCOUNT)
    bal_points, balance_ok, bal_missing, broke = _balance_points(wave, ctx, postpaid)
    points += bal_points
    missing += bal_missing
    host_points, host_missing, hosts_known = _host_points(wave, ctx)
    points += host_points
    missing += host_missing
    audit, audit_missing = audit_points(wave, ctx.evidence, REAPER, (ACCOUNT, HOST))
    points += [Point(*p) for p in (*post_points, *audit)]
    missing += audit_missing
    logged, log_missing = syslog_points(wave, ctx.syslog, SYSLOG_CAUSES)
    points += [Point(*p) for p in logged]
    missing += log_missing
    v = weigh(wave, points, balance_ok, missing, hosts_known, always_against, ctx.evidence)
    if logged:
        v = replace(v, against=_unique([*v.against, *contrary(logged, v.cause)]))
    if wave.unrelated:
        v = replace(v, unrelated=tuple(_left_out(x) for x in wave.unrelated))
    return replace(v, broke=tuple(broke)) if broke else v


def _left_out(x) -> str:
    gap = G.gap_of(x)
    where = ", ".join(filter(None, (x.account, f"on {x.host}" if x.host else x.datacenter,
                                    f"{fmt.duration(gap)} after RUNNING" if gap is not None else None)))
    return f"{x.pod_id} ({where}): fits no signature of this run, not weighed"


def _by_id(s: PodSighting) -> tuple:
    return (s.account, s.pod_id)  # the cache's own order: re-sorted only when a caller's differs


def _score(points: Sequence[Point], cause: str) -> tuple[int, int]:
    got = [p.weight for p in points if p.cause == cause]
    return sum(w for w in got if w > 0), -sum(w for w in got if w < 0)


def weigh(wave: Wave, points: Sequence[Point], shown_against: Sequence[Finding], missing: Sequence[str],
          hosts_known: bool, always_against: Sequence[Finding] = (), evidence=None) -> Verdict:
    """The cause and confidence by the module's rule, from the points gathered."""
    scores = {c: _score(points, c) for c in CAUSES}
    net = {c: f - a for c, (f, a) in scores.items()}
    best = max(CAUSES, key=lambda c: (net[c], -CAUSES.index(c)))
    lead = net[best] - max([max(net[c], 0) for c in CAUSES if c != best])
    cause = best if net[best] >= MIN_SCORE and lead >= MIN_LEAD else UNCLEAR
    confidence = "low" if cause == UNCLEAR else _confidence(cause, wave, points, hosts_known)
    focus = best if cause == UNCLEAR else cause
    ranked = sorted((p for p in points if p.cause == focus), key=lambda p: -abs(p.weight))
    for_ = _unique(p.finding for p in ranked if p.weight > 0)
    against = _unique([*(p.finding for p in ranked if p.weight < 0), *(shown_against if focus == ACCOUNT else ()),
                       *always_against])
    weights: dict[str, int] = defaultdict(int)
    for p in points:
        if p.cause == focus:
            weights[p.kind] += abs(p.weight)
    step = action_next_step(wave, evidence or {}) if cause == ACTION else next_step(cause, wave, points, missing)
    return Verdict(cause, confidence, for_, against, step,
                   tuple(dict.fromkeys(missing)), tuple(net.items()), tuple(weights.items()),
                   runner_up=_runner_up(focus, net, points))


def _confidence(cause: str, wave: Wave, points: Sequence[Point], hosts_known: bool) -> str:
    """How sure the verdict is, judged without the system log's lines: a line may pick the cause
    where the rest ties, never make it surer (a log can lie; syslog_evidence.py)."""
    firm = [p for p in points if p.kind != SYSLOG]
    scores = {c: _score(firm, c) for c in CAUSES}
    net = {c: f - a for c, (f, a) in scores.items()}
    lead = net[cause] - max([max(net[c], 0) for c in CAUSES if c != cause])
    kinds = {p.kind for p in firm if p.cause == cause and p.weight > 0}
    if net[cause] >= HIGH_SCORE and scores[cause][1] == 0 and lead >= HIGH_LEAD and len(kinds) >= 2:
        confidence = "high"
    elif net[cause] >= MEDIUM_SCORE and lead >= MEDIUM_LEAD:
        confidence = "medium"
    else:
        confidence = "low"
    return LEVELS[min(LEVELS.index(confidence), _cap(cause, wave, firm, hosts_known))]


def _runner_up(focus: str, net: dict[str, int], points: Sequence[Point]) -> tuple[str, int, str] | None:
    """The best other cause, its net score and its strongest evidence (for it if any, else against)."""
    mine = [p for p in points if p.cause != focus]
    if not mine:
        return None
    best = max((c for c in CAUSES if c != focus and any(p.cause == c for p in mine)),
               key=lambda c: (net[c], -CAUSES.index(c)))
    ranked = sorted((p for p in mine if p.cause == best), key=lambda p: (p.weight <= 0, -abs(p.weight)))
    return best, net[best], ranked[0].finding.statement


def _cap(cause: str, wave: Wave, points: Sequence[Point], hosts_known: bool) -> int:
    """The highest level (index into LEVELS) the cause may reach."""
    if cause == REAPER and len(wave.losses) < FEW_PODS:
        return 1
    if cause == ACCOUNT and not any(p.cause == ACCOUNT and p.kind == "balance" and p.weight > 0 for p in points):
        return 1
    if cause == HOST and not hosts_known:
        return 0
    return 2


def _unique(findings: Iterable[Finding]) -> tuple[Finding, ...]:
    return tuple(dict.fromkeys(findings))


def next_step(cause: str, wave: Wave, points: Sequence[Point] = (), missing: Sequence[str] = ()) -> str:
    """What the owner should do, in a line."""
    n = len(wave.losses)
    if cause == REAPER:
        return f"hold re-dispatch, ticket to RunPod with {_plural(n, 'pod id')}"
    if cause == ACCOUNT:
        broke = list(dict.fromkeys(p.account for p in points
                                   if p.cause == ACCOUNT and p.kind == "balance" and p.weight > 0 and p.account))
        accs = broke or list(wave.accounts)
        return (f"top up {', '.join(accs)} or raise its spend limit; hold {', '.join(accs)}'s experiments"
                if broke else f"check {', '.join(accs)} (billing, spend limit, key, audit log); "
                              f"hold {', '.join(accs)}'s experiments")
    if cause == HOST:
        hosts = hosts_of(x.host for x in wave.losses)
        where = next(iter(hosts)) if len(hosts) == 1 else "data centre " + ", ".join(wave.datacenters)
        return f"avoid {where} on re-dispatch, ticket to RunPod with {_plural(n, 'pod id')}"
    lack = f"; missing: {missing[0]}" if missing else ""
    return f"keep watching and hold re-dispatch until the cause is known{lack}"


def headline(wave: Wave) -> str:
    """The wave's verdict in one line, for a notification: `PLATFORM REAPER, high: hold re-dispatch, ...`."""
    return verdict_of(wave).headline


def order_findings(findings: Iterable[Finding], v: Verdict) -> tuple[Finding, ...]:
    """The diagnosis ordered by each finding's weight toward the verdict (heaviest first); the
    findings that weigh nothing keep their order after them."""
    weight = dict(v.weights)
    items = list(findings)
    return tuple(sorted(items, key=lambda f: -weight.get(f.kind, 0)))


# A wave is a record (wave.py); these judge it. Each judgement is weighed once per wave (and the
# context it was found with) and kept in the record's own dict: the panel reads a shown wave's
# verdict on every tick, and a million losses make ~10^5 waves of which few are ever judged.

def verdict_of(wave: Wave) -> Verdict:
    """The cause `wave`'s evidence points to, given the context it was found with."""
    kept = wave.__dict__
    v = kept.get("verdict")
    if v is None:
        v = kept["verdict"] = verdict(wave, wave.context)
    return v


def weighed(wave: Wave) -> Wave:
    """`wave` with its verdict weighed and kept, and its context let go (every pod's sighting,
    the balances, the audit): what a long-running caller keeps between analyses. Its diagnosis
    is no longer weighed against that context."""
    v = verdict_of(wave)
    kept = replace(wave, context=None)
    kept.__dict__["verdict"] = v
    return kept


def diagnosis_of(wave: Wave) -> tuple[Finding, ...]:
    """Its findings, heaviest toward its verdict first."""
    kept = wave.__dict__
    d = kept.get("diagnosis")
    if d is None:
        d = kept["diagnosis"] = order_findings(diagnose(wave, wave.context), verdict_of(wave))
    return d
