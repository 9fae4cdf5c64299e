"""Dispatch guard: typed confirmation during an active wave or after two lost dispatches in a row."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sagan_tui.core.triage import Dispatch, check_dispatch, dispatches_from, find_waves

from .conftest import CONTROL, R4, R5, at, loss

LOSSES = R4 + R5
HISTORY = dispatches_from(LOSSES, [CONTROL])


def test_active_wave_needs_typed_confirmation():
    v = check_dispatch(365, LOSSES, HISTORY, at("10:57:00"))
    assert v.needs_typed_confirmation and v.wave is not None and v.wave.end == at("10:54:55")
    # r5 came inside r4's guard at r4's kill time: one wave of both bursts
    assert v.summary.startswith("Reaping wave 10:41") and "8 pods lost in team, personal, ~61 s after RUNNING" in v.summary
    assert v.reasons[0].startswith(v.summary)
    # #365 never lost a pod: the price is the wave's ($1.49/h), for at least its ~60 s gap
    assert 1.49 * 59 / 3600 <= v.expected_burn_usd <= 1.49 * 180 / 3600


def test_not_after_guard_minutes():
    later = at("10:54:55") + timedelta(minutes=15, seconds=1)
    v = check_dispatch(365, LOSSES, HISTORY, later)
    assert not v.needs_typed_confirmation and v.wave is None and v.reasons == () and v.summary == ""
    assert check_dispatch(365, LOSSES, HISTORY, at("10:58:00"), guard_minutes=2).wave is None


def test_last_two_dispatches_lost_needs_typed_confirmation_even_without_a_wave():
    later = at("12:00:00")
    v = check_dispatch(333, LOSSES, HISTORY, later)  # h8d2 (r4), then both personal pods (r5)
    assert v.needs_typed_confirmation and v.wave is None
    assert v.summary.startswith("#333 lost its last 2 dispatches")
    assert v.expected_burn_usd > 0 and any(f"${v.expected_burn_usd:.2f}" in r for r in v.reasons)
    recovered = [*HISTORY, Dispatch(333, "okokokokokokok", at("11:30:00"))]
    assert not check_dispatch(333, LOSSES, recovered, later).needs_typed_confirmation
    assert not check_dispatch(366, LOSSES, HISTORY, later).needs_typed_confirmation  # only one loss


def test_given_waves_are_used_and_prices_come_from_the_experiment():
    pricey = [loss(f"h100pod{i:07d}", exp=7, gpu="H100", cost=2.99, lost=f"11:00:0{i}", running="10:59:00")
              for i in range(3)]
    waves = find_waves(pricey)
    v = check_dispatch(7, pricey, [], at("11:01:00"), waves=waves)
    assert v.wave is waves[0]
    cheap = check_dispatch(7, [x.model_copy(update={"cost_per_hr": 1.49}) for x in pricey], [], at("11:01:00"))
    assert v.expected_burn_usd == pytest.approx(cheap.expected_burn_usd * 2.99 / 1.49)
    assert not check_dispatch(7, pricey, [], at("11:01:00"), waves=[]).needs_typed_confirmation


def test_a_forming_cluster_arms_the_guard_like_a_wave():
    pair = R5[:2]
    v = check_dispatch(365, pair, [], at("10:56:00"))
    assert v.needs_typed_confirmation and v.wave is None
    assert [c.pod_ids for c in v.forming] == [("m1ayhl6nsbxw04", "v0c7bx292xqvg4")]
    assert v.summary == "WATCH: 2 pods lost 1 s apart, both ~60 s after RUNNING"
    assert not check_dispatch(365, pair[:1], [], at("10:56:00")).needs_typed_confirmation
