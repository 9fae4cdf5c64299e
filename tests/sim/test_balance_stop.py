"""RunPod's stop at $0 in the simulator (sim/balance_stop.py): EXITED with a network volume,
terminated without, nothing for a pod that says neither, a POSTPAID account or a pod that ended first."""

from __future__ import annotations

import pytest

from sagan_tui.sim.balance_stop import EXIT_REASON, balance_stopped
from sagan_tui.sim.fixture import AccountSpec, PodSpec

BROKE = AccountSpec(api_key="rk-x", balance=[{"at": 0, "balance": 2.0}, {"at": 300, "balance": 0.0}])


def pod(**kw) -> PodSpec:
    return PodSpec.model_validate({"id": "stopme000001", "account": "personal", "created_at": 10,
                                   "running_at": 20, **kw})


def test_with_a_network_volume_the_pod_is_stopped_and_stays_listed():
    s = balance_stopped(pod(network_volume=True), BROKE)
    assert s.lost_at is None and 302 <= s.exited_at <= 309 and s.exit_reason == EXIT_REASON


def test_without_one_it_is_terminated_and_drops_out_of_the_list():
    s = balance_stopped(pod(network_volume=False), BROKE)
    assert s.exited_at is None and 302 <= s.lost_at <= 309


@pytest.mark.parametrize("spec, account", [
    (pod(), BROKE),  # says nothing: its script decides
    (pod(network_volume=False), BROKE.model_copy(update={"billing_mode": "POSTPAID"})),
    (pod(network_volume=False), AccountSpec(api_key="rk-y", balance=50.0)),
    (pod(network_volume=False, lost_at=200), BROKE),  # gone before the balance ran out
    (pod(network_volume=False, running_at=None), BROKE),  # never ran
])
def test_nothing_changes_otherwise(spec, account):
    assert balance_stopped(spec, account) == spec


def test_a_pod_that_starts_after_the_balance_ran_out_stops_just_after_running():
    s = balance_stopped(pod(network_volume=False, created_at=390, running_at=400), BROKE)
    assert 402 <= s.lost_at <= 409
