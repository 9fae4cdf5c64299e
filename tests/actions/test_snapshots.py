"""SVG snapshots of the approval screen and the guarded re-dispatch dialog, on fixed data."""

from __future__ import annotations

from datetime import datetime, timezone

from textual.app import App, ComposeResult
from textual.widgets import Static

from sagan_tui.core.actions.results import ActionResult
from sagan_tui.core.models import ApprovalRequest, Experiment, Loss
from sagan_tui.core.triage import check_dispatch
from sagan_tui.panel.screens.approval import ApprovalScreen
from sagan_tui.panel.screens.guard import GuardedDispatchScreen

from .conftest import BODY

DAY = datetime(2026, 5, 14, tzinfo=timezone.utc)


def at(hms: str) -> datetime:
    h, m, s = map(int, hms.split(":"))
    return DAY.replace(hour=h, minute=m, second=s)


# DOMAIN.md's r5 table.
R5 = [("v0c7bx292xqvg4", "team", 192, "10:53:54", "10:54:55"), ("m1ayhl6nsbxw04", "team", 363, "10:53:54", "10:54:54"),
      ("lqpfpmbytlgded", "team", 366, "10:44:53", "10:54:54"),
      ("j0xvy1q82ryo8m", "personal", 333, "10:53:55", "10:54:54"),
      ("cv13x9s487tvwn", "personal", 333, "10:53:55", "10:54:54")]


class ScreenHost(App):
    def __init__(self, screen_factory):
        super().__init__()
        self.screen_factory = screen_factory

    def compose(self) -> ComposeResult:
        yield Static("panel")

    def on_mount(self) -> None:
        self.push_screen(self.screen_factory())


async def _never(decision, answers, note) -> ActionResult:
    raise AssertionError("a snapshot must not decide")


def approval() -> ApprovalRequest:
    return ApprovalRequest(id="req-503", experiment_number=503, kind="experiment_plan", requested_by="agent",
                           title="Plan: sparse probes [b]literal[/b]", body_md=BODY * 3)


def guard_screen() -> GuardedDispatchScreen:
    losses = [Loss(pod_id=p, account=a, experiment=n, running_at=at(r), lost_at=at(lost), cost_per_hr=1.49,
                   gpu="A100 80GB", datacenter="US-KS-2" if a == "team" else "EU-RO-1")
              for p, a, n, r, lost in R5]
    dispatches = [(192, "k3m8qz0v2xw7ta", at("10:39:00")), (192, "v0c7bx292xqvg4", at("10:53:00"))]
    verdict = check_dispatch(192, losses, dispatches, at("10:56:30"), 15)
    exp = Experiment(id="e192", number=192, status="approved", runpod_account="team",
                     title="Persona-tagged SFT: is taught content retrievable across system prompts?")
    return GuardedDispatchScreen(exp, verdict)


async def _body_rendered(pilot) -> None:
    body = pilot.app.screen.query_one("#approval-body")
    while not body.rendered:
        await pilot.pause(0.05)
    await pilot.pause()


def test_approval_screen(snap_compare):
    app = ScreenHost(lambda: ApprovalScreen(approval(), _never))
    assert snap_compare(app, terminal_size=(100, 34), run_before=_body_rendered)


def test_approval_screen_read_only_at_80x24(snap_compare):
    app = ScreenHost(lambda: ApprovalScreen(approval(), None))
    assert snap_compare(app, terminal_size=(80, 24), run_before=_body_rendered)


def test_guarded_redispatch_dialog_opens_with_the_focus_in_its_input(snap_compare):
    assert snap_compare(ScreenHost(guard_screen), terminal_size=(100, 34))


def test_guarded_redispatch_dialog_at_80x24_with_the_number_typed(snap_compare):
    async def type_number(pilot) -> None:
        await pilot.press("1", "9", "2")  # no focus move first: the dialog opens in its input

    assert snap_compare(ScreenHost(guard_screen), terminal_size=(80, 24), run_before=type_number)
