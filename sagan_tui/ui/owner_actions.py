"""The owner's action keys, on every screen that has a selection: each opens its dialog, then calls the session."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable

from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen

from sagan_tui.channel.views import ActionResultView as ActionResult
from sagan_tui.channel.views import StopTargetView as StopTarget
from sagan_tui.ui.key_hold import opens_dialog
from sagan_tui.ui.safe_text import one_line

# The dialogs and the action results are imported where an action opens or reports one: the
# panes' screen inherits these keys, and its first frame needs neither.
if TYPE_CHECKING:
    from sagan_tui.channel.surface import SessionSurface
    from sagan_tui.channel.views import ApprovalView, CachedPodView, ExperimentView
    from sagan_tui.ui.app import SaganApp
    from sagan_tui.ui.view import PanelView


class OwnerActionDone(Message):
    """An owner action finished (or was refused); posted to the main screen, which says so."""

    namespace = "owner"

    def __init__(self, result: ActionResult, clear_marks: bool = False):
        super().__init__()
        self.result = result
        self.clear_marks = clear_marks


def _b(key: str, action: str, description: str, **kw: Any) -> Binding:
    return Binding(key, action, description, id=f"panel.{action}", **kw)


def exp_line(exp: "ExperimentView") -> str:
    return f"#{exp.number} {one_line(exp.title, 70)} ({exp.status}, {exp.runpod_account or 'account ?'})"


def pod_line(p: "CachedPodView") -> str:
    exp = f"#{p.experiment}" if p.experiment is not None else "no experiment"
    price = f" ${p.pod.cost_per_hr:.2f}/h" if p.pod.cost_per_hr is not None else ""
    gone = f" GONE ({p.gone_reason})" if p.gone_at else ""
    return (f"{p.pod_id}  account {p.account}  {exp}  {p.pod.desired_status}{gone}  "
            f"{one_line(p.pod.name or '', 40)} {one_line(p.pod.gpu or '', 30)}{price}")


class AuditFeed:
    """What the audit screen reads as `cache.actions(limit)`: the session's last answer, asked again
    on each read, so the screen refreshes without touching SQLite on the UI thread."""

    def __init__(self, app: Any, actions: list) -> None:
        self.app, self.last = app, actions

    def actions(self, limit: int) -> list:
        async def again() -> None:
            self.last = await self.app.session.audit_log(limit)

        # The function, not a coroutine: `exclusive` may cancel this worker before it starts, and
        # a coroutine made for it would then never be awaited (a RuntimeWarning in every run).
        self.app.run_worker(again, group="audit-feed", exclusive=True, exit_on_error=False)
        return self.last[:limit]


def canary_note(waves: Any, shown: int) -> str:
    """What C's dialog says it watches: past the kill time of the wave the session would take (the
    one shown, else the latest; session/incident_view.start_canary), or, with no wave, no kill time."""
    wave = waves[shown] if 0 <= shown < len(waves) else (waves[-1] if waves else None)
    if wave is None or wave.gap_median_s is None:
        why = "no wave on record, so no kill time" if wave is None else "the wave's kill time is unknown"
        return f"Releases it, re-dispatches one pod and watches it run for a while ({why} to wait past)."
    return (f"Releases it, re-dispatches one pod and watches it past the wave's kill time "
            f"({round(wave.gap_median_s)} s after RUNNING).")


class OwnerActionsScreen(Screen):
    """Approve, hold, re-dispatch, stop, promote and their bulk forms, on the screen's selection.

    A subclass says what is selected (`selected_experiment`, `selected_pod`, the marks). Every
    mutation opens a dialog naming its targets and count; in read-only each key is refused out
    loud, and the session audits the refusal (the runner refuses again, so nothing is ever sent).
    """

    if TYPE_CHECKING:  # Textual types `app` as App[object]: this screen runs only in the panel's App
        @property
        def app(self) -> SaganApp: ...

    BINDINGS = [
        _b("a", "review_approval", "Approval"),
        _b("h", "hold", "Hold"),
        _b("r", "redispatch", "Re-dispatch"),
        _b("s", "stop_pod", "Stop pod"),
        _b("p", "promote", "Promote"),
        _b("H", "bulk_hold", "Hold marked"),
        _b("S", "bulk_stop", "Stop marked"),
        _b("A", "audit", "Audit log"),
        _b("e", "export_report", "Export report"),
        _b("W", "wave_response", "Wave response"),  # verdict's dialog: ui/screens/wave_response.py
        _b("u", "release", "Release"),  # the key bar abbreviates what does not fit (widgets/key_bar.py)
        _b("U", "bulk_release", "Release marked"),
        _b("C", "canary", "Canary"),
        _b("K", "acknowledge", "Acknowledge wave"),  # not `k`: that moves up (keymap.py says why)
    ]
    MUTATING: dict[str, str] = {"hold": "hold", "redispatch": "re-dispatch", "stop_pod": "stop pod",
                                "promote": "promote", "bulk_hold": "bulk hold", "bulk_stop": "bulk stop",
                                "wave_response": "wave response", "release": "release",
                                "bulk_release": "bulk release", "canary": "canary"}

    # --- what a subclass says ----------------------------------------------------------

    def selected_experiment(self) -> "ExperimentView | None":
        return None

    def selected_pod(self) -> "CachedPodView | None":
        return None

    def marked_experiments(self) -> list[int]:
        return []

    def marked_pods(self) -> list[str]:
        return []

    def clear_marks(self) -> None:
        pass

    def hidden_marks(self, pane: str) -> tuple[list[str], str]:
        """Marked rows of `pane` ("experiments", "pods") a filter hides now, and what hides them."""
        return [], ""

    # --- plumbing ----------------------------------------------------------------------

    @property
    def session(self) -> "SessionSurface":
        return self.app.session

    @property
    def view(self) -> "PanelView":
        return self.app.view

    def _run(self, call: Callable[[], Awaitable[ActionResult]], *, clear_marks: bool = False, what: str = "") -> None:
        """Call the session from a worker; the result goes to the main screen, which outlives dialogs.
        `what` names the action (`q` while it waits says which)."""
        target = self.app.screen_stack[0]

        async def run() -> None:
            try:
                result = await call()
            except Exception as exc:  # the runner catches server failures; this is a bug's last stop
                result = ActionResult(ok=False, message=one_line(f"action failed: {type(exc).__name__}: {exc}"),
                                      server_error=one_line(str(exc)))
            target.post_message(OwnerActionDone(result, clear_marks))

        self.app.run_worker(run(), group="owner-actions", exit_on_error=False, description=what)

    def _then(self, fetch: Callable[[], Awaitable[Any]], show: Callable[[Any], Any]) -> None:
        """Read something for a dialog in the session's thread, then open it here; keys typed
        meanwhile go to the dialog (ui/key_hold.py), not to the panel behind it."""
        from sagan_tui.ui.key_hold import open_dialog

        async def run() -> Any:
            return show(await fetch())

        open_dialog(self.app, run)

    def _refused_if_read_only(self, action: str) -> bool:
        if not self.app.settings.read_only:
            return False
        target = self.refusal_target(action)
        self._run(lambda: self.session.refuse(self.MUTATING[action], target))
        return True

    def refusal_target(self, action: str) -> str:
        """What a refused key was pressed on, for its audit row: the marked rows for a bulk key
        ("none marked"), the selected pod for `s`, the selected experiment otherwise ("none
        selected"), the wave for `W`."""
        if action == "wave_response":
            return "wave"
        if action == "bulk_stop":
            return ",".join(self.marked_pods()) or "none marked"
        if action.startswith("bulk_"):
            return ",".join(f"#{n}" for n in self.marked_experiments()) or "none marked"
        if action == "stop_pod":
            pod = self.selected_pod()
            return pod.pod_id if pod is not None else "none selected"
        exp = self.selected_experiment()
        return f"#{exp.number}" if exp is not None else "none selected"

    def _target_experiment(self, action: str, status: str | None = None,
                           refuse: Callable[[int], Awaitable[ActionResult]] | None = None) -> "ExperimentView | None":
        """The selected experiment, or None when it stops here: read-only, nothing selected, or an
        experiment not in `status`, which goes to `refuse` (the session refuses it with the reason
        and audits it): no dialog that could only be dismissed."""
        if self._refused_if_read_only(action):
            return None
        exp = self.selected_experiment()
        if exp is None:
            self.notify("Select an experiment first.", severity="warning", markup=False)
            return None
        if status is not None and exp.status != status and refuse is not None:
            number = exp.number
            self._run(lambda: refuse(number))
            return None
        return exp

    def _on_confirm(self, make: Callable[[], Awaitable[ActionResult]], **kw: Any) -> Callable[[bool | None], None]:
        def done(yes: bool | None) -> None:
            if yes:
                self._run(make, **kw)
        return done

    def on_owner_action_done(self, event: OwnerActionDone) -> None:
        result = event.result
        # "2 of 3 stopped" as a warning, not "Failed": the title and severity are the result's.
        self.app.notify(toast_text(result.message, result.title), title=result.title, severity=result.severity, markup=False,  # type: ignore[arg-type]
                        timeout={"information": None, "warning": 10, "error": 15}[result.severity])
        if result.ok and event.clear_marks:
            self.clear_marks()

    # --- audit and export: no mutation of Sagan or RunPod, allowed in read-only ----------

    @opens_dialog
    def action_audit(self) -> None:
        from sagan_tui.ui.screens.audit import AuditScreen

        self._then(lambda: self.session.audit_log(500),
                   lambda actions: self.app.push_screen(AuditScreen(AuditFeed(self.app, actions))))  # type: ignore[arg-type]

    def action_export_report(self) -> None:
        from sagan_tui.config import data_dir
        from sagan_tui.ui.clipboard import copy

        async def run() -> None:
            try:
                path, text = await self.session.export_report(data_dir())
            except OSError as exc:
                self.app.notify(f"export failed: {one_line(exc)}", severity="error", markup=False)
                return
            not_copied = copy(self.app, text)
            # Two sentences: a long path wrapped the toast, and its next line began with "; copied".
            clip = "Copied to the clipboard (OSC 52)." if not_copied is None else f"Not copied: {not_copied}."
            self.app.notify(f"Incident report written to {path}.\n{clip}", title="Exported", markup=False,
                            timeout=15)

        self.app.run_worker(run(), group="owner-export", exit_on_error=False)

    @opens_dialog
    def action_wave_response(self) -> None:
        """The wave's verdict and its response in one dialog (refused out loud in read-only)."""
        if self._refused_if_read_only("wave_response"):
            return
        from sagan_tui.ui.screens.wave_response import open_wave_response

        open_wave_response(self.app)  # keys typed after W meet the dialog's bindings (ui/key_hold.py)

    # --- the incident: release, canary, acknowledge ----------------------------------------

    @opens_dialog
    def action_release(self) -> None:
        exp = self._target_experiment("release", "blocked", self.session.release_refused)
        if exp is not None:
            self._release_dialog([exp.number], bulk=False)

    @opens_dialog
    def action_bulk_release(self) -> None:
        if self._refused_if_read_only("bulk_release"):
            return
        marked = [n for n in self.marked_experiments()
                  if (e := self.view.experiments.get(n)) is not None and e.status == "blocked"]
        if marked:
            self._release_dialog(marked, bulk=True)
            return
        session = self.session

        async def rest() -> tuple[tuple[int, ...], Any]:  # no marks: those a passed canary vouches for
            numbers = tuple(await session.canary_rest())
            return numbers, (await self._release_facts(list(numbers)) if numbers else None)

        def show(found: tuple[tuple[int, ...], Any]) -> Any:
            numbers, facts = found
            if not numbers:
                self.notify("Nothing to release: mark held experiments (space), or pass a canary first.",
                            severity="warning", markup=False)
                return None
            return self._release_screen(list(numbers), facts, bulk=False, ready=True)

        self._then(rest, show)

    async def _release_facts(self, numbers: list[int]) -> tuple[dict[int, str], Any]:
        """Who held each one, and the guard a release of them meets."""
        return await self.session.blocked_by(numbers), await self.session.dispatch_guard("release", numbers)

    def _release_dialog(self, numbers: list[int], bulk: bool) -> None:
        self._then(lambda: self._release_facts(numbers),
                   lambda facts: self._release_screen(numbers, facts, bulk=bulk, ready=False))

    def _release_screen(self, numbers: list[int], facts: tuple[dict[int, str], Any], bulk: bool,
                        ready: bool) -> Any:
        """The release dialog, or during a wave (or after a lost canary) the guard's typed one."""
        session = self.session
        who, verdict = facts
        lines = [f"{exp_line(e) if (e := self.view.experiments.get(n)) else f'#{n}'}  held by {who.get(n, '?')}"
                 for n in numbers]
        if verdict.needs_typed_confirmation:
            note = f"Released by the owner through the dispatch guard: {verdict.summary}"
            return self._guarded("Release", "release", numbers, verdict, lines, bulk=bulk,
                                 send=lambda typed: session.release(numbers, note, typed))
        return self._release_note(numbers, lines, bulk, ready)

    def _guarded(self, action: str, verb: str, numbers: list[int], verdict: Any, lines: list[str], *,
                 send: Callable[[str], Awaitable[ActionResult]], bulk: bool = False) -> Any:
        """The typed confirmation of a dispatch path during a wave: sent with what was typed (the
        session checks it again); a cancel is audited, as `r`'s is."""
        from sagan_tui.ui.screens.guard import GuardedDispatchScreen

        session, first = self.session, self.view.experiments.get(numbers[0])
        target = ", ".join(f"#{n}" for n in numbers)

        account = first.runpod_account if first is not None and len(numbers) == 1 else None

        def typed(text: str | None) -> None:
            if text is not None:
                self._run(lambda: send(text), clear_marks=bulk, what=f"{verb} {target}")
            else:  # a cancel during a wave is evidence of what the owner chose not to do
                self._run(lambda: session.record_cancelled(verb, target, account=account, detail=verdict.summary))

        if first is None:
            self.notify(f"#{numbers[0]} is not in the panel yet.", severity="warning", markup=False)
            return None
        return self.app.push_screen(GuardedDispatchScreen(
            first, verdict, action=action, targets=lines if len(numbers) > 1 else None), typed)

    def _release_note(self, numbers: list[int], lines: list[str], bulk: bool, ready: bool) -> Any:
        from sagan_tui.ui.screens.confirm import counted
        from sagan_tui.ui.screens.prompt import NoteScreen

        session = self.session

        def chosen(note: str | None) -> None:
            if note is not None:
                self._run(lambda: session.release(numbers, note), clear_marks=bulk,
                          what="release " + ", ".join(f"#{n}" for n in numbers))

        return self.app.push_screen(NoteScreen(
            f"Release {counted(len(numbers), 'experiment')}", lines, confirm_label="Release",
            note=("Sets the status back to approved: Sagan may dispatch it again, auto-recovery included."
                  + ("" if ready else " During a wave, C (canary) re-dispatches one first.")),
            note_value="Released by the owner from sagan-tui."), chosen)

    @opens_dialog
    def action_canary(self) -> None:
        exp = self._target_experiment("canary", "blocked", self.session.release_refused)
        if exp is None:
            return
        session, n = self.session, exp.number

        def dialog(verdict: Any) -> Any:
            from sagan_tui.ui.screens.confirm import ConfirmScreen

            if verdict.needs_typed_confirmation:
                return self._guarded("Canary", "canary", [n], verdict, [exp_line(exp)],
                                     send=lambda typed: session.canary(n, typed))
            return self.app.push_screen(ConfirmScreen(
                f"Canary 1 experiment: #{n}", [exp_line(exp)], confirm_label="Release and re-dispatch",
                note=canary_note(self.view.waves, self.view.loss_view.shown if self.view.loss_view else -1)),
                self._on_confirm(lambda: session.canary(n, str(n)), what=f"canary #{n}"))

        self._then(lambda: session.dispatch_guard("canary", [n]), dialog)

    def action_acknowledge(self) -> None:
        session = self.session

        async def run() -> None:
            said = await session.acknowledge_wave()
            self.app.notify(said, title="Acknowledged", markup=False)

        self.app.run_worker(run(), group="owner-ack", exit_on_error=False)

    # --- approval ----------------------------------------------------------------------

    @opens_dialog
    def action_review_approval(self) -> None:
        exp = self.selected_experiment()
        if exp is None:
            self.notify("Select an experiment first.", severity="warning", markup=False)
            return
        pending = [a for a in self.view.approvals if a.experiment_number == exp.number]
        if pending:
            self.open_approval(pending[0])
            return

        def deferred(found: list) -> Any:  # a request the owner deferred stays reachable here
            if found:
                return self.open_approval(found[0])
            self.notify(f"#{exp.number} has no pending approval request ({exp.status}).", markup=False)
            return None

        number = exp.number
        self._then(lambda: self.session.approvals_of(number, "deferred"), deferred)

    def open_approval(self, approval: "ApprovalView") -> Any:
        """Open one request (also the approvals pane's route); read-only shows it with decisions disabled."""
        from sagan_tui.ui.screens.approval import ApprovalScreen

        submit, refused = None, None
        session = self.session
        if not self.app.settings.read_only:
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
                self._run(lambda: session.refuse(decision, on))

        return self.app.push_screen(ApprovalScreen(approval, submit, refused=refused))

    async def _approve_guard(self, number: int) -> str | bool | None:
        """Approval makes Sagan dispatch: during a wave on the plan's accounts, the typed number
        (what was typed; False when the owner cancelled; None when no guard stands). Runs in the
        approval screen's worker, which waits for the dialog."""
        from sagan_tui.ui.screens.guard import GuardedDispatchScreen

        verdict = await self.session.dispatch_guard("approve", [number])
        exp = self.view.experiments.get(number)
        if not verdict.needs_typed_confirmation or exp is None:
            return None
        typed = await self.app.push_screen(GuardedDispatchScreen(exp, verdict, action="Approve"),
                                           wait_for_dismiss=True)
        return False if typed is None else typed

    # --- experiments ---------------------------------------------------------------------

    @opens_dialog
    def action_hold(self) -> None:
        exp = self._target_experiment("hold")
        if exp is not None:
            self._hold_dialog([exp.number], f"Hold 1 experiment: #{exp.number}", [exp_line(exp)], origin="h")

    @opens_dialog
    def action_bulk_hold(self) -> None:
        if self._refused_if_read_only("bulk_hold"):
            return
        from sagan_tui.ui.bulk_plans import plan_hold
        from sagan_tui.ui.screens.confirm import counted

        marked = list(self.marked_experiments())
        if not marked:
            self.notify("No experiment is marked (space marks one).", severity="warning", markup=False)
            return
        known = {n: self.view.experiments.get(n) for n in marked}
        plan = plan_hold(marked, known)
        hidden, by = self.hidden_marks("experiments")
        warning = plan.warning([f"#{k}" for k in hidden], by)
        if not plan.targets:
            self.notify(f"Nothing to hold. {warning}", severity="warning", markup=False)
            return
        lines = [exp_line(e) if (e := known.get(n)) else f"#{n} (not in the cache)" for n in plan.targets]
        self._hold_dialog(list(plan.targets), f"Hold {counted(len(plan.targets), 'experiment')}", lines,
                          bulk=True, warning=warning, origin="H")

    def _hold_dialog(self, numbers: list[int], title: str, lines: list[str], bulk: bool = False,
                     warning: str = "", origin: str = "h") -> None:
        from sagan_tui.ui.screens.hold import HoldScreen

        session = self.session

        def chosen(answer: dict | None) -> None:
            if answer is not None:
                self._run(lambda: session.hold(numbers, answer["note"], origin, answer["keep"]), clear_marks=bulk,
                          what="hold " + ", ".join(f"#{n}" for n in numbers))

        note = ("Sets the status to blocked and stops the pods listed (starting, or doomed inside the wave's "
                "kill window), then verifies no new pod comes until the guard ends.")

        async def opened() -> tuple[str, tuple]:
            return await session.hold_note(), await session.stop_targets(numbers)

        self._then(opened, lambda got: self.app.push_screen(HoldScreen(
            title, lines, got[1], confirm_label="Hold", note_value=got[0], note=note, warning=warning), chosen))

    @opens_dialog
    def action_redispatch(self) -> None:
        session = self.session
        exp = self._target_experiment("redispatch", "approved",
                                      lambda n: session.redispatch(n, "Re-dispatched by the owner from sagan-tui."))
        if exp is None:
            return
        n = exp.number
        self._then(lambda: session.dispatch_verdict(n), lambda verdict: self._redispatch_dialog(exp, verdict))

    def _redispatch_dialog(self, exp: "ExperimentView", verdict: Any) -> Any:
        from sagan_tui.ui.screens.confirm import ConfirmScreen

        session, n = self.session, exp.number
        if verdict.needs_typed_confirmation:
            note = f"Re-dispatched by the owner through the dispatch guard: {verdict.summary}"
            return self._guarded("Re-dispatch", "redispatch", [n], verdict, [exp_line(exp)],
                                 send=lambda typed: session.redispatch(n, note, typed))
        return self.app.push_screen(ConfirmScreen(
            f"Re-dispatch 1 experiment: #{n}", [exp_line(exp)], confirm_label="Re-dispatch",
            note="Asks Sagan to launch a pod for it. No reaping wave is active."),
            self._on_confirm(lambda: session.redispatch(n, "Re-dispatched by the owner from sagan-tui."),
                             what=f"re-dispatch #{n}"))

    @opens_dialog
    def action_promote(self) -> None:
        session = self.session
        exp = self._target_experiment("promote", "awaiting_promotion", session.promote)
        if exp is None:
            return
        from sagan_tui.ui.screens.confirm import ConfirmScreen

        n = exp.number
        self.app.push_screen(ConfirmScreen(f"Promote 1 experiment: #{n}", [exp_line(exp)], confirm_label="Promote",
                                           confirm_variant="success", note="Publishes its clean result."),
                             self._on_confirm(lambda: session.promote(n), what=f"promote #{n}"))

    # --- pods --------------------------------------------------------------------------

    @opens_dialog
    def action_stop_pod(self) -> None:
        if self._refused_if_read_only("stop_pod"):
            return
        pod = self.selected_pod()
        if pod is None:
            self.notify("Select a pod in the pods pane first.", severity="warning", markup=False)
            return
        from sagan_tui.ui.screens.confirm import ConfirmScreen

        session, target = self.session, StopTarget.of(pod)
        if pod.gone_at is not None:
            self._run(lambda: session.stop([target]))  # refused by the re-check, with what changed
            return
        self.app.push_screen(ConfirmScreen(
            f"Stop 1 pod: {pod.pod_id} ({pod.account})", [pod_line(pod)], confirm_label="Stop pod",
            note=f"Sent with the {pod.account} account's key after re-checking the pod with RunPod; "
                 "if it changed or vanished, nothing is sent."),
            self._on_confirm(lambda: session.stop([target]), what=f"stop {pod.pod_id}"))

    @opens_dialog
    def action_bulk_stop(self) -> None:
        if self._refused_if_read_only("bulk_stop"):
            return
        ids = list(self.marked_pods())
        if not ids:
            self.notify("No pod is marked (space marks one).", severity="warning", markup=False)
            return
        from sagan_tui.ui.bulk_plans import plan_stop
        from sagan_tui.ui.screens.confirm import ConfirmScreen, counted

        known = self.view.pods
        plan = plan_stop(ids, known)
        warning = plan.warning(*self.hidden_marks("pods"))
        targets = list(plan.targets)
        if not targets:
            self.notify(f"Nothing to stop. {warning}", severity="warning", markup=False)
            return
        pods = [known[t.pod_id] for t in targets]
        session = self.session
        accounts = sorted({p.account for p in pods})
        self.app.push_screen(ConfirmScreen(
            f"Stop {counted(len(targets), 'pod')} ({', '.join(accounts)})", [pod_line(p) for p in pods],
            confirm_label=f"Stop {counted(len(targets), 'pod')}",
            note="Each pod is re-checked with its own account before its stop is sent.", warning=warning),
            self._on_confirm(lambda: session.stop(targets), clear_marks=True,
                             what=f"stop {counted(len(targets), 'pod')}"))


def toast_text(message: str, title: str) -> str:
    """A result's message under its title, without saying the title twice: a bulk result's
    message begins with its count ("2 of 2 stopped: a, b"), which is the title already."""
    if title and message.startswith(title):
        rest = message[len(title):].lstrip(":; ")
        return rest or message
    return message
