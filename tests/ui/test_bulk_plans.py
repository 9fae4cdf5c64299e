"""Bulk plans (pure): what a bulk stop or hold acts on, what it skips and why, and what a filter hides."""

from datetime import datetime, timezone

from sagan_tui.panel.bulk_plans import plan_hold, plan_stop
from sagan_tui.core.actions.results import ActionResult
from sagan_tui.core.models import Experiment, RunPodPod
from sagan_tui.core.store.cache import CachedPod

T = datetime(2026, 5, 14, 10, 0, tzinfo=timezone.utc)


def pod(pid: str, status: str = "RUNNING", gone: str | None = None) -> CachedPod:
    return CachedPod(RunPodPod(id=pid, account="team", desired_status=status), T, T, T,
                     T if gone else None, gone)


def test_a_bulk_stop_skips_gone_exited_and_unknown_pods_naming_why():
    pods = {p.pod_id: p for p in (pod("runningpod0001"), pod("exitedpod00001", "EXITED"),
                                  pod("gonepod0000001", gone="vanished while RUNNING"))}
    plan = plan_stop(["runningpod0001", "exitedpod00001", "gonepod0000001", "unknownpod0001", "runningpod0001"],
                     pods)
    assert [t.pod_id for t in plan.targets] == ["runningpod0001"]
    assert [(s.target, s.why) for s in plan.skipped] == [
        ("exitedpod00001", "EXITED: already stopped"),
        ("gonepod0000001", "GONE (vanished while RUNNING)"),
        ("unknownpod0001", "not in the cache")]
    assert plan.warning().splitlines()[0] == "Skipped, not sent: exitedpod00001: EXITED: already stopped"


def test_a_bulk_hold_leaves_out_blocked_experiments():
    exps = {1: Experiment(id="a", number=1, status="running"), 2: Experiment(id="b", number=2, status="blocked")}
    plan = plan_hold([1, 2, 3], exps)
    assert plan.targets == (1, 3)
    assert plan.warning() == "Skipped, not sent: #2: already blocked (held)"


def test_the_warning_names_marked_targets_a_filter_hides_but_not_those_skipped_anyway():
    exps = {2: Experiment(id="b", number=2, status="blocked")}
    plan = plan_hold([1, 2, 5], exps)
    said = plan.warning(["#2", "#5"], "the filter /personal")
    assert said.splitlines() == ["Skipped, not sent: #2: already blocked (held)",
                                 "1 marked row is hidden by the filter /personal and included: #5"]
    many = plan_hold(range(20), {}).warning([f"#{n}" for n in range(9)], "the filter /x")
    assert many == "9 marked rows are hidden by the filter /x and included: #0, #1, #2, #3, #4, #5, +3 more"


def test_a_partly_done_bulk_action_is_titled_2_of_3_as_a_warning():
    part = lambda ok, **kw: ActionResult(ok=ok, message="", **kw)  # noqa: E731
    mixed = ActionResult(ok=False, message="", did="stopped", parts=(part(True), part(True), part(False)))
    assert (mixed.title, mixed.severity) == ("2 of 3 stopped", "warning")
    none = ActionResult(ok=False, message="", did="stopped", parts=(part(False), part(False)))
    assert (none.title, none.severity) == ("0 of 2 stopped", "error")
    refused = ActionResult(ok=False, message="", did="held", refused=True, parts=(part(False, refused=True),))
    assert (refused.title, refused.severity) == ("0 of 1 held", "warning")
    assert (ActionResult(ok=True, message="", did="held", parts=(part(True),)).title) == "1 of 1 held"
    assert (ActionResult(ok=False, message="", cancelled=True).title, ActionResult(ok=False, message="").title) == (
        "Cancelled", "Failed")
