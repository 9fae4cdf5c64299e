"""Properties of waves and the grid over arbitrary losses (hypothesis, few examples: the suite stays fast)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sagan_tui.core.models import Loss
from sagan_tui.core.triage import build_grid, find_waves
from sagan_tui.core.triage.timeline import Timeline
from sagan_tui.core.triage.waves import HORIZON_MINUTES
from sagan_tui.core.triage.verdict import diagnosis_of

T0 = datetime(2026, 5, 14, 10, 0, tzinfo=timezone.utc)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

losses_st = st.lists(
    st.builds(
        lambda i, off, acc, exp, dc: Loss(pod_id=f"pod{i:08d}", account=acc, experiment=exp, datacenter=dc,
                                          lost_at=T0 + timedelta(seconds=off), running_at=T0 + timedelta(seconds=off - 60)),
        st.integers(0, 10**6), st.integers(0, 3600), st.sampled_from(["team", "personal"]),
        st.one_of(st.none(), st.integers(1, 5)), st.one_of(st.none(), st.sampled_from(["US-KS-2", "EU-RO-1"]))),
    max_size=40)


@SETTINGS
@given(losses_st, st.floats(1, 300), st.integers(1, 5))
def test_waves_partition_and_separation(losses, gap, min_losses):
    waves = find_waves(losses, gap=gap, min_losses=min_losses, guard_minutes=0)
    seen = [id(x) for w in waves for x in w.losses]
    assert len(seen) == len(set(seen))  # every loss in at most one wave
    for w in waves:
        assert len(w.losses) >= min_losses
        times = [x.lost_at for x in w.losses]
        assert times == sorted(times) and (times[0], times[-1]) == (w.start, w.end)
        assert all((b - a).total_seconds() <= gap for a, b in zip(times, times[1:]))
    for a, b in zip(waves, waves[1:]):
        assert (b.start - a.end).total_seconds() > gap


@SETTINGS
@given(losses_st, st.floats(1, 300), st.integers(1, 5), st.floats(0.1, 60))
def test_following_only_adds_to_the_runs_it_follows(losses, gap, min_losses, guard):
    runs = find_waves(losses, gap=gap, min_losses=min_losses, guard_minutes=0)
    waves = find_waves(losses, gap=gap, min_losses=min_losses, guard_minutes=guard)
    seen = [id(x) for w in waves for x in w.losses]
    assert len(seen) == len(set(seen))  # every loss in at most one wave
    for run in runs:  # every run of the chaining gap lies whole inside exactly one wave
        assert sum({id(x) for x in run.losses} <= {id(x) for x in w.losses} for w in waves) == 1
    for w in waves:
        times = [x.lost_at for x in w.losses]
        assert times == sorted(times) and (times[0], times[-1]) == (w.start, w.end)
        assert [x for b in w.bursts for x in b.losses] == list(w.losses)
        # A slow burn (chains.py) chains lone losses of one kill time across the horizon too.
        reach = max(gap, guard * 60, HORIZON_MINUTES * 60)
        assert all((b - a).total_seconds() <= reach + 1e-6 for a, b in zip(times, times[1:]))


@SETTINGS
@given(losses_st, st.randoms(use_true_random=False))
def test_analysis_does_not_depend_on_input_order(losses, rnd):
    shuffled = list(losses)
    rnd.shuffle(shuffled)
    a, b = find_waves(losses), find_waves(shuffled)
    assert a == b
    assert [diagnosis_of(w) for w in a] == [diagnosis_of(w) for w in b]
    ga = build_grid(losses, "datacenter", T0, T0 + timedelta(hours=1), 30, a)
    gb = build_grid(shuffled, "datacenter", T0, T0 + timedelta(hours=1), 30, b)
    assert ga == gb


@SETTINGS
@given(losses_st, st.integers(0, 3600), st.integers(0, 3600), st.integers(1, 200),
       st.sampled_from(["account", "experiment", "datacenter", "gpu"]))
def test_grid_counts_every_loss_in_the_window_once(losses, a, b, width, dimension):
    start, end = T0 + timedelta(seconds=min(a, b)), T0 + timedelta(seconds=max(a, b))
    grid = build_grid(losses, dimension, start, end, width)
    inside = [x for x in losses if start <= x.lost_at <= end]
    assert grid.total == len(inside)
    assert len(grid.bucket_starts) <= width and all(len(r) == len(grid.bucket_starts) for r in grid.counts)
    assert sum(len(grid.cell_losses(r, c)) for r in range(len(grid.rows)) for c in range(len(grid.bucket_starts))) \
        == len(inside)
    assert grid.max_count == max((max(r) for r in grid.counts), default=0)


@SETTINGS
@given(losses_st, st.integers(0, 3600), st.integers(0, 3600), st.integers(1, 60), st.floats(1, 300),
       st.randoms(use_true_random=False))
def test_the_grid_marks_the_columns_each_run_spans_in_any_order_and_from_any_timeline(losses, a, b, width, gap, rnd):
    """Plain runs (no following): a column is marked exactly when a run's span, cut to the window,
    reaches it; the waves' order and the Timeline they were found on do not matter."""
    start, end = T0 + timedelta(seconds=min(a, b)), T0 + timedelta(seconds=max(a, b))
    waves = find_waves(losses, gap=gap, min_losses=2, guard_minutes=0)
    grid = build_grid(losses, "account", start, end, width, waves)
    expected = set()
    for w in waves:
        lo, hi = max(w.start, start), min(w.end, end)
        if lo <= hi:
            expected.update(range(grid.column_of(lo), grid.column_of(hi) + 1))
    assert grid.wave_columns == expected
    shuffled = list(waves)
    rnd.shuffle(shuffled)
    assert build_grid(losses, "account", start, end, width, shuffled).wave_columns == expected
    foreign = find_waves(Timeline(losses), gap=gap, min_losses=2, guard_minutes=0)  # another Timeline's waves
    assert build_grid(losses, "account", start, end, width, foreign).wave_columns == expected
    mixed = [f if i % 2 else w for i, (w, f) in enumerate(zip(waves, foreign))]
    rnd.shuffle(mixed)
    assert build_grid(losses, "account", start, end, width, mixed).wave_columns == expected
