"""Dispatch guard: whether re-dispatching an experiment needs its number typed, and why."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Iterable, Sequence

from sagan_tui.core.models import Loss
from sagan_tui.wire import fmt
from sagan_tui.core.triage.diagnosis import Dispatch
from sagan_tui.core.triage.gaps import gap_of, median
from sagan_tui.core.triage.waves import Wave, active_wave, find_waves

# What one lost try costs, and where each number comes from (the guard prints the basis).
# RunPod bills compute per second (docs.runpod.io/accounts-billing/billing), so a try costs its
# price for the seconds from dispatch to loss: no hourly minimum. The run log of 2026-05-14 says
# a pod reports RUNNING "within ~40s of dispatch" and vanishes ~60 s later; its "~$1.50-3 of A100
# time for ~90s" is one to two hours at $1.49/h, not 90 s of it, so it is not used.
LOG_TO_RUNNING_S = 40.0
LOG_GAP_S = 60.0
MAX_RETRIES = 3  # pod_lifecycle.max_retries (DOMAIN.md): a lost try is followed by up to 3 more


@dataclass(frozen=True)
class GuardVerdict:
    needs_typed_confirmation: bool
    reasons: tuple[str, ...]
    wave: Wave | None  # the active wave, if any
    expected_burn_usd: float  # GPU time one more lost try would cost (0.0 when no price is known)
    summary: str  # one line for the "hold" note, "" when nothing is wrong
    burn_basis: str = ""  # how expected_burn_usd was reached: price, seconds and their sources
    forming: tuple = ()  # the active forming clusters (core/triage/forming.py) when no wave is active
    lost_two: tuple[str, ...] = ()  # the experiment's last two dispatches, both lost (a recovery loop)
    token: str = ""  # what the owner types to confirm ("" : the experiment's number)


def wave_summary(wave: Wave) -> str:
    """`Reaping wave 10:54:54-10:54:55 UTC: 5 pods lost in team, personal, ~60 s after RUNNING`:
    the window is the span of the losses' lost_at, to the second."""
    gap = "" if wave.gap_median_s is None else f", ~{fmt.duration(wave.gap_median_s)} after RUNNING"
    return (f"Reaping wave {fmt.window(wave.start, wave.end, seconds=True)}: {len(wave.losses)} pods lost in "
            f"{', '.join(wave.accounts)}{gap}")


def last_dispatches_lost(experiment: int, dispatches: Iterable[Sequence], lost_ids: set[str], n: int = 2) -> list[str]:
    """The pod ids of the experiment's last `n` dispatches when every one of them was lost, else []."""
    mine = sorted((Dispatch(*d) for d in dispatches if d[0] == experiment),
                  key=lambda d: (d.created_at is None, d.created_at or 0, d.pod_id))
    last = [d.pod_id for d in mine[-n:]]
    return last if len(last) == n and all(p in lost_ids for p in last) else []


@dataclass(frozen=True)
class TryCost:
    usd: float  # 0.0 when no price is known
    price_per_hr: float | None
    to_running_s: float
    gap_s: float
    basis: str  # every number with its source
    short: str  # the same in one short clause, for the dialog


def try_cost(experiment: int, losses: Sequence[Loss], wave: Wave | None,
             dispatches: Iterable[Sequence] = ()) -> TryCost:
    """GPU time of one more lost try: price x (dispatch to RUNNING + RUNNING to lost), each from
    the data when it has them, else from the run log, and the basis saying which."""
    own = sorted((x for x in losses if x.experiment == experiment), key=lambda x: x.lost_at)
    price = next((x.cost_per_hr for x in reversed(own) if x.cost_per_hr is not None), None)
    price_src = f"{fmt.exp(experiment)}'s last pod"
    if price is None and wave is not None:
        prices = [x.cost_per_hr for x in wave.losses if x.cost_per_hr is not None]
        price, price_src = (statistics.fmean(prices), "the wave's pods") if prices else (None, "")
    if wave is not None and wave.gap_median_s is not None:
        gap, gap_src = wave.gap_median_s, "wave median"
    elif own_gaps := [g for g in map(gap_of, own) if g is not None]:
        gap, gap_src = median(own_gaps), f"{fmt.exp(experiment)}'s lost pods"
    else:
        gap, gap_src = LOG_GAP_S, "the run log"
    setup, setup_src = _to_running(losses, dispatches)
    if price is None:
        return TryCost(0.0, None, setup, gap, "no price known for its pods", "")
    usd = price * (setup + gap) / 3600.0
    basis = (f"{fmt.usd(price)}/h ({price_src}) x {fmt.duration(setup + gap)} = {fmt.duration(setup)} dispatch to "
             f"RUNNING ({setup_src}) + {fmt.duration(gap)} to the loss ({gap_src}); RunPod bills per second")
    short = (f"{fmt.usd(price)}/h x {fmt.duration(setup)} to RUNNING{_tag(setup_src)} + {fmt.duration(gap)} "
             f"until lost{_tag(gap_src)}, billed per second")
    return TryCost(usd, price, setup, gap, basis, short)


def _tag(source: str) -> str:
    # The dialog names a source only where the number is not this incident's own.
    return " (run log)" if source == "the run log" else ""


