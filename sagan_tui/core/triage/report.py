"""The incident report: Markdown an owner can read at 3 a.m. and paste into a support ticket."""

from __future__ import annotations

from datetime import datetime
from typing import Iterable, Sequence

from sagan_tui.core.models import Loss
from sagan_tui.wire.safe_text import one_line
from sagan_tui.wire import fmt
from sagan_tui.core.triage.diagnosis import Finding, TriageContext, diagnose, survivors
from sagan_tui.core.triage.billed import burn_lines, ticket_suffix
from sagan_tui.core.triage.gaps import gap_of
from sagan_tui.core.triage.summary import IncidentSummary, summarize
from sagan_tui.core.triage.syslog_evidence import syslog_section
from sagan_tui.core.triage.grouping import signature_of
from sagan_tui.core.triage.verdict import Verdict, diagnosis_of, order_findings, verdict, verdict_of
from sagan_tui.core.triage.waves import Wave, active_wave

TABLE_HEAD = ("| run | exp | pod | account | RUNNING at | lost at | gap |", "|---|---|---|---|---|---|---|")
LONG_RUNNING = "long-running, killed in the same window"


def _cell(text: object) -> str:
    # Record fields are untrusted text: one line, and no pipe may end a table cell early.
    return one_line(text, limit=10_000).replace("|", "\\|")


def _line(text: str) -> str:
    return " ".join(text.split())


def loss_row(loss: Loss, long_running: bool = False) -> str:
    """One row of DOMAIN.md's table; a long-running pod among short-lived ones is named as such."""
    g = gap_of(loss)
    gap = "—" if g is None else LONG_RUNNING if long_running else f"~{fmt.duration(g)}"
    run = loss.run_id[:8] if loss.run_id else "—"
    cells = (run, fmt.exp(loss.experiment) if loss.experiment is not None else "—", loss.pod_id, loss.account,
             fmt.hms(loss.running_at), fmt.hms(loss.lost_at), gap)
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def loss_table(losses: Iterable[Loss], long_running: Iterable[str] = ()) -> list[str]:
    """DOMAIN.md's table; pods whose ids are in `long_running` are marked so in the gap column."""
    longs = set(long_running)
    return [*TABLE_HEAD, *(loss_row(x, x.pod_id in longs) for x in losses)]


# Findings whose per-pod evidence the wave's table already shows (a gap, or a gap times a price).
PER_POD_IN_TABLE = frozenset({"gaps", "burn"})


def _findings(findings: Iterable[Finding], in_table: Iterable[str] = ()) -> list[str]:
    """Statements with their evidence; per-pod lines the table already holds are left out."""
    prefixes = tuple(f"{p}:" for p in in_table)
    out = []
    for f in findings:
        out.append(f"- {_line(f.statement)}")
        skip = prefixes if f.kind in PER_POD_IN_TABLE else ()
        out.extend(f"  - {_line(e)}" for e in f.evidence
                   if not (skip and (e.startswith(skip) or e.startswith("... and "))))
    return out


def _counted(values: Iterable[str | None]) -> str:
    counts: dict[str, int] = {}
    for v in values:
        counts[v or "?"] = counts.get(v or "?", 0) + 1
    return ", ".join(f"{k} ({n})" for k, n in sorted(counts.items(), key=lambda kv: (kv[0] == "?", -kv[1], kv[0])))


def _ticket(wave: Wave, evidence=None) -> list[str]:
    lines = [f"RunPod pods terminated without a stop request, {fmt.day(wave.start)} "
             f"{fmt.window(wave.start, wave.end, seconds=True)}:"]
    lines += [f"{x.pod_id}  account={x.account}  lost {fmt.hms(x.lost_at)} UTC{ticket_suffix(x.pod_id, evidence or {})}"
              for x in wave.losses]
    return ["```text", *lines, "```"]


def verdict_lines(v: Verdict) -> list[str]:
    """The verdict as Markdown: its line, then what speaks for it and against it, with evidence."""
    out = [f"**{v.title}**: {_line(v.next_step)}", ""]
    for label, findings in (("For", v.for_), ("Against", v.against)):
        if findings:
            out += [f"{label}:", "", *_findings(findings), ""]
    if v.missing:
        out += ["Missing evidence:", "", *(f"- {_line(m)}" for m in v.missing), ""]
    if v.runner_up:
        out += [f"Runner-up: {_line(v.runner_up_text)}", ""]
    if v.unrelated:
        out += ["Left out of this wave (issue 42's grouping):", "", *(f"- {_line(u)}" for u in v.unrelated), ""]
    return out


def burst_lines(wave: Wave) -> list[str]:
    """The wave's rounds when it holds more than one (the following rule of waves.py)."""
    if len(wave.bursts) < 2:
        return []
    rows = [f"- {fmt.window(b.start, b.end, seconds=True)}: {len(b.losses)} pod{'s' * (len(b.losses) != 1)} "
            f"({', '.join(b.accounts)}): {', '.join(b.pod_ids)}" for b in wave.bursts]
    return [f"**{len(wave.bursts)} bursts**, each inside the guard of the one before, at the same signature:",
            "", *rows, ""]


