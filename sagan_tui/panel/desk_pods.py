"""The desk's pods job: stop the selected pod, or every marked one, each re-checked with its account first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagan_tui.wire.channel.views import StopTargetView as StopTarget
from sagan_tui.panel.desk import pod_line

if TYPE_CHECKING:
    from sagan_tui.panel.desk import Desk


class PodActions:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    def stop_pod(self) -> None:
        desk = self.desk
        pod = desk.selection.selected_pod()
        if pod is None:
            desk.notify("Select a pod in the pods pane first.", severity="warning")
            return
        from sagan_tui.panel.screens.confirm import ConfirmScreen

        session, target = desk.session, StopTarget.of(pod)
        if pod.gone_at is not None:
            desk.call(lambda: session.stop([target]))  # refused by the re-check, with what changed
            return
        desk.host.push_screen(ConfirmScreen(
            f"Stop 1 pod: {pod.pod_id} ({pod.account})", [pod_line(pod)], confirm_label="Stop pod",
            note=f"Sent with the {pod.account} account's key after re-checking the pod with RunPod; "
                 "if it changed or vanished, nothing is sent."),
            desk.on_confirm(lambda: session.stop([target]), what=f"stop {pod.pod_id}"))

    def bulk_stop(self) -> None:
        desk = self.desk
        ids = list(desk.selection.marked_pods())
        if not ids:
            desk.notify("No pod is marked (space marks one).", severity="warning")
            return
        from sagan_tui.panel.bulk_plans import plan_stop
        from sagan_tui.panel.screens.confirm import ConfirmScreen, counted

        known = desk.view.pods
        plan = plan_stop(ids, known)
        warning = plan.warning(*desk.selection.hidden_marks("pods"))
        targets = list(plan.targets)
        if not targets:
            desk.notify(f"Nothing to stop. {warning}", severity="warning")
            return
        pods = [known[t.pod_id] for t in targets]
        session = desk.session
        accounts = sorted({p.account for p in pods})
        desk.host.push_screen(ConfirmScreen(
            f"Stop {counted(len(targets), 'pod')} ({', '.join(accounts)})", [pod_line(p) for p in pods],
            confirm_label=f"Stop {counted(len(targets), 'pod')}",
            note="Each pod is re-checked with its own account before its stop is sent.", warning=warning),
            desk.on_confirm(lambda: session.stop(targets), clear_marks=True,
                            what=f"stop {counted(len(targets), 'pod')}"))
