"""The wave response: what a wave's verdict calls for, as lines the owner ticks (pure: the dialog only shows it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Protocol

from sagan_tui.wire import fmt
from sagan_tui.core.triage.canary import watch_seconds
from sagan_tui.core.triage.summary import IncidentSummary
from sagan_tui.core.triage.verdict import ACCOUNT, HOST, REAPER, Verdict, verdict_of
from sagan_tui.core.triage.waves import Wave

HOLD, DISMISS, TICKET = "hold", "dismiss", "ticket"
# An experiment in one of these is not re-dispatched by Sagan's recovery: holding it is moot.
NOT_DISPATCHING = frozenset({"blocked", "completed", "done_experiment", "done_impl", "failed", "cancelled",
                             "archived", "shared"})
NOTE_MAX = 500  # the hold note is sent as is; the runner's audit keeps 500 characters of it


class ExperimentLike(Protocol):
    number: int
    status: str
    runpod_account: str | None


@dataclass(frozen=True)
class ResponseLine:
    """One checkbox of the dialog: what it does, to which targets (named and counted)."""

    key: str  # hold, dismiss, ticket
    label: str  # short, for the checkbox: `Hold 4 experiments`
    detail: str = ""  # why and which, on the line below: `whose recovery would re-dispatch ...: #192, #363`
    targets: tuple[str, ...] = ()
    checked: bool = False
    enabled: bool = True  # "dismiss nothing" is a statement, not a choice


@dataclass(frozen=True)
class Proposal:
    verdict: Verdict
    lines: tuple[ResponseLine, ...]
    holds: tuple[int, ...]  # the experiments the hold line sends
    note: str  # the hold note, prefilled with the verdict line and the pod ids
    left_out: tuple[str, ...] = ()  # experiments not proposed, with why

    def line(self, key: str) -> ResponseLine:
        return next(x for x in self.lines if x.key == key)


CANARY = "canary"


def _accounts_in_question(wave: Wave, v: Verdict) -> tuple[str, ...]:
    """For an account stop, the accounts whose balance ran out (else the wave's only account)."""
    return tuple(a for a, _ in v.broke if a in wave.accounts) or tuple(wave.accounts)


def propose(wave: Wave, experiments: Mapping[int, ExperimentLike], verdict: Verdict | None = None,
            ticket: IncidentSummary | None = None) -> Proposal:
    """The response to `wave` by its verdict: hold the experiments whose recovery would re-dispatch
    into it (only the broke account's for an account stop), dismiss nothing, export the ticket.
    Defaults follow the verdict; `unclear` ticks nothing. `ticket` is the incident the exported
    report covers (every wave since the last acknowledgement): its line counts what the file holds."""
    v = verdict or verdict_of(wave)
    scope = _accounts_in_question(wave, v) if v.cause == ACCOUNT else tuple(wave.accounts)
    lost_exp = {}
    for x in wave.losses:
        if x.experiment is not None:
            lost_exp.setdefault(x.experiment, x.account)
    holds, left_out = [], []
    for n in sorted(lost_exp):
        exp = experiments.get(n)
        account = (exp.runpod_account if exp is not None and exp.runpod_account else None) or lost_exp[n]
        if v.cause == ACCOUNT and account not in scope:
            left_out.append(f"#{n} ({account}: not the account that stopped)")
        elif exp is None:
            left_out.append(f"#{n} (not in the cache yet)")
        elif exp.status in NOT_DISPATCHING:
            left_out.append(f"#{n} (already {exp.status})")
        else:
            holds.append(n)
    ids = [x.pod_id for x in wave.losses]
    note = (f"Held by the owner: {v.headline}. Wave {fmt.window(wave.start, wave.end, seconds=True)}, "
            f"pods {', '.join(ids)}.")[:NOTE_MAX]
    where = f" of {', '.join(scope)}" if v.cause == ACCOUNT else ""
    why = ""
    if v.cause == ACCOUNT:
        said = "; ".join(text for _, text in v.broke)
        why = f" ({said})" if said else " (no balance ran out that the panel read: check it in the RunPod console)"
    sent = list(ticket.pod_ids) if ticket is not None and ticket.pods else ids
    covers = "" if ticket is None or len(ticket.waves) < 2 else f" ({len(ticket.waves)} waves, {ticket.span})"
    n = len(holds)
    default = v.cause in (REAPER, HOST, ACCOUNT)
    lines = (
        ResponseLine(HOLD, f"Hold {n} experiment{'s' * (n != 1)}{where}",
                     f"whose recovery would re-dispatch into the wave{why}: "
                     f"{fmt.listed([f'#{n}' for n in holds]) or 'none'}",
                     tuple(f"#{n}" for n in holds), checked=default and bool(holds), enabled=bool(holds)),
        ResponseLine(DISMISS, "Dismiss nothing", f"the {len(ids)} lost pods stay in the losses, the waves and "
                                                 "the ticket", (), checked=False, enabled=False),
        ResponseLine(TICKET, f"Export the ticket for RunPod with {len(sent)} pod id{'s' * (len(sent) != 1)}",
                     f"file + clipboard{covers}: {fmt.listed(sent, 5)}", tuple(sent), checked=v.cause in (REAPER, HOST)),
        # The way out, stated (not sent from here): one held experiment tried before the rest.
        ResponseLine(CANARY, "Then the canary (C on one held experiment)",
                     f"released and re-dispatched through the guard, watched past "
                     f"{fmt.duration(watch_seconds(wave.gap_median_s))} (kill time + margin); "
                     "the rest are released (U) only if it lives", (), checked=False, enabled=False),
    )
    return Proposal(v, lines, tuple(holds), note, tuple(left_out))