def _wave_section(i: int, wave: Wave, context: TriageContext | None, now: datetime, active: bool) -> list[str]:
    head = f"## Wave {i}: {fmt.day(wave.start)} {fmt.window(wave.start, wave.end, seconds=True)}, " \
           f"{', '.join(wave.accounts)} ({len(wave.losses)} pods)"
    v = verdict(wave, context) if context is not None else verdict_of(wave)
    out = [head, "", *verdict_lines(v), f"Signature: {_line(signature_of(wave).statement)}.", "", *burst_lines(wave)]
    if active:
        out += [f"**Active**: last loss {fmt.duration((now - wave.end).total_seconds())} ago. "
                "Do not re-dispatch into it.", ""]
    exps = _counted(fmt.exp(x.experiment) if x.experiment is not None else None for x in wave.losses)
    out += [f"Scope: accounts {_counted(x.account for x in wave.losses)}; experiments {exps}; "
            f"data centers {_counted(x.datacenter for x in wave.losses)}; GPUs {_counted(x.gpu for x in wave.losses)}.",
            "", *loss_table(wave.losses, (x.pod_id for x in wave.long_running())), ""]
    findings = order_findings(diagnose(wave, context), v) if context is not None else list(diagnosis_of(wave))
    evidence = context.evidence if context is not None else {}
    out += ["**Diagnosis**", "", *_findings(findings, wave.pod_ids), "",
            *syslog_section(wave, (context or wave.context or TriageContext()).syslog),
            "**Burn: RunPod's billing beside the estimate**", "", *burn_lines(wave, evidence), "",
            "**Pod ids for a RunPod support ticket**", "", *_ticket(wave, evidence), ""]
    return out


def _next_steps(waves: Sequence[Wave], context: TriageContext | None) -> list[str]:
    accounts = list(dict.fromkeys(a for w in waves for a in w.accounts))
    steps = []
    for acc in accounts:
        spans = ", ".join(f"{fmt.day(w.start)} {fmt.audit_window(w.start, w.end)}" for w in waves if acc in w.accounts)
        ids = [x.pod_id for w in waves for x in w.losses if x.account == acc]
        steps.append(f"Open the RunPod console of **{acc}**, audit log for {spans}: look for podTerminate, "
                     f"billing alerts, API-key revocations or capacity-reclaim notices covering {fmt.listed(ids)}.")
    health = context.health if context is not None else {}
    known = [f"{a} {fmt.usd(h.balance)}" for a in accounts if (h := health.get(a)) and h.balance is not None]
    steps.append(f"Check the balance and spend limit of {', '.join(accounts)} for the day"
                 + (f" (last polled: {', '.join(known)})." if known else "."))
    lost = {x.pod_id for w in waves for x in w.losses}
    sightings = context.sightings if context else ()
    control = sorted({s.pod_id for w in waves for s in survivors(w, sightings)
                      if s.pod_id not in lost and not s.gone and s.desired_status in (None, "RUNNING")})
    if control:
        verb, it = ("is", "it") if len(control) == 1 else ("are", "they")
        steps.append(f"Check that the control pod{'s' * (len(control) > 1)} {fmt.listed(control, 3)} {verb} still "
                     f"running: if {it} vanished too, the event is account-wide or wider.")
    steps.append("If the accounts show the same cause (or none), open a RunPod support ticket with the pod ids above.")
    exps = sorted({e for w in waves for e in w.experiments})
    held = ", ".join(map(fmt.exp, exps)) or "the affected experiments"
    steps.append(f"Hold recovery and re-dispatch of {held} until the cause is cleared; then re-dispatch one pod "
                 "and watch it past the gap before releasing the rest.")
    return [f"{i}. {s}" for i, s in enumerate(steps, 1)]


def render_report(waves: Sequence[Wave], context: TriageContext | None, now: datetime,
                  since: datetime | None = None, all_losses: Iterable[Loss] | None = None) -> str:
    """The incident report over `waves` (and the losses outside them), as Markdown: its headline
    and sections both read one IncidentSummary (core/triage/summary.py), so they cannot disagree."""
    return render_summary(summarize(waves, all_losses, since), context, now)


def render_summary(summary: IncidentSummary, context: TriageContext | None, now: datetime) -> str:
    waves = summary.waves
    live = active_wave(waves, now)
    out = [f"# Pod losses: {summary.span}", "",
           f"Generated {fmt.day(now)} {fmt.hms(now)} UTC. {summary.headline()}", ""]
    if not waves:
        out += ["No reaping wave: no run of losses close enough together to call one.", ""]
    for i, w in enumerate(waves, 1):
        out += _wave_section(i, w, context, now, w is live)
    if summary.singles:
        out += ["## Losses outside any wave", "", *loss_table(summary.singles), "",
                f"Burn outside any wave: estimate {fmt.usd(summary.singles_burn_usd)}.", ""]
    if waves:
        out += ["## Next steps (owner)", "", *_next_steps(waves, context), ""]
    return "\n".join(out)
