"""Grouping by cause on hand-made losses (grouping.py, chains.py): splits, strays, slow burns, decoys."""

from __future__ import annotations

from datetime import timedelta

from sagan_tui.core.triage import TriageContext, find_waves
from sagan_tui.core.triage.forming import find_forming
from sagan_tui.core.triage.grouping import split
from sagan_tui.core.triage.verdict import verdict_of
from sagan_tui.core.triage.grouping import signature_of

from .conftest import CONTROL, HEALTH, R4, R5, at, loss

# personal's balance reads $0 from 10:55:30 on (a balance history row per change)
BROKE_HISTORY = {"personal": [(at("10:40:00"), 4.0, False), (at("10:55:30"), 0.0, True)],
                 "team": [(at("10:40:00"), 400.0, False)]}


def _reaper_and_stop():
    """team killed ~62-73 s after RUNNING, then personal's three pods (2-4 min old) at $0."""
    reaped = [loss(f"reapteam00{i}", "team", 400 + i, f"10:54:{10 + 5 * i:02d}", f"10:55:{12 + 5 * i + k:02d}",
                   host=f"h-r{i}") for i, k in enumerate((0, 3, 6, 9))]
    broke = [loss(f"brokepers0{i}", "personal", 500 + i, f"10:5{1 + i}:40", f"10:55:{35 + 3 * i}", dc="EU-RO-1",
                  host=f"h-b{i}") for i in range(3)]
    return reaped, broke


def test_a_reaper_and_a_balance_stop_in_one_run_are_two_waves():
    reaped, broke = _reaper_and_stop()
    ctx = TriageContext(sightings=[CONTROL], health=HEALTH, balances=BROKE_HISTORY,
                        accounts_polled=("team", "personal"))
    waves = find_waves(reaped + broke, context=ctx)
    assert [sorted(w.pod_ids) for w in waves] == [sorted(x.pod_id for x in reaped), sorted(x.pod_id for x in broke)]
    reaper, stop = waves
    assert (signature_of(reaper).kind, signature_of(stop).kind) == ("kill-time", "account-stop")
    assert (verdict_of(reaper).cause, verdict_of(stop).cause) == ("platform-reaper", "account-stop")
    assert "personal ran out" in signature_of(stop).statement
    # without the balance history nothing tells them apart: one wave, as before issue 42
    (whole,) = find_waves(reaped + broke, context=TriageContext(sightings=[CONTROL]))
    assert len(whole.losses) == 7


def test_a_dead_host_and_a_stray_leave_the_stray_out_and_name_it():
    dead = [loss(f"deadhost0{i}", "team", 600 + i % 2, running, f"10:30:0{i}", host="ks2-h17")
            for i, running in enumerate(("10:28:56", "10:25:00", "10:10:00", "09:49:00"))]
    stray = loss("strayloss01", "personal", 700, "10:27:00", "10:30:24", dc="EU-RO-1", host="ro1-h02")
    (w,) = find_waves([*dead, stray])
    assert set(w.pod_ids) == {x.pod_id for x in dead} and [x.pod_id for x in w.unrelated] == ["strayloss01"]
    v = verdict_of(w)
    assert v.cause == "host-failure" and "ks2-h17" in v.next_step
    assert v.unrelated and v.unrelated[0].startswith("strayloss01 (personal, on ro1-h02, 3 min 24 s after RUNNING)")
    assert v.to_json()["unrelated"] == list(v.unrelated)


def test_losses_that_share_nothing_stay_one_wave_that_reads_unclear():
    three = [loss("unrel000001", "team", 1, "10:00:00", "10:01:30", host="h-a"),
             loss("unrel000002", "personal", 2, "10:02:30", "10:03:00", dc="EU-RO-1", host="h-b"),
             loss("unrel000003", "team", 3, "10:00:20", "10:04:20", dc="US-TX-3", host="h-c")]
    (w,) = find_waves(three)
    assert len(w.losses) == 3 and w.unrelated == () and signature_of(w).kind == "time"
    assert verdict_of(w).cause == "unclear" or verdict_of(w).confidence == "low"


def test_the_long_running_bystander_stays_in_the_reapers_wave():
    (w,) = find_waves(R5)
    assert set(w.pod_ids) == {x.pod_id for x in R5} and signature_of(w).kind == "kill-time"
    assert split(list(w.losses), None).unrelated == ()


def _slow(n: int, every_s: int = 240, kill_s: int = 60):
    t0 = at("11:00:00")
    return [loss(f"slowburn0{i}", ("team", "personal")[i % 2], 800 + i,
                 (t0 + timedelta(seconds=every_s * i)).strftime("%H:%M:%S"),
                 (t0 + timedelta(seconds=every_s * i + kill_s + i % 2)).strftime("%H:%M:%S")) for i in range(n)]


def test_a_slow_burn_is_forming_at_its_second_loss_and_a_wave_at_its_third():
    two, three = _slow(2), _slow(3)
    assert find_waves(two) == [] and [c.pod_ids for c in find_forming(two, [])] == [("slowburn00", "slowburn01")]
    (w,) = find_waves(three)
    assert w.pod_ids == ("slowburn00", "slowburn01", "slowburn02") and verdict_of(w).cause == "platform-reaper"
    assert find_waves(three, horizon_minutes=3) == []  # 4 minutes apart: past a 3-minute horizon
    assert find_waves(three, guard_minutes=0) == []  # following off turns the slow burn off too


def test_decoys_a_lone_failure_between_a_slow_burns_losses_joins_nothing():
    alone = loss("failalone01", "team", 900, "10:42:00", "11:02:30", host="h-z")  # 20 min old
    waves = find_waves([*_slow(3), alone])
    assert [w.pod_ids for w in waves] == [("slowburn00", "slowburn01", "slowburn02")]
    assert find_forming([alone, *_slow(1)], []) == []  # different kill times: nothing forming


def test_r4_and_r5_read_as_before():
    ctx = TriageContext(sightings=[CONTROL], health=HEALTH, accounts_polled=("team", "personal"))
    waves = find_waves(R4 + R5, context=ctx)
    assert [len(w.losses) for w in waves] == [8]  # one wave of two bursts, as the following rule makes it
    assert verdict_of(waves[0]).cause == "platform-reaper"


def test_the_runner_up_is_the_best_other_cause_with_evidence_and_its_strongest():
    ctx = TriageContext(sightings=[CONTROL], health=HEALTH, accounts_polled=("team", "personal"))
    (w,) = find_waves(R5, context=ctx)
    v = verdict_of(w)
    cause, score, why = v.runner_up
    assert cause != v.cause and score == dict(v.scores)[cause]
    # account-stop -4 (survivors, two accounts), host-failure -3; account-action weighed nothing
    # at all (no audit log read), so it is no competitor
    assert (cause, score, why) == ("host-failure", -3, "spread over 2 data centres (EU-RO-1, US-KS-2): not one machine")
    assert v.runner_up_text == f"{cause} {score:+d}: {why}" and v.to_json()["runner_up"]["cause"] == cause