def _to_running(losses: Sequence[Loss], dispatches: Iterable[Sequence]) -> tuple[float, str]:
    """Median seconds from dispatch to RUNNING of the lost pods whose dispatch time is known."""
    created = {d.pod_id: d.created_at for d in (Dispatch(*d) for d in dispatches) if d.created_at is not None}
    # Strictly positive: a history built from the polls dates a dispatch by its RUNNING time.
    spans = [s for x in losses if x.running_at is not None and x.pod_id in created
             and (s := (x.running_at - created[x.pod_id]).total_seconds()) > 0]
    if spans:
        return median(spans), f"median of {len(spans)} lost pod{'s' * (len(spans) != 1)}"
    return LOG_TO_RUNNING_S, "the run log"


def check_dispatch(experiment: int, losses: Sequence[Loss], dispatches: Iterable[Sequence], now: datetime,
                   guard_minutes: float = 15.0, waves: Sequence[Wave] | None = None) -> GuardVerdict:
    """Typed confirmation while a wave or a forming cluster is active, or when the experiment's
    last two dispatches were lost."""
    losses = list(losses)
    dispatches = list(dispatches)
    from sagan_tui.core.triage.forming import active_forming, find_forming

    waves = find_waves(losses, guard_minutes=guard_minutes) if waves is None else waves
    wave = active_wave(waves, now, guard_minutes)
    # A forming cluster arms the guard like a wave: the second loss is when a re-dispatch can
    # still be saved.
    forming = () if wave is not None else tuple(active_forming(find_forming(losses, waves), now, guard_minutes))
    lost_two = last_dispatches_lost(experiment, dispatches, {x.pod_id for x in losses})
    cost = try_cost(experiment, losses, wave, dispatches)
    reasons, summary = [], ""
    if wave is not None:
        summary = wave_summary(wave)
        reasons.append(f"{summary}; last loss {fmt.duration(max(0.0, (now - wave.end).total_seconds()))} ago")
    for c in forming:
        summary = summary or c.headline
        reasons.append(f"{c.headline} ({', '.join(c.pod_ids)}); last loss "
                       f"{fmt.duration(max(0.0, (now - c.end).total_seconds()))} ago")
    if lost_two:
        line = f"{fmt.exp(experiment)} lost its last 2 dispatches ({', '.join(lost_two)}): a recovery loop"
        reasons.append(line)
        summary = summary or line
    if reasons and cost.price_per_hr:
        reasons.append(f"one more lost try: ~{fmt.usd(cost.usd)} of GPU time ({cost.short}); "
                       f"~{fmt.usd(cost.usd * (MAX_RETRIES + 1))} if auto-recovery retries it {MAX_RETRIES} times")
    return GuardVerdict(bool(wave or forming or lost_two), tuple(reasons), wave, cost.usd, summary, cost.basis,
                        forming, tuple(lost_two), str(experiment))


# --- every dispatch path: approve, release, re-dispatch, canary -------------------------------

def plan_accounts(pod_spec: object, account: str | None) -> frozenset[str] | None:
    """The accounts a dispatch of this plan may land in: its pod spec's allowed accounts, else the
    experiment's own account; None (every account) when neither says: an approval with no account
    info must not slip past a wave in some account."""
    if isinstance(pod_spec, dict):
        policy = pod_spec.get("substitution_policy") or pod_spec.get("substitutionPolicy") or {}
        allowed = policy.get("allowed_accounts") or policy.get("allowedAccounts") if isinstance(policy, dict) else None
        named = allowed or pod_spec.get("account") or pod_spec.get("runpodAccount")
        if isinstance(named, str):
            return frozenset({named})
        if isinstance(named, (list, tuple)) and named:
            return frozenset(map(str, named))
    return frozenset({account}) if account else None


def hit_accounts(verdict: GuardVerdict) -> frozenset[str]:
    """The accounts the active wave or forming clusters lost pods in."""
    if verdict.wave is not None:
        return frozenset(verdict.wave.accounts)
    return frozenset(x.account for c in verdict.forming for x in c.losses)


def aimed_at(verdict: GuardVerdict, accounts: frozenset[str] | None) -> GuardVerdict:
    """The verdict for a dispatch into `accounts` (None: any): a wave elsewhere does not guard it,
    the experiment's own recovery loop always does."""
    if not verdict.needs_typed_confirmation or accounts is None or verdict.lost_two \
            or accounts & hit_accounts(verdict):
        return verdict
    return replace(verdict, needs_typed_confirmation=False, reasons=(), summary="")


def confirm_token(numbers: Sequence[int]) -> str:
    """What the owner types: the experiment's number, or for several the count of them (typing
    every number of a long mark list would train the owner to copy it without reading)."""
    numbers = list(dict.fromkeys(numbers))
    return str(numbers[0]) if len(numbers) == 1 else str(len(numbers))


def joined(verdicts: Sequence[GuardVerdict], token: str, armed: str = "") -> GuardVerdict:
    """One verdict for a dispatch of several experiments (or one), with `armed` (a reason the
    session knows, e.g. a canary just lost) adding its own demand for the typed token."""
    needing = [v for v in verdicts if v.needs_typed_confirmation]
    base = needing[0] if needing else (verdicts[0] if verdicts else
                                       GuardVerdict(False, (), None, 0.0, ""))
    reasons = list(dict.fromkeys(r for v in needing for r in v.reasons))
    if armed:
        reasons.insert(0, armed)
    return replace(base, needs_typed_confirmation=bool(needing or armed), reasons=tuple(reasons),
                   summary=armed or (base.summary if needing else ""), token=token,
                   expected_burn_usd=sum(v.expected_burn_usd for v in needing) or base.expected_burn_usd)
