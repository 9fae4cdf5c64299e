"""Models: lenient where servers are sloppy, strict where it matters (pod ids)."""

from sagan_tui.core.models import (
    ApprovalRequest, Experiment, KNOWN_STATUSES, OWNER_TURN_STATUSES, RunPodPod, parse_records,
    textbox_fields, turn_for, valid_pod_id,
)


def test_all_28_statuses_known_and_owner_turns():
    assert len(KNOWN_STATUSES) == 28
    assert OWNER_TURN_STATUSES == {
        "awaiting_clarifications", "gate_pending", "plan_pending", "awaiting_approval",
        "reviewing", "awaiting_promotion", "blocked",
    }
    assert turn_for("running") == "Sagan: run and verify"
    assert turn_for("archived") == "no active owner action"


def test_unknown_status_kept_and_flagged():
    e = Experiment.model_validate({"id": "x", "number": 5, "status": "quantum_pending", "someNewField": 1})
    assert e.status == "quantum_pending" and not e.status_known
    assert e.effective_turn == "no active owner action"


def test_bad_record_skipped_rest_kept():
    good, bad = parse_records(Experiment, [{"id": "a", "number": 1}, {"id": "b", "number": "x"}, {"id": "c", "number": 3}], "experiments")
    assert [e.number for e in good] == [1, 3]
    assert len(bad) == 1 and "experiments[1]" in bad[0] and "number" in bad[0]


def test_textbox_fields_parsed_in_order_once():
    body = "Plan\n[TEXTBOX:owner-decision] and [TEXTBOX:budget_usd]\nagain [TEXTBOX:owner-decision]"
    assert textbox_fields(body) == ["owner-decision", "budget_usd"]
    a = ApprovalRequest.model_validate({"id": "r1", "bodyMd": body})
    assert a.textbox_fields == ["owner-decision", "budget_usd"]


def test_pod_id_validation():
    assert valid_pod_id("v0c7bx292xqvg4")
    for bad in ['abc"}', "ABCDEFGH", "a b c d e f", "x" * 40, "", None, "abc\ndef12"]:
        assert not valid_pod_id(bad)
    reaped = RunPodPod(id="j0xvy1q82ryo8m", desired_status="EXITED", last_status_change="Exited by Runpod: 2026-05-14")
    assert reaped.reaped_reason and not reaped.running
