"""The desk's plans job: open an experiment's approval request (`a`, the approvals pane's Enter) and decide it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import ApprovalView
    from sagan_tui.panel.desk import Desk


class PlanActions:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    def review_approval(self) -> None:
        desk = self.desk
        exp = desk.selection.selected_experiment()
        if exp is None:
            desk.notify("Select an experiment first.", severity="warning")
            return
        pending = [a for a in desk.view.approvals if a.experiment_number == exp.number]
        if pending:
            self.open_approval(pending[0])
            return

        def deferred(found: list) -> Any:  # a request the owner deferred stays reachable here
            if found:
                return self.open_approval(found[0])
            desk.notify(f"#{exp.number} has no pending approval request ({exp.status}).")
            return None

        number = exp.number
        desk.then(lambda: desk.session.approvals_of(number, "deferred"), deferred)

    def open_approval(self, approval: ApprovalView) -> Any:
        """Open one request; read-only shows it with its decisions refused (the desk's gate, per key)."""
        from sagan_tui.panel.registry import BY_ENTRY_ID
        from sagan_tui.panel.screens.approval import ApprovalScreen

        desk = self.desk
        submit, refused = None, None
        session = desk.session
        if not desk.read_only:
            async def submit(decision, answers, note):
                confirm = None
                if decision == "approve" and approval.experiment_number is not None:
                    confirm = await self._approve_guard(approval.experiment_number)
                    if confirm is False:  # backed out of the guard's dialog: audited, nothing sent
                        return await session.record_cancelled("approve", f"#{approval.experiment_number}",
                                                              detail="the dispatch guard's typed number")
                return await session.decide(approval, decision, answers, note, confirm or None)
        else:
            on = f"#{approval.experiment_number}" if approval.experiment_number is not None else approval.id

            def refused(decision: str) -> None:  # a decision key in read-only: audited like any other
                desk.refused(BY_ENTRY_ID[f"approval.{decision}"], on)

        return desk.host.push_screen(ApprovalScreen(approval, submit, refused=refused))

    async def _approve_guard(self, number: int) -> str | bool | None:
        """Approval makes Sagan dispatch: during a wave on the plan's accounts, the typed number
        (what was typed; False when the owner cancelled; None when no guard stands). Runs in the
        approval screen's worker, which waits for the dialog."""
        from sagan_tui.panel.screens.guard import GuardedDispatchScreen

        desk = self.desk
        verdict = await desk.session.dispatch_guard("approve", [number])
        exp = desk.view.experiments.get(number)
        if not verdict.needs_typed_confirmation or exp is None:
            return None
        typed = await desk.host.push_screen(GuardedDispatchScreen(exp, verdict, action="Approve"),
                                            wait_for_dismiss=True)
        return False if typed is None else typed
