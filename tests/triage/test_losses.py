"""Loss merging: one loss per pod from both sources; a requested stop is never a loss."""

from __future__ import annotations

from sagan_tui.core.models import PodLifecycle, RunPodPod
from sagan_tui.core.triage import merge_losses, parse_not_found, requested_stop

from .conftest import at, loss


def sagan_row(pod: str, **kw) -> PodLifecycle:
    base = dict(id=1, runpod_pod_id=pod, account="team", experiment_number=192, run_id="3d8f3042-aaaa",
                gpu_type_id="NVIDIA A100 80GB PCIe", status="retrying", cost_per_hr=1.49,
                last_started_at=at("10:53:54"), last_checked_at=at("10:55:20"),
                last_error=f"Pod {pod} not found in account=team")
    return PodLifecycle(**{**base, **kw})


def test_parse_not_found():
    assert parse_not_found("Pod v0c7bx292xqvg4 not found in account=personal") == ("v0c7bx292xqvg4", "personal")
    assert parse_not_found("recovery: Pod `m1ayhl6nsbxw04` not found in account=team.") == ("m1ayhl6nsbxw04", "team")
    assert parse_not_found("Pod … not found in account=…") is None
    assert parse_not_found(None) is None and parse_not_found("") is None


def test_poll_and_sagan_evidence_become_one_loss():
    poll = loss("v0c7bx292xqvg4", exp=None, running="10:53:54", lost="10:54:55", cost=None,
                last_seen_at=at("10:54:50"))
    (merged,) = merge_losses([poll], [sagan_row("v0c7bx292xqvg4")])
    assert merged.source == "runpod-poll+sagan"
    assert merged.lost_at == at("10:54:55")  # the poll's, earlier than Sagan's 10:55:20
    assert merged.experiment == 192 and merged.run_id.startswith("3d8f3042")
    assert merged.gpu == "A100 80GB" and merged.datacenter == "US-KS-2"  # poll's machine facts kept
    assert merged.cost_per_hr == 1.49 and merged.running_at == at("10:53:54")
    assert "not found in account=team" in merged.reason


def test_merge_is_idempotent():
    poll = loss("v0c7bx292xqvg4", last_seen_at=at("10:54:50"), reason="vanished while RUNNING")
    rows = [sagan_row("v0c7bx292xqvg4")]
    once = merge_losses([poll], rows)
    assert merge_losses(once, rows) == once


def test_a_lost_at_before_the_last_sighting_is_not_credible():
    poll = loss("v0c7bx292xqvg4", running="10:53:54", lost="10:55:10", last_seen_at=at("10:55:00"))
    early = sagan_row("v0c7bx292xqvg4", last_checked_at=at("10:54:30"))  # before the pod was last seen
    (merged,) = merge_losses([poll], [early])
    assert merged.lost_at == at("10:55:10")


def test_sagan_terminated_without_a_stop_request_is_a_loss():
    row = sagan_row("m1ayhl6nsbxw04", status="terminated", last_error=None, terminated_at=at("10:54:58"))
    (only,) = merge_losses([], [row])
    assert only.source == "sagan" and only.lost_at == at("10:54:58") and only.reason == "terminated"


def test_account_comes_from_the_not_found_message():
    row = sagan_row("j0xvy1q82ryo8m", account="team", last_error="Pod j0xvy1q82ryo8m not found in account=personal")
    assert merge_losses([], [row])[0].account == "personal"


def test_stops_requested_by_sagan_are_never_losses():
    for kw in ({"status": "stop_requested"}, {"status": "stopped"}, {"desired_status": "stopped"},
               {"stopped_at": at("10:54:00")}):
        row = sagan_row("cv13x9s487tvwn", **kw)
        assert requested_stop(row)
        # ... not even when a poll saw the pod go
        assert merge_losses([loss("cv13x9s487tvwn")], [row]) == []


def test_stops_requested_by_the_owner_are_never_losses():
    polls = [loss("cv13x9s487tvwn"), loss("j0xvy1q82ryo8m")]
    out = merge_losses(polls, [sagan_row("cv13x9s487tvwn")], owner_stops=frozenset({"cv13x9s487tvwn"}))
    assert [x.pod_id for x in out] == ["j0xvy1q82ryo8m"]


def test_a_pod_exited_by_runpod_is_a_loss_with_that_reason():
    reason = "Exited by Runpod: Thu May 14 2026 10:54:54 GMT+0000 (Coordinated Universal Time)"
    reaped = RunPodPod(id="lqpfpmbytlgded", account="team", desired_status="EXITED", last_status_change=reason,
                       gpu="A100 80GB", datacenter="US-KS-2", cost_per_hr=1.49)
    exited_by_owner = RunPodPod(id="j18eiux6ccekyj", account="team", desired_status="EXITED",
                                last_status_change="Exited by user")
    (only,) = merge_losses([], [], [reaped, exited_by_owner])
    assert only.pod_id == "lqpfpmbytlgded" and only.reason == reason and only.lost_at == at("10:54:54")
    undated = RunPodPod(id="lqpfpmbytlgded", account="team", desired_status="EXITED",
                        last_status_change="Exited by Runpod")
    assert merge_losses([], [], [undated]) == []  # no time to place it
    assert merge_losses([], [], [undated], seen_at=at("10:55:00"))[0].lost_at == at("10:55:00")


def test_output_is_ordered_and_has_one_loss_per_pod():
    polls = [loss("bbbbbbbbbbbbbb", lost="10:54:55"), loss("aaaaaaaaaaaaaa", lost="10:54:55"),
             loss("cccccccccccccc", lost="10:54:10"), loss("aaaaaaaaaaaaaa", lost="10:54:56")]
    assert [x.pod_id for x in merge_losses(polls, [])] == ["cccccccccccccc", "aaaaaaaaaaaaaa", "bbbbbbbbbbbbbb"]
