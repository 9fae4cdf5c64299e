"""The unrequested-exit rule on its own: readings, billing modes, the audit log, requested stops."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sagan_tui.core.models import Loss, RunPodPod
from sagan_tui.core.sources.runpod_base import AuditEntry
from sagan_tui.core.sync.exits import judge, ran_out

T0 = datetime(2026, 5, 14, 10, 0, tzinfo=timezone.utc)


def at(s: float) -> datetime:
    return T0 + timedelta(seconds=s)


def pending(pod_id: str = "exitedpod01") -> Loss:
    return Loss(pod_id=pod_id, account="personal", running_at=at(0), last_seen_at=at(100), lost_at=at(110),
                cost_per_hr=1.49)


def exited(pod_id: str = "exitedpod01", status: str = "EXITED") -> RunPodPod:
    return RunPodPod.model_validate({"id": pod_id, "account": "personal", "desiredStatus": status})


def test_a_balance_reading_counts_from_the_one_in_force_at_the_poll_before_to_the_poll_after():
    readings = [(at(0), 5.0, False), (at(90), 0.0, True), (at(200), 10.0, False)]
    assert ran_out(readings, at(100), at(110)) == (at(90), 0.0)  # in force at the poll before
    assert ran_out([(at(0), 5.0, False), (at(105), 0.0, None)], at(100), at(110)) == (at(105), 0.0)
    assert ran_out([(at(0), 5.0, False), (at(150), 0.0, None)], at(100), at(110)) is None  # after: not it
    assert ran_out([(at(0), 0.04, True)], at(100), at(110)) == (at(0), 0.04)  # under balance, above $0


def judged(mode="PREPAID", readings=((at(105), 0.0, True),), requested=(), audit=None, status="EXITED"):
    return judge("personal", [pending()], {"exitedpod01": exited(status=status)}, requested=set(requested),
                 known_losses=set(), readings=list(readings), billing_mode=mode, audit=audit)


def test_an_exit_when_the_prepaid_balance_ran_out_is_a_loss_with_its_reason():
    (loss,) = judged().losses
    assert loss.pod_id == "exitedpod01" and "balance ran out" in loss.reason and loss.cost_per_hr == 1.49


def test_a_postpaid_account_or_a_fine_balance_leaves_it_unknown():
    for out in (judged(mode="POSTPAID"), judged(readings=[(at(0), 50.0, False)])):
        assert not out.losses and out.unknown == ["exitedpod01"]


def test_a_requested_stop_or_a_pod_running_again_is_nothing():
    for out in (judged(requested=["exitedpod01"]), judged(status="RUNNING")):
        assert not out.losses and not out.unknown


def test_the_audit_log_naming_who_stopped_it_makes_it_a_loss_whatever_the_balance():
    entry = AuditEntry("exitedpod01", "api-key:cron", "pod.stop", "2026-05-14T10:01:45Z")
    (loss,) = judged(mode="POSTPAID", readings=[(at(0), 50.0, False)], audit={"exitedpod01": entry}).losses
    assert loss.reason == "pod.stop by api-key:cron (audit log)"
