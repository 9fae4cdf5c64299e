"""Diagnosis: each statement the owner needs at 3 a.m., with the evidence behind it."""

from __future__ import annotations

from datetime import timedelta

from sagan_tui.core.models import ErrorKind, HealthState, PodSighting, SourceHealth
from sagan_tui.core.triage import Dispatch, TriageContext, Wave, diagnose, dispatches_from

from .conftest import CONTROL, HEALTH, R4, R5, at, loss

BOTH = ("team", "personal")


def findings(wave, **ctx):
    return {f.kind: f for f in diagnose(wave, TriageContext(**ctx))}


def test_r5_full_context():
    f = findings(Wave.of(R5), sightings=(CONTROL,), health=HEALTH, accounts_polled=BOTH, losses=R4 + R5)
    assert f["accounts"].statement.startswith("spans both accounts (team, personal)")
    assert "pods of the same accounts survived the window: j18eiux6ccekyj (team, #365)" in f["survivors"].statement
    assert any("personal: no other pod" in e for e in f["survivors"].evidence)
    assert "long-running" in f["long-running"].statement and "lqpfpmbytlgded (#366)" in f["long-running"].statement
    assert f["datacenter"].statement.startswith("spread over 2 data centers (US-KS-2, EU-RO-1)")
    assert f["gpu"].statement == "all on one GPU type A100 80GB: a reclaim of that GPU pool fits"
    assert f["burn"].statement.startswith("$0.35 of GPU time burned on 5 lost pods")
    balances = [x.statement for x in diagnose(Wave.of(R5), TriageContext(health=HEALTH))]
    assert "team balance $412.50, not under balance: not a balance stop" in balances
    assert "personal balance $35.00, not under balance: not a balance stop" in balances


def test_under_balance_is_named():
    broke = {"personal": SourceHealth(source="personal", balance=0.0, under_balance=True)}
    stmts = [x.statement for x in diagnose(Wave.of(R5), TriageContext(health=broke))]
    assert "personal under balance ($0.00) as last read: RunPod stops every pod of an account whose balance runs out" in stmts
    assert any(s.startswith("balance of team unknown") for s in stmts)


def test_r4_in_one_data_center_and_team_only_with_a_failing_personal_poll():
    failing = {"personal": SourceHealth(source="personal", state=HealthState.ERROR, error_kind=ErrorKind.AUTH)}
    f = findings(Wave.of(R4), health=failing, accounts_polled=BOTH)
    assert f["accounts"].statement == ("only account team: check that account (billing, spend limit, key rotation, "
                                       "audit log)")
    assert any("personal: its poll is failing (401)" in e for e in f["accounts"].evidence)
    assert f["datacenter"].statement == "all in one data center US-KS-2: regional capacity reclaim likely"


def test_no_survivor_points_account_wide():
    gone = PodSighting(pod_id="j18eiux6ccekyj", account="team", experiment=365, running_at=at("10:20:41"),
                       last_seen_at=at("10:54:30"), desired_status="RUNNING")
    f = findings(Wave.of(R5), sightings=(gone,))
    assert f["survivors"].statement.startswith("no pod of team, personal survived the window: points at an "
                                               "account-wide stop")
    other_account = PodSighting(pod_id="zzzzzzzzzzzzzz", account="third", running_at=at("10:00:00"),
                                last_seen_at=at("11:00:00"))
    f = findings(Wave.of(R5), sightings=(other_account,))
    assert f["survivors"].statement.startswith("no other pod of team, personal ran across the window")
    assert "survivors" not in findings(Wave.of(R5))  # no poll data: no claim


def test_gaps_spread_wide_is_not_a_reaper():
    rows = [loss(f"pod{i:010d}", running=r, lost=f"10:54:{50 + i}") for i, r in
            enumerate(["10:53:50", "10:44:00", "10:30:00", "10:51:00", "10:20:00"])]
    f = findings(Wave.of(rows))
    assert f["gaps"].statement.startswith("gaps after RUNNING spread from")
    assert "no single reaper timing" in f["gaps"].statement
    few = findings(Wave.of([loss("aaaaaaaaaaaaaa"), loss("bbbbbbbbbbbbbb", running=None)]))
    assert few["gaps"].statement.startswith("only 1 gap after RUNNING known")
    none = findings(Wave.of([loss("aaaaaaaaaaaaaa", running=None)]))
    assert none["gaps"].statement.startswith("RUNNING time unknown for every pod")


def test_repeated_losses_of_one_experiment_say_hold_it():
    r3 = loss("r3r3r3r3r3r3r3", exp=192, running="10:30:00", lost="10:31:01")
    history = [Dispatch(192, "r3r3r3r3r3r3r3", at("10:29:00")), Dispatch(192, "x3k9qa7m2tbw5e", at("10:39:30")),
               Dispatch(192, "v0c7bx292xqvg4", at("10:53:10"))]
    f = findings(Wave.of(R5), dispatches=history, losses=[r3, *R4, *R5])
    assert f["repeat"].statement == "#192 lost 3 dispatches in a row: a recovery loop burning money, hold it"
    assert f["repeat"].evidence[0].startswith("r3r3r3r3r3r3r3: lost 10:31:01 UTC")
    # A later dispatch that survived ends the streak; one from after the wave is not its story.
    ok = [*history, (192, "okokokokokokok", at("10:56:00"))]  # plain tuples work too
    assert findings(Wave.of(R5), dispatches=ok, losses=[r3, *R4, *R5])["repeat"].statement.startswith("#192 lost 3")
    survived = [*history[:2], Dispatch(192, "okokokokokokok", at("10:45:00")), history[2]]
    assert "repeat" not in findings(Wave.of(R5), dispatches=survived, losses=[r3, *R4, *R5])


def test_dispatches_from_polls_and_losses():
    ds = dispatches_from(R4 + R5, [CONTROL])
    assert Dispatch(365, "j18eiux6ccekyj", at("10:20:41")) in ds
    assert [d.created_at for d in ds] == sorted(d.created_at for d in ds)
    assert len({d.pod_id for d in ds}) == len(ds) == 9


def test_runpod_reason_is_evidence():
    why = "Exited by Runpod: Thu May 14 2026 10:54:54 GMT+0000"
    rows = [loss(f"pod{i:010d}", lost="10:54:54", reason=why) for i in range(3)]
    f = findings(Wave.of(rows))
    assert f["runpod-reason"].statement.startswith(f'RunPod says "{why}" for 3 pods')


def test_evidence_is_capped_for_huge_waves():
    rows = [loss(f"pod{i:010d}", lost="10:54:54", running="10:53:54") for i in range(500)]
    for f in diagnose(Wave.of(rows), TriageContext()):
        assert len(f.evidence) <= 12 and len(f.statement) < 300
    assert Wave.of(rows).end - Wave.of(rows).start == timedelta(0)
