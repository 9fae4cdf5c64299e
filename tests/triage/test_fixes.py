"""The three issues other engineers reported, held fixed: the guard's cost, wave_summary's window, the spread."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sagan_tui.core.triage import Dispatch, TriageContext, check_dispatch, find_waves, wave_summary
from sagan_tui.core.triage.guard import LOG_TO_RUNNING_S, try_cost
from sagan_tui.core.triage.verdict import diagnosis_of

from .conftest import R4, R5, at, loss


def scaled(losses, factor: float):
    """The same losses with every RUNNING-to-lost gap multiplied by `factor` (what --speed does)."""
    return [x.model_copy(update={"running_at": x.lost_at - factor * (x.lost_at - x.running_at)}) for x in losses]


# --- (2) wave_summary names the losses' own span, to the second -----------------------

def test_wave_summary_window_is_the_span_of_lost_at():
    (wave,) = find_waves(R5)
    assert wave_summary(wave) == "Reaping wave 10:54:54-10:54:55 UTC: 5 pods lost in team, personal, ~60 s after RUNNING"
    (r4,) = find_waves(R4)
    assert wave_summary(r4).startswith("Reaping wave 10:41:02-10:43:41 UTC: 3 pods lost in team")


# --- (3) the spread is an IQR, the long-running pod is left out, at any time scale -----

@pytest.mark.parametrize("speed", [1, 8, 60])
def test_r5_at_any_speed_is_a_tight_cluster_without_the_long_running_pod(speed):
    (wave,) = find_waves(scaled(R5, 1 / speed), context=TriageContext())
    assert [x.pod_id for x in wave.long_running()] == ["lqpfpmbytlgded"]
    assert wave.gap_median_s == pytest.approx(59.5 / speed, rel=1e-3)  # datetimes keep microseconds
    assert wave.gap_spread_s == pytest.approx(1.25 / speed, rel=1e-3)  # IQR of 59, 59, 60, 61
    gaps = next(f for f in diagnosis_of(wave) if f.kind == "gaps")
    assert gaps.statement.startswith("gaps cluster at ") and "(IQR " in gaps.statement
    assert "4 of 5 pods" in gaps.statement and "±" not in gaps.statement


def test_the_speed_8_report_no_longer_reads_9_plus_minus_51():
    # What the simulator at --speed 8 gave: gaps ~7.5 s, the long-running pod 75 s, polls 2 s apart.
    rows = [loss(p, a, e, running=None, lost="10:54:55") for p, a, e in
            [("v0c7bx292xqvg4", "team", 192), ("m1ayhl6nsbxw04", "team", 363), ("j0xvy1q82ryo8m", "personal", 333),
             ("cv13x9s487tvwn", "personal", 333), ("lqpfpmbytlgded", "team", 366)]]
    gaps_s = [7.0, 8.0, 9.0, 8.0, 75.0]
    rows = [x.model_copy(update={"running_at": x.lost_at - timedelta(seconds=g),
                                 "last_seen_at": x.lost_at - timedelta(seconds=2)}) for x, g in zip(rows, gaps_s)]
    (wave,) = find_waves(rows)
    assert wave.gap_median_s == 8.0 and wave.gap_spread_s <= 1.0
    statement = next(f for f in diagnosis_of(wave) if f.kind == "gaps").statement
    assert statement.startswith("gaps cluster at 8 s after RUNNING (IQR ") and "51" not in statement


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 100), st.lists(st.floats(50, 70), min_size=3, max_size=12), st.floats(400, 5000))
def test_median_and_spread_scale_with_time_and_ignore_one_bystander(factor, cluster, bystander):
    rows = [loss(f"pod{i:010d}", running="10:00:00", lost="10:00:00") for i in range(len(cluster) + 1)]
    rows = [x.model_copy(update={"running_at": x.lost_at - timedelta(seconds=g * factor)})
            for x, g in zip(rows, [*cluster, bystander])]
    (wave,) = find_waves(rows)
    alone = find_waves(rows[:-1])[0]
    assert [x.pod_id for x in wave.long_running()] == [rows[-1].pod_id]
    assert wave.gap_median_s == pytest.approx(alone.gap_median_s)
    assert wave.gap_spread_s == pytest.approx(alone.gap_spread_s, abs=1e-6)
    (unscaled,) = find_waves(scaled(rows, 1 / factor))
    assert wave.gap_median_s == pytest.approx(unscaled.gap_median_s * factor)


def test_gaps_only_sagan_timed_are_not_called_a_reaper_timing_or_its_absence():
    rows = [loss(f"pod{i:010d}", running="10:53:54", lost=f"10:55:{10 + 9 * i:02d}", source="sagan")
            for i in range(4)]
    (wave,) = find_waves(rows)
    gaps = next(f for f in diagnosis_of(wave) if f.kind == "gaps")
    assert "as Sagan noticed the losses: too coarse" in gaps.statement
    assert any(e.startswith("4 of 4 timed only by Sagan") for e in gaps.evidence)


# --- (1) the cost of one more lost try, with where each number comes from --------------

def test_try_cost_from_the_run_log_when_the_data_has_no_dispatch_times():
    (wave,) = find_waves(R5)
    cost = try_cost(192, R4 + R5, wave)
    assert cost.to_running_s == LOG_TO_RUNNING_S and cost.gap_s == wave.gap_median_s
    assert cost.usd == pytest.approx(1.49 * (40 + 59.5) / 3600)
    assert "40 s dispatch to RUNNING (the run log)" in cost.basis and "RunPod bills per second" in cost.basis
    assert "(run log)" in cost.short and "billed per second" in cost.short


def test_try_cost_from_sagan_dispatch_times_when_known():
    (wave,) = find_waves(R5)
    dispatches = [Dispatch(192, "v0c7bx292xqvg4", at("10:53:24")), Dispatch(363, "m1ayhl6nsbxw04", at("10:53:34")),
                  Dispatch(192, "x3k9qa7m2tbw5e", at("10:40:01"))]  # polls' history: dated at RUNNING, ignored
    cost = try_cost(192, R4 + R5, wave, dispatches)
    assert cost.to_running_s == 25  # median of 30 s and 20 s
    assert "(median of 2 lost pods)" in cost.basis and "run log" not in cost.short


def test_the_guard_shows_gpu_time_and_the_retry_loop_never_a_made_up_figure():
    v = check_dispatch(192, R4 + R5, [], at("10:56:30"))
    line = next(r for r in v.reasons if r.startswith("one more lost try"))
    assert line.startswith(f"one more lost try: ~$0.04 of GPU time ($1.49/h x 40 s to RUNNING (run log) + 61 s until lost")
    assert "~$0.17 if auto-recovery retries it 3 times" in line
    assert "$1.50" not in " ".join(v.reasons) and v.burn_basis.startswith("$1.49/h (#192's last pod)")
    unpriced = [x.model_copy(update={"cost_per_hr": None}) for x in R5]
    v = check_dispatch(192, unpriced, [], at("10:56:30"))
    assert v.expected_burn_usd == 0.0 and v.burn_basis == "no price known for its pods"
    assert not any(r.startswith("one more lost try") for r in v.reasons)


# --- found reading the simulator's example report ----------------------------------------

def test_a_pod_started_after_sagan_timed_losses_may_have_gone_is_no_control():
    from sagan_tui.core.models import PodSighting

    # r4 as only Sagan saw it: RUNNING ~10:40, noticed gone 20-40 s after the pods really went.
    rows = [loss(f"pod{i:010d}", running=f"10:40:0{i}", lost=f"10:41:{30 + 4 * i}", source="sagan") for i in range(3)]
    early = PodSighting(pod_id="j18eiux6ccekyj", account="team", running_at=at("10:20:00"),
                        last_seen_at=at("10:45:00"), desired_status="RUNNING")
    late = PodSighting(pod_id="lqpfpmbytlgded", account="team", running_at=at("10:41:05"),  # before the notices
                       last_seen_at=at("10:45:00"), desired_status="RUNNING")
    (wave,) = find_waves(rows, context=TriageContext(sightings=(early, late)))
    found = next(f for f in diagnosis_of(wave) if f.kind == "survivors")
    assert "j18eiux6ccekyj" in found.statement and "lqpfpmbytlgded" not in found.statement
    # Timed by the polls, the same pod did run across the window.
    polled = [x.model_copy(update={"source": "runpod-poll", "last_seen_at": x.lost_at - timedelta(seconds=2)})
              for x in rows]
    (wave,) = find_waves(polled, context=TriageContext(sightings=(early, late)))
    assert "lqpfpmbytlgded" in next(f for f in diagnosis_of(wave) if f.kind == "survivors").statement
