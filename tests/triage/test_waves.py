"""Waves: the incident's r4 and r5 come out as DOMAIN.md tells them; scattered losses make none."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sagan_tui.core.triage import Timeline, TriageContext, Wave, active_wave, find_waves
from sagan_tui.core.triage.verdict import diagnosis_of, verdict_of
from sagan_tui.core.triage.waves import wave_spans

from .conftest import CONTROL, HEALTH, R4, R5, at, loss


def test_r5_is_one_wave_of_exactly_those_five_pods():
    (wave,) = find_waves(R5)
    assert set(wave.pod_ids) == {"v0c7bx292xqvg4", "m1ayhl6nsbxw04", "lqpfpmbytlgded", "j0xvy1q82ryo8m",
                                 "cv13x9s487tvwn"}
    assert (wave.start, wave.end) == (at("10:54:54"), at("10:54:55"))
    assert set(wave.accounts) == {"team", "personal"} and wave.accounts[0] == "team"  # most losses first
    assert wave.experiments == (192, 333, 363, 366)
    assert 59 <= wave.gap_median_s <= 61
    assert wave.gap_spread_s <= 2
    assert [x.pod_id for x in wave.long_running()] == ["lqpfpmbytlgded"]
    assert wave.gpu_types == ("A100 80GB",) and wave.datacenters == ("US-KS-2", "EU-RO-1")


def test_r5_diagnosis_rules_out_an_account_only_cause():
    (wave,) = find_waves(R5, context=TriageContext(accounts_polled=("team", "personal")))
    scope = next(f for f in diagnosis_of(wave) if f.kind == "accounts")
    assert scope.statement.startswith("spans both accounts (team, personal): not an account-only cause")
    assert any("j0xvy1q82ryo8m" in e for e in scope.evidence)
    gaps = next(f for f in diagnosis_of(wave) if f.kind == "gaps")
    assert "gaps cluster at 60 s" in gaps.statement and "systematic reaper" in gaps.statement


def test_r4_is_a_team_only_wave():
    (wave,) = find_waves(R4, context=TriageContext(health=HEALTH, accounts_polled=("team", "personal")))
    assert wave.accounts == ("team",) and len(wave.losses) == 3
    scope = next(f for f in diagnosis_of(wave) if f.kind == "accounts")
    assert scope.statement.startswith("only account team: check that account")
    assert any(e.startswith("personal: polled OK") for e in scope.evidence)


def test_r4_and_r5_are_one_wave_of_two_bursts_the_same_reaper_inside_r4s_guard():
    (wave,) = find_waves(R5 + R4)
    assert [b.pod_ids for b in wave.bursts] == [tuple(x.pod_id for x in R4), find_waves(R5)[0].pod_ids]
    assert (wave.start, wave.end) == (R4[0].lost_at, at("10:54:55"))
    assert verdict_of(wave).cause == "platform-reaper"  # both accounts: the true cause, not r4's billing guess


def test_without_following_r4_and_r5_are_two_waves_in_order():
    waves = find_waves(R5 + R4, guard_minutes=0)
    assert [len(w.losses) for w in waves] == [3, 5]
    assert waves[0].end < waves[1].start
    assert [len(w.bursts) for w in waves] == [1, 1]


def test_re_dispatches_lost_at_the_kill_time_minutes_later_join_the_active_wave_and_extend_its_guard():
    redispatched = [loss("q8r1zt5mk0pv3e", running="10:45:00", lost="10:46:01"),
                    loss("b4y7wn2gx6cj9s", running="10:45:15", lost="10:46:16")]  # 2.3 min after r4's third
    (wave,) = find_waves(R4 + redispatched)
    assert wave.pod_ids[-2:] == ("q8r1zt5mk0pv3e", "b4y7wn2gx6cj9s") and wave.end == at("10:46:16")
    assert len(wave.bursts) == 1  # within three kill times of r4's last loss: the same round's re-dispatches
    assert active_wave([wave], at("10:46:16") + timedelta(minutes=15)) is wave
    assert find_waves(R4 + redispatched, guard_minutes=0)[0].pod_ids == tuple(x.pod_id for x in R4)


def test_a_later_loss_with_another_kill_time_or_past_the_guard_stays_outside():
    other_time = loss("othertime00001", running="10:40:00", lost="10:47:11")  # 431 s after RUNNING
    too_late = loss("toolate0000001", running="10:58:10", lost="10:59:11")  # 61 s, but 15.5 min on
    (wave,) = find_waves(R4 + [other_time, too_late])
    assert wave.pod_ids == tuple(x.pod_id for x in R4)


def test_a_host_failure_takes_in_later_losses_on_the_same_machine_only():
    dead = [loss(f"hostpod{i:07d}", running=f"10:{30 + 3 * i}:00", lost=f"10:40:0{i}", host="h-17") for i in range(3)]
    later = [loss("samehost000001", running="10:20:00", lost="10:48:00", host="h-17"),
             loss("otherhost00001", running="10:20:00", lost="10:48:30", host="h-99")]
    (wave,) = find_waves(dead + later)
    assert "samehost000001" in wave.pod_ids and "otherhost00001" not in wave.pod_ids


def test_scattered_single_losses_make_no_wave():
    lonely = [loss(f"pod{i:010d}", lost=f"1{i}:00:00") for i in range(6)]
    assert find_waves(lonely) == []


def test_gap_and_min_losses_are_honoured():
    three = [loss(f"pod{i:010d}", lost=f"10:0{i}:00") for i in range(3)]  # 60 s apart
    assert len(find_waves(three)) == 1
    assert find_waves(three, gap=59) == []
    assert find_waves(three, min_losses=4) == []
    assert len(find_waves(three, gap=60)) == 1  # "within gap" includes gap itself


def test_wave_of_and_timeline_give_the_same_waves():
    assert find_waves(Timeline(R5)) == find_waves(R5) == [Wave.of(R5)]
    with pytest.raises(ValueError):
        Wave.of([])


def test_ties_are_ordered_by_content_not_input_order():
    a = find_waves(R5)[0].pod_ids
    b = find_waves(list(reversed(R5)))[0].pod_ids
    assert a == b == ("cv13x9s487tvwn", "j0xvy1q82ryo8m", "lqpfpmbytlgded", "m1ayhl6nsbxw04", "v0c7bx292xqvg4")


def test_burn_counts_unknown_prices_apart():
    rows = [*R5[:4], loss("nopricepod0001", cost=None, lost="10:54:56")]
    (wave,) = find_waves(rows)
    assert wave.burn_unknown == 1
    expected = sum(x.cost_per_hr * x.gap_s / 3600 for x in R5[:4])
    assert wave.burn_usd == pytest.approx(expected)


def test_active_wave_within_guard_minutes_only():
    waves = find_waves(R4 + R5, guard_minutes=0)
    assert active_wave(waves, at("10:55:30")) is waves[1]
    assert active_wave(waves, at("10:54:55") + timedelta(minutes=15)) is waves[1]
    assert active_wave(waves, at("10:54:55") + timedelta(minutes=15, seconds=1)) is None
    assert active_wave(waves, at("10:50:00"), guard_minutes=10) is waves[0]
    assert active_wave([], at("10:50:00")) is None


def test_survivors_control_pod_named():
    ctx = TriageContext(sightings=(CONTROL,), accounts_polled=("team", "personal"))
    (wave,) = find_waves(R5, context=ctx)
    found = next(f for f in diagnosis_of(wave) if f.kind == "survivors")
    assert "j18eiux6ccekyj (team, #365)" in found.statement


def test_losses_without_a_running_time_never_match_a_kill_time():
    # Their gap is unknown (NaN in the gap column): neither a single loss nor a run of them joins.
    unknown = [loss("norun000000001", running=None, lost="10:46:01")]
    unknown_run = [loss(f"norunrun{i:06d}", running=None, lost=f"10:49:0{i}") for i in range(3)]
    waves = find_waves(R4 + unknown + unknown_run)
    assert [w.pod_ids for w in waves] == [tuple(x.pod_id for x in R4), tuple(x.pod_id for x in unknown_run)]


@pytest.mark.parametrize("min_losses,spans", [
    (1, [(0, 1), (1, 4), (4, 6), (6, 7), (7, 10)]),
    (2, [(1, 4), (4, 6), (7, 10)]),
    (3, [(1, 4), (7, 10)]),
    (4, []),
])
def test_runs_of_the_chaining_gap_are_maximal_and_at_least_min_losses_long(min_losses, spans):
    # successive gaps: 100, 10, 10, 91, 90 (exactly the chaining gap: chained), 200, 300, 0, 0
    times = [0.0, 100.0, 110.0, 120.0, 211.0, 301.0, 501.0, 801.0, 801.0, 801.0]
    assert wave_spans(times, 90.0, min_losses) == spans
    assert wave_spans([], 90.0, min_losses) == []
    assert wave_spans([5.0], 90.0, min_losses) == ([(0, 1)] if min_losses == 1 else [])
