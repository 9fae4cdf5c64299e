"""The owner's action bindings, mixed into the App: each opens its dialog, then runs through the ActionRunner."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Awaitable, Callable

from textual.binding import Binding
from textual.message import Message

from sagan_tui.actions.results import ActionResult, StopTarget
from sagan_tui.basics import utcnow
from sagan_tui.ui.safe_text import one_line
from sagan_tui.ui.screens.confirm import ConfirmScreen, counted

if TYPE_CHECKING:
    from sagan_tui.actions.runner import ActionRunner  # imported on first use: httpx is not needed to draw
    from sagan_tui.models import ApprovalRequest, Experiment
    from sagan_tui.store.cache import CachedPod


class OwnerActionDone(Message):
    """An owner action finished (or was refused); posted by its worker, handled on the main thread."""

    namespace = "owner"

    def __init__(self, result: ActionResult, clear_marks: bool = False):
        super().__init__()
        self.result = result
        self.clear_marks = clear_marks


def _b(key: str, action: str, description: str, **kw) -> Binding:
    return Binding(key, action, description, id=f"panel.{action}", **kw)


class ActionsMixin:
    """Bindings and action_* methods for approve, hold, re-dispatch, stop, promote, bulk, audit, export.

    Mixed in first (`class SaganApp(ActionsMixin, App)`); relies only on PanelHost
    (ui/contract.py). Every mutation opens a dialog naming its targets and count, and the
    ActionRunner refuses again in read-only, so a route that skips the binding check still
    sends nothing. `a` only opens the request (read-only shows it with decisions disabled).
    """

    ACTION_BINDINGS: list[Binding] = [
        _b("a", "review_approval", "Approval"),
        _b("h", "hold", "Hold"),
        _b("r", "redispatch", "Re-dispatch"),
        _b("s", "stop_pod", "Stop pod"),
        _b("p", "promote", "Promote"),
        _b("H", "bulk_hold", "Hold marked"),
        _b("S", "bulk_stop", "Stop marked"),
        _b("A", "audit", "Audit log"),
        _b("e", "export_report", "Export report"),
        _b("W", "wave_response", "Wave response"),  # verdict's hunk: the dialog lives in ui/screens/wave_response.py
    ]
    MUTATING_ACTIONS: frozenset[str] = frozenset(
        {"hold", "redispatch", "stop_pod", "promote", "bulk_hold", "bulk_stop"})

    # --- plumbing ----------------------------------------------------------------------

    @property
    def action_runner(self) -> ActionRunner:
        runner = getattr(self, "_action_runner", None)
        if runner is None:
            from sagan_tui.actions.runner import ActionRunner

            runner = ActionRunner.for_poller(self.settings, self.cache, self.poller)
            self._action_runner = runner
        return runner

    def _read_only_refused(self, what: str) -> bool:
        if self.settings.read_only:
            self.notify(f"read-only: {what} refused (the panel was started with --read-only)",
                        title="Refused", severity="warning", markup=False)
            return True
        return False

    def _run_action(self, make: Callable[[], Awaitable[ActionResult]], *, clear_marks: bool = False) -> None:
        async def run() -> None:
            try:
                result = await make()
            except Exception as exc:  # the runner catches server failures; this is a bug's last stop
                result = ActionResult(ok=False, message=one_line(f"action failed: {type(exc).__name__}: {exc}"),
                                      server_error=one_line(str(exc)))
            self.post_message(OwnerActionDone(result, clear_marks))

        self.run_worker(run(), group="owner-actions", exit_on_error=False)

    def on_owner_action_done(self, event: OwnerActionDone) -> None:
        result = event.result
        # "2 of 3 stopped" as a warning, not "Failed": the title and severity are the result's.
        self.notify(result.message, title=result.title, severity=result.severity, markup=False,  # type: ignore[arg-type]
                    timeout={"information": None, "warning": 10, "error": 15}[result.severity])
        if result.ok and event.clear_marks:
            self.clear_marks()
        if result.ok or any(p.ok for p in result.parts):
            self.request_refresh()

    def _target_experiment(self, what: str, status: str | None = None,
                           refuse: Callable[[int], Awaitable[ActionResult]] | None = None) -> Experiment | None:
        """The selected experiment for `what`, or None when it stops here.

        An experiment not in `status` goes to `refuse` (the runner's action), which refuses it
        with the reason and logs the refusal: no dialog that could only be dismissed.
        """
        if self._read_only_refused(what):
            return None
        exp = self.selected_experiment()
        if exp is None:
            self.notify("Select an experiment first.", severity="warning", markup=False)
            return None
        if status is not None and exp.status != status and refuse is not None:
            number = exp.number
            self._run_action(lambda: refuse(number))
            return None
        return exp

    def _on_confirm(self, make: Callable[[], Awaitable[ActionResult]], **kw) -> Callable[[bool | None], None]:
        """A dialog callback that runs the action only on a yes."""
        def done(yes: bool | None) -> None:
            if yes:
                self._run_action(make, **kw)
        return done

    @staticmethod
    def _exp_line(exp: Experiment) -> str:
        return f"#{exp.number} {one_line(exp.title, 70)} ({exp.status}, {exp.runpod_account or 'account ?'})"

    # --- approval ----------------------------------------------------------------------

    def action_review_approval(self) -> None:
        exp = self.selected_experiment()
        if exp is None:
            self.notify("Select an experiment first.", severity="warning", markup=False)
            return
        pending = [a for a in self.cache.approvals() if a.experiment_number == exp.number]
        # A request the owner deferred stays reachable here: the screen says when it was deferred.
        pending = pending or [a for a in self.cache.approvals("deferred") if a.experiment_number == exp.number]
        if not pending:
            self.notify(f"#{exp.number} has no pending approval request ({exp.status}).", markup=False)
            return
        self.open_approval(pending[0])

    def open_approval(self, approval: ApprovalRequest) -> None:
        """Open one request (also the inbox's route); read-only shows it with decisions disabled."""
        from sagan_tui.ui.screens.approval import ApprovalScreen

        submit = None
        if not self.settings.read_only:
            runner = self.action_runner

            async def submit(decision, answers, note):
                result = await runner.decide(approval, decision, answers, note)
                if result.ok:
                    self.request_refresh()
                return result

        self.push_screen(ApprovalScreen(approval, submit))

    # --- experiments ---------------------------------------------------------------------

    def action_hold(self) -> None:
        exp = self._target_experiment("hold")
        if exp is None:
            return
        self._hold_dialog([exp.number], f"Hold 1 experiment: #{exp.number}", [self._exp_line(exp)])

    def action_bulk_hold(self) -> None:
        if self._read_only_refused("bulk hold"):
            return
        from sagan_tui.actions.bulk import plan_hold

        marked = list(self.marked_experiments())
        if not marked:
            self.notify("No experiment is marked (space marks one).", severity="warning", markup=False)
            return
        known = {n: self.cache.experiment(n) for n in marked}
        plan = plan_hold(marked, known)
        warning = plan.warning(*self._hidden_marks("experiments_table", "#"))
        if not plan.targets:
            self.notify(f"Nothing to hold. {warning}", severity="warning", markup=False)
            return
        lines = [self._exp_line(e) if (e := known.get(n)) else f"#{n} (not in the cache)" for n in plan.targets]
        self._hold_dialog(list(plan.targets), f"Hold {counted(len(plan.targets), 'experiment')}", lines,
                          bulk=True, warning=warning)

    def _hidden_marks(self, table: str, prefix: str = "") -> tuple[list[str], str]:
        """Marked rows of `table` a filter hides now, and what hides them (the bulk dialog names them)."""
        t = getattr(self, table, None)
        return ([prefix + k for k in t.hidden_marked_keys()], t.hidden_by()) if t is not None else ([], "")

    def _hold_dialog(self, numbers: list[int], title: str, lines: list[str], bulk: bool = False,
                     warning: str = "") -> None:
        from sagan_tui.actions.guard import hold_note
        from sagan_tui.ui.screens.prompt import NoteScreen

        prefill = hold_note(self.cache, utcnow(), self.settings.guard_minutes)
        runner = self.action_runner

        def chosen(note: str | None) -> None:
            if note is None:
                return
            if bulk:
                self._run_action(lambda: runner.bulk_hold(numbers, note), clear_marks=True)
            else:
                self._run_action(lambda: runner.hold(numbers[0], note))

        self.push_screen(NoteScreen(
            title, lines, confirm_label="Hold", note_value=prefill,
            note="Sets the status to blocked: Sagan stops work on it, including auto-recovery re-dispatches.",
            warning=warning), chosen)

    def action_redispatch(self) -> None:
        runner = self.action_runner
        exp = self._target_experiment("re-dispatch", "approved", runner.redispatch)
        if exp is None:
            return
        from sagan_tui.actions.guard import dispatch_verdict
        from sagan_tui.ui.screens.guard import GuardedDispatchScreen

        n = exp.number
        verdict = dispatch_verdict(self.cache, n, utcnow(), self.settings.guard_minutes)
        if verdict.needs_typed_confirmation:
            note = f"Re-dispatched by the owner through the dispatch guard: {verdict.summary}"

            def typed(text: str | None) -> None:
                if text is not None:
                    self._run_action(lambda: runner.redispatch(n, note, confirm=text))
                else:  # a cancel during a wave is audited too
                    self._run_action(lambda: runner.record_cancelled(
                        "redispatch", f"#{n}", account=exp.runpod_account, detail=verdict.summary))

            self.push_screen(GuardedDispatchScreen(exp, verdict), typed)
            return
        self.push_screen(ConfirmScreen(f"Re-dispatch 1 experiment: #{n}", [self._exp_line(exp)],
                                       confirm_label="Re-dispatch",
                                       note="Asks Sagan to launch a pod for it. No reaping wave is active."),
                         self._on_confirm(lambda: runner.redispatch(n, "Re-dispatched by the owner from sagan-tui.")))

    def action_promote(self) -> None:
        runner = self.action_runner
        exp = self._target_experiment("promote", "awaiting_promotion", runner.promote)
        if exp is None:
            return
        n = exp.number
        self.push_screen(ConfirmScreen(f"Promote 1 experiment: #{n}", [self._exp_line(exp)],
                                       confirm_label="Promote", confirm_variant="success",
                                       note="Publishes its clean result."),
                         self._on_confirm(lambda: runner.promote(n)))

    # --- pods --------------------------------------------------------------------------

    @staticmethod
    def _pod_line(p: "CachedPod") -> str:
        exp = f"#{p.experiment}" if p.experiment is not None else "no experiment"
        price = f" ${p.pod.cost_per_hr:.2f}/h" if p.pod.cost_per_hr is not None else ""
        gone = f" GONE ({p.gone_reason})" if p.gone_at else ""
        return (f"{p.pod_id}  account {p.account}  {exp}  {p.pod.desired_status}{gone}  "
                f"{one_line(p.pod.name or '', 40)} {one_line(p.pod.gpu or '', 30)}{price}")

    def action_stop_pod(self) -> None:
        if self._read_only_refused("stop pod"):
            return
        pod = self.selected_pod()
        if pod is None:
            self.notify("Select a pod in the pods pane first.", severity="warning", markup=False)
            return
        target = StopTarget.of(pod)
        runner = self.action_runner
        stop = lambda: runner.stop_pod(target.pod_id, target.account, target.expected_status,  # noqa: E731
                                       target.experiment)
        if pod.gone_at is not None:
            self._run_action(stop)  # refused by the re-check, with what changed
            return
        self.push_screen(ConfirmScreen(
            f"Stop 1 pod: {pod.pod_id} ({pod.account})", [self._pod_line(pod)], confirm_label="Stop pod",
            note=f"Sent with the {pod.account} account's key after re-checking the pod with RunPod; "
                 "if it changed or vanished, nothing is sent."),
            self._on_confirm(stop))

    def action_bulk_stop(self) -> None:
        if self._read_only_refused("bulk stop"):
            return
        ids = list(self.marked_pods())
        if not ids:
            self.notify("No pod is marked (space marks one).", severity="warning", markup=False)
            return
        from sagan_tui.actions.bulk import plan_stop

        known = {p.pod_id: p for p in self.cache.pods()}
        plan = plan_stop(ids, known)
        warning = plan.warning(*self._hidden_marks("pods_table"))
        targets = list(plan.targets)
        if not targets:
            self.notify(f"Nothing to stop. {warning}", severity="warning", markup=False)
            return
        pods = [known[t.pod_id] for t in targets]
        lines = [self._pod_line(p) for p in pods]
        runner = self.action_runner
        accounts = sorted({p.account for p in pods})
        self.push_screen(ConfirmScreen(
            f"Stop {counted(len(targets), 'pod')} ({', '.join(accounts)})", lines,
            confirm_label=f"Stop {counted(len(targets), 'pod')}",
            note="Each pod is re-checked with its own account before its stop is sent.", warning=warning),
            self._on_confirm(lambda: runner.bulk_stop(targets), clear_marks=True))

    def action_wave_response(self) -> None:
        """The wave's verdict and its response in one dialog (refused out loud in read-only)."""
        from sagan_tui.ui.screens.wave_response import open_wave_response

        open_wave_response(self)

    # --- audit and export ----------------------------------------------------------------

    def action_audit(self) -> None:
        from sagan_tui.ui.screens.audit import AuditScreen

        self.push_screen(AuditScreen(self.cache))

    def action_export_report(self) -> None:
        """Not a mutation of Sagan or RunPod: allowed in read-only."""
        from sagan_tui.actions.guard import export_report
        from sagan_tui.config import data_dir
        from sagan_tui.ui.clipboard import copy

        async def run() -> None:
            try:
                path, text = await asyncio.to_thread(export_report, self.cache, utcnow(), data_dir())
            except OSError as exc:
                self.notify(f"export failed: {one_line(exc)}", severity="error", markup=False)
                return
            not_copied = copy(self, text)
            clip = "copied to the clipboard (OSC 52)" if not_copied is None else f"not copied: {not_copied}"
            self.notify(f"Incident report written to {path}; {clip}", title="Exported", markup=False, timeout=15)

        self.run_worker(run(), group="owner-export", exit_on_error=False)
