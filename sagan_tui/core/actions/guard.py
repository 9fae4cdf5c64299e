"""The dispatch guard and the incident report, fed from the cache: triage's pure functions, given data."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Sequence

from sagan_tui.wire.safe_text import clean_document
from sagan_tui.core.store.cache import Cache
from sagan_tui.core.triage import (
    Dispatch, GuardVerdict, TriageContext, Wave, active_wave, check_dispatch, dispatches_from, find_waves,
    render_report,
)


def dispatch_history(cache: Cache) -> list[Dispatch]:
    """Every experiment's pods in dispatch order: Sagan's records first, the polls' for pods Sagan never listed."""
    seen: dict[str, Dispatch] = {}
    for p in cache.sagan_pods():
        if p.experiment_number is not None:
            seen[p.runpod_pod_id] = Dispatch(p.experiment_number, p.runpod_pod_id, p.created_at)
    for d in dispatches_from(cache.losses(), cache.sightings()):
        seen.setdefault(d.pod_id, d)
    return sorted(seen.values(), key=lambda d: (d.created_at is None, d.created_at or 0, d.pod_id))


def triage_context(cache: Cache) -> TriageContext:
    """What the diagnosis may look at: sightings, balances, dispatches, undismissed losses."""
    losses = cache.losses()
    sightings = cache.sightings()
    health = cache.health()
    polled = sorted({*(h for h in health if h != "sagan"), *(x.account for x in losses),
                     *(s.account for s in sightings)})
    return TriageContext(sightings=sightings, health=health, dispatches=dispatch_history(cache),
                         accounts_polled=polled, losses=losses, balances=cache.balance_history(),
                         evidence=cache.loss_rows.evidence(), syslog=cache.loss_rows.syslog())


def dispatch_verdict(cache: Cache, number: int, now: datetime, guard_minutes: float) -> GuardVerdict:
    """Whether re-dispatching `number` now needs its number typed, and the wave and burn to show."""
    return check_dispatch(number, cache.losses(), dispatch_history(cache), now,
                          guard_minutes)


def guard_for(cache: Cache, numbers: Sequence[int], now: datetime, guard_minutes: float, *,
              accounts: frozenset[str] | None = None, armed: str = "") -> GuardVerdict:
    """The guard of one dispatch path (approve, release, re-dispatch, canary) for `numbers`: typed
    confirmation while a wave or forming cluster that reaches `accounts` is active, for an
    experiment in a recovery loop, or when the session `armed` it (a canary just lost)."""
    from sagan_tui.core.triage.guard import aimed_at, confirm_token, joined

    numbers = list(dict.fromkeys(int(n) for n in numbers))
    losses, history = cache.losses(), dispatch_history(cache)
    waves = find_waves(losses, guard_minutes=guard_minutes)  # once for every number
    verdicts = [aimed_at(check_dispatch(n, losses, history, now, guard_minutes, waves), accounts) for n in numbers]
    return joined(verdicts, confirm_token(numbers) if numbers else "", armed)


def guard_of(cache: Cache, verb: str, numbers: Sequence[int], now: datetime, guard_minutes: float,
             armed: str = "") -> GuardVerdict:
    """`guard_for` as a dispatch path asks it: approving dispatches into its plan's accounts only,
    the other paths (release, re-dispatch, canary) wherever the experiment's next pod lands."""
    accounts = None
    if verb == "approve":
        from sagan_tui.core.triage.guard import plan_accounts

        spans = [plan_accounts(e.pod_spec, e.runpod_account) if (e := cache.experiment(int(n))) else None
                 for n in numbers]
        accounts = None if None in spans or not spans else frozenset().union(*spans)
    return guard_for(cache, numbers, now, guard_minutes, accounts=accounts, armed=armed)


def current_wave(cache: Cache, now: datetime, guard_minutes: float) -> Wave | None:
    return active_wave(find_waves(cache.losses(), guard_minutes=guard_minutes), now, guard_minutes)


def hold_note(cache: Cache, now: datetime, guard_minutes: float) -> str:
    """The note a hold is prefilled with: the active wave's one line, when there is one."""
    from sagan_tui.core.triage import wave_summary

    wave = current_wave(cache, now, guard_minutes)
    return f"Held by the owner: {wave_summary(wave)}." if wave is not None else ""


def incident_report(cache: Cache, now: datetime, guard_minutes: float = 15.0) -> str:
    """Every wave since the owner's last acknowledgement (all of them when none): the night's
    incident, not only the wave on screen; a wave still going at the acknowledgement stays whole."""
    ctx = triage_context(cache)
    waves = find_waves(ctx.losses, context=ctx, guard_minutes=guard_minutes)
    return render_report(waves, ctx, now, since=cache.incident_rows.last_acknowledged(), all_losses=ctx.losses)


def export_report(cache: Cache, now: datetime, directory: Path, guard_minutes: float = 15.0) -> tuple[Path, str]:
    """Write the incident report as `incident-YYYYmmddTHHMMSSZ.md` in `directory`; (path, text)."""
    # The file and the clipboard copy of it (OSC 52) carry the sources' strings: cleaned here,
    # where the text leaves the session, whatever the report's renderers did.
    text = clean_document(incident_report(cache, now, guard_minutes))
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"incident-{now.strftime('%Y%m%dT%H%M%SZ')}.md"
    n = 1
    while path.exists():  # two exports in one second keep both
        path = directory / f"incident-{now.strftime('%Y%m%dT%H%M%SZ')}-{n}.md"
        n += 1
    path.write_text(text, encoding="utf-8")
    return path, text
