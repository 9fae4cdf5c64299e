"""The desk's results and records jobs: re-dispatch, promote, export the report; the audit log (panel/screens/audit.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagan_tui.panel.desk import exp_line
from sagan_tui.panel.safe_text import one_line

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import ExperimentView
    from sagan_tui.panel.desk import Desk

REDISPATCHED = "Re-dispatched by the owner from sagan-tui."


class ResultActions:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    def redispatch(self) -> None:
        desk = self.desk
        session = desk.session
        exp = desk.target_experiment("approved", lambda n: session.redispatch(n, REDISPATCHED))
        if exp is None:
            return
        n = exp.number
        desk.then(lambda: session.dispatch_verdict(n), lambda verdict: self._redispatch_dialog(exp, verdict))

    def _redispatch_dialog(self, exp: ExperimentView, verdict: Any) -> Any:
        from sagan_tui.panel.screens.confirm import ConfirmScreen

        desk = self.desk
        session, n = desk.session, exp.number
        if verdict.needs_typed_confirmation:
            note = f"Re-dispatched by the owner through the dispatch guard: {verdict.summary}"
            return desk.guarded("Re-dispatch", "redispatch", [n], verdict, [exp_line(exp)],
                                send=lambda typed: session.redispatch(n, note, typed))
        return desk.host.push_screen(ConfirmScreen(
            f"Re-dispatch 1 experiment: #{n}", [exp_line(exp)], confirm_label="Re-dispatch",
            note="Asks Sagan to launch a pod for it. No reaping wave is active."),
            desk.on_confirm(lambda: session.redispatch(n, REDISPATCHED), what=f"re-dispatch #{n}"))

    def promote(self) -> None:
        desk = self.desk
        session = desk.session
        exp = desk.target_experiment("awaiting_promotion", session.promote)
        if exp is None:
            return
        from sagan_tui.panel.screens.confirm import ConfirmScreen

        n = exp.number
        desk.host.push_screen(ConfirmScreen(f"Promote 1 experiment: #{n}", [exp_line(exp)], confirm_label="Promote",
                                            confirm_variant="success", note="Publishes its clean result."),
                              desk.on_confirm(lambda: session.promote(n), what=f"promote #{n}"))

    def export_report(self) -> None:
        """The incident report to the data dir, and to the clipboard (no mutation: allowed in read-only)."""
        from sagan_tui.wire.config import data_dir
        from sagan_tui.panel.clipboard import copy

        host = self.desk.host
        session = self.desk.session

        async def run() -> None:
            try:
                path, text = await session.export_report(data_dir())
            except OSError as exc:
                host.notify(f"export failed: {one_line(exc)}", severity="error", markup=False)
                return
            not_copied = copy(host, text)  # type: ignore[arg-type]
            # Two sentences: a long path wrapped the toast, and its next line began with "; copied".
            clip = "Copied to the clipboard (OSC 52)." if not_copied is None else f"Not copied: {not_copied}."
            host.notify(f"Incident report written to {path}.\n{clip}", title="Exported", markup=False, timeout=15)

        host.run_worker(run(), group="owner-export", exit_on_error=False)


class RecordActions:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    def audit(self) -> None:
        from sagan_tui.panel.screens.audit import AuditFeed, AuditScreen

        host = self.desk.host
        self.desk.then(lambda: self.desk.session.audit_log(500),
                       lambda actions: host.push_screen(AuditScreen(AuditFeed(host, actions))))  # type: ignore[arg-type]
