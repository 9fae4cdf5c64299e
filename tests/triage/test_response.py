"""The wave response's proposal, pure: which experiments, which lines, what is ticked, per verdict."""

from __future__ import annotations

from dataclasses import dataclass

from sagan_tui.core.models import Loss, SourceHealth
from sagan_tui.core.triage import TriageContext, Wave
from sagan_tui.core.triage.response import DISMISS, HOLD, TICKET, propose

from .conftest import CONTROL, HEALTH, R5, at


@dataclass
class Exp:
    number: int
    status: str
    runpod_account: str | None


EXPS = {192: Exp(192, "blocked", "team"), 363: Exp(363, "running", "team"), 366: Exp(366, "running", "team"),
        333: Exp(333, "implementing", "personal")}
BOTH = ("team", "personal")


def test_a_platform_reaper_proposes_holding_the_dispatching_experiments_and_the_ticket():
    w = Wave.of(R5, TriageContext(sightings=[CONTROL], health=HEALTH, accounts_polled=BOTH))
    p = propose(w, EXPS)
    assert p.verdict.cause == "platform-reaper"
    assert p.holds == (333, 363, 366)  # #192 is already blocked: its recovery dispatches nothing
    assert p.left_out == ("#192 (already blocked)",)
    hold, dismiss, ticket, canary = p.lines
    assert not canary.enabled and "re-dispatched through the guard, watched past 2 min" in canary.detail
    assert (hold.key, dismiss.key, ticket.key) == (HOLD, DISMISS, TICKET)
    assert hold.checked and ticket.checked and not dismiss.checked and not dismiss.enabled
    assert hold.label == "Hold 3 experiments" and hold.detail.endswith(": #333, #363, #366")
    assert ticket.label == "Export the ticket for RunPod with 5 pod ids" and len(ticket.targets) == 5
    assert p.note.startswith("Held by the owner: PLATFORM REAPER, high: hold re-dispatch")
    assert all(x.pod_id in p.note for x in R5)


def test_an_account_stop_holds_only_that_accounts_experiments_and_names_the_balance():
    personal = [x for x in R5 if x.account == "personal"] + [Loss(
        pod_id="p3x9q0w2e4r6t8", account="personal", experiment=334, running_at=at("10:40:00"),
        lost_at=at("10:54:56"))]
    broke = {"personal": SourceHealth(source="personal", state="ok", last_success=at("10:55:00"), balance=0.0,
                                      under_balance=True)}
    p = propose(Wave.of(personal, TriageContext(health=broke, accounts_polled=BOTH)),
                {**EXPS, 334: Exp(334, "running", "personal")})
    assert p.verdict.cause == "account-stop"
    assert p.holds == (333, 334)
    hold = p.line(HOLD)
    assert hold.checked and hold.label == "Hold 2 experiments of personal"
    assert "personal under balance ($0.00)" in hold.detail
    assert not p.line(TICKET).checked  # the balance is the owner's to fix, not RunPod's


def test_unclear_proposes_but_ticks_nothing():
    odd = [Loss(pod_id=f"oddpod{i:04d}", account="team", experiment=363, lost_at=at("10:54:54")) for i in range(3)]
    p = propose(Wave.of(odd), EXPS)
    assert p.verdict.cause == "unclear"
    assert p.holds == (363,) and not any(x.checked for x in p.lines)


def test_experiments_the_panel_does_not_know_are_left_out_and_named():
    p = propose(Wave.of(R5, TriageContext(sightings=[CONTROL], health=HEALTH)), {})
    assert p.holds == () and not p.line(HOLD).enabled and not p.line(HOLD).checked
    assert "#333 (not in the cache yet)" in p.left_out
