"""The owner's desk: runs a screen's action entries (panel/registry.py) on its selection; the read-only gate lives here.

A screen that offers the desk's groups (the main screen, an experiment's detail) holds one
`Desk` made with what it selects (`Selection`) and one object per job (panel/owner_desk.py puts
them together: panel/desk_plans.py, desk_incident.py, desk_pods.py, desk_results.py); it reaches the session only
through the channel's surface (`host.session`) and the screen's public selection. Every
mutation opens a dialog naming its targets and count; in read-only each mutating key is refused
out loud here, once, and the session audits the refusal (the runner refuses again, so nothing is
ever sent).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Protocol

from textual.message import Message

from sagan_tui.wire.channel.views import ActionResultView as ActionResult
from sagan_tui.panel.registry import BY_NAME, Entry
from sagan_tui.panel.safe_text import one_line

# The dialogs are imported where an action opens one: the panes' screen offers these keys, and
# its first frame needs none of them.
if TYPE_CHECKING:
    from textual.dom import DOMNode

    from sagan_tui.wire.channel.surface import SessionSurface
    from sagan_tui.wire.channel.views import CachedPodView, ExperimentView
    from sagan_tui.panel.host import PanelHost
    from sagan_tui.panel.view import PanelView


class OwnerActionDone(Message):
    """An owner action finished (or was refused); posted to the main screen, which says so."""

    namespace = "owner"

    def __init__(self, result: ActionResult, clear_marks: bool = False):
        super().__init__()
        self.result = result
        self.clear_marks = clear_marks


class Selection(Protocol):
    """What a screen says is selected and marked, for the desk's actions."""

    def selected_experiment(self) -> ExperimentView | None: ...

    def selected_pod(self) -> CachedPodView | None: ...

    def marked_experiments(self) -> list[int]: ...

    def marked_pods(self) -> list[str]: ...

    def clear_marks(self) -> None: ...

    def hidden_marks(self, pane: str) -> tuple[list[str], str]:
        """Marked rows of `pane` ("experiments", "pods") a filter hides now, and what hides them."""
        ...


class OneExperiment:
    """The selection of a screen about one experiment (the detail): no pod, no marks."""

    def __init__(self, experiment: Callable[[], ExperimentView | None]) -> None:
        self.selected_experiment = experiment

    def selected_pod(self) -> None:
        return None

    def marked_experiments(self) -> list[int]:
        return []

    def marked_pods(self) -> list[str]:
        return []

    def clear_marks(self) -> None:
        pass

    def hidden_marks(self, pane: str) -> tuple[list[str], str]:
        return [], ""


class Desk:
    """Runs the desk's entries for one screen: the read-only gate, then the job's handler."""

    def __init__(self, node: DOMNode, selection: Selection, jobs: Mapping[str, Callable[[Desk], Any]]) -> None:
        self.node = node  # the screen: its notices, and `app`, once it is mounted
        self.selection = selection
        self.jobs: dict[str, Any] = {group: make(self) for group, make in jobs.items()}

    @property
    def host(self) -> PanelHost:
        return self.node.app  # type: ignore[return-value]

    @property
    def session(self) -> SessionSurface:
        return self.host.session

    @property
    def view(self) -> PanelView:
        return self.host.view

    @property
    def read_only(self) -> bool:
        return bool(self.host.settings.read_only)

    def run(self, name: str, *params: Any) -> Any:
        """The entry `name` on this screen's selection; a mutating one is refused in read-only."""
        entry = BY_NAME[name]
        if self.refused(entry):
            return None
        return getattr(self.jobs[entry.group], name)(*params)

    def refused(self, entry: Entry, target: str | None = None) -> bool:
        """The one read-only gate: a mutating entry is refused out loud and audited with what it
        was pressed on (`target`, else the selection's: `refusal_target`)."""
        if not entry.mutating or not self.read_only:
            return False
        on = target if target is not None else self.refusal_target(entry.name)
        self.call(lambda: self.session.refuse(entry.mutating or entry.name, on))
        return True

    def refusal_target(self, action: str) -> str:
        """What a refused key was pressed on, for its audit row: the marked rows for a bulk key
        ("none marked"), the selected pod for `s`, the selected experiment otherwise ("none
        selected"), the wave for `W`."""
        s = self.selection
        if action == "wave_response":
            return "wave"
        if action == "bulk_stop":
            return ",".join(s.marked_pods()) or "none marked"
        if action.startswith("bulk_"):
            return ",".join(f"#{n}" for n in s.marked_experiments()) or "none marked"
        if action == "stop_pod":
            pod = s.selected_pod()
            return pod.pod_id if pod is not None else "none selected"
        exp = s.selected_experiment()
        return f"#{exp.number}" if exp is not None else "none selected"

    # --- plumbing the jobs share ---------------------------------------------------------

    def notify(self, message: str, severity: str = "information") -> None:
        self.node.notify(message, severity=severity, markup=False)  # type: ignore[arg-type]

    def call(self, call: Callable[[], Awaitable[ActionResult]], *, clear_marks: bool = False, what: str = "") -> None:
        """Call the session from a worker; the result goes to the main screen, which outlives dialogs.
        `what` names the action (`q` while it waits says which)."""
        target = self.host.screen_stack[0]

        async def run() -> None:
            try:
                result = await call()
            except Exception as exc:  # the runner catches server failures; this is a bug's last stop
                result = ActionResult(ok=False, message=one_line(f"action failed: {type(exc).__name__}: {exc}"),
                                      server_error=one_line(str(exc)))
            target.post_message(OwnerActionDone(result, clear_marks))

        self.host.run_worker(run(), group="owner-actions", exit_on_error=False, description=what)

    def then(self, fetch: Callable[[], Awaitable[Any]], show: Callable[[Any], Any]) -> None:
        """Read something for a dialog in the session, then open it here; keys typed meanwhile go
        to the dialog (panel/key_hold.py), not to the panel behind it."""
        from sagan_tui.panel.key_hold import open_dialog

        async def run() -> Any:
            return show(await fetch())

        open_dialog(self.host, run)  # type: ignore[arg-type]

    def on_confirm(self, make: Callable[[], Awaitable[ActionResult]], **kw: Any) -> Callable[[bool | None], None]:
        def done(yes: bool | None) -> None:
            if yes:
                self.call(make, **kw)
        return done

    def target_experiment(self, status: str | None = None,
                          refuse: Callable[[int], Awaitable[ActionResult]] | None = None) -> ExperimentView | None:
        """The selected experiment, or None when it stops here: nothing selected, or an experiment
        not in `status`, which goes to `refuse` (the session refuses it with the reason and audits
        it): no dialog that could only be dismissed."""
        exp = self.selection.selected_experiment()
        if exp is None:
            self.notify("Select an experiment first.", severity="warning")
            return None
        if status is not None and exp.status != status and refuse is not None:
            number = exp.number
            self.call(lambda: refuse(number))
            return None
        return exp

    def guarded(self, action: str, verb: str, numbers: list[int], verdict: Any, lines: list[str], *,
                send: Callable[[str], Awaitable[ActionResult]], bulk: bool = False) -> Any:
        """The typed confirmation of a dispatch path during a wave: sent with what was typed (the
        session checks it again); a cancel is audited, as `r`'s is."""
        from sagan_tui.panel.screens.guard import GuardedDispatchScreen

        session, first = self.session, self.view.experiments.get(numbers[0])
        target = ", ".join(f"#{n}" for n in numbers)
        account = first.runpod_account if first is not None and len(numbers) == 1 else None

        def typed(text: str | None) -> None:
            if text is not None:
                self.call(lambda: send(text), clear_marks=bulk, what=f"{verb} {target}")
            else:  # a cancel during a wave is evidence of what the owner chose not to do
                self.call(lambda: session.record_cancelled(verb, target, account=account, detail=verdict.summary))

        if first is None:
            self.notify(f"#{numbers[0]} is not in the panel yet.", severity="warning")
            return None
        return self.host.push_screen(GuardedDispatchScreen(
            first, verdict, action=action, targets=lines if len(numbers) > 1 else None), typed)

    def done(self, event: OwnerActionDone) -> None:
        """An action's result, said under its title; a bulk action's marks go when it succeeded."""
        result = event.result
        # "2 of 3 stopped" as a warning, not "Failed": the title and severity are the result's.
        self.host.notify(toast_text(result.message, result.title), title=result.title, severity=result.severity,
                         markup=False, timeout={"information": None, "warning": 10, "error": 15}[result.severity])
        if result.ok and event.clear_marks:
            self.selection.clear_marks()


def exp_line(exp: ExperimentView) -> str:
    return f"#{exp.number} {one_line(exp.title, 70)} ({exp.status}, {exp.runpod_account or 'account ?'})"


def pod_line(p: CachedPodView) -> str:
    exp = f"#{p.experiment}" if p.experiment is not None else "no experiment"
    price = f" ${p.pod.cost_per_hr:.2f}/h" if p.pod.cost_per_hr is not None else ""
    gone = f" GONE ({p.gone_reason})" if p.gone_at else ""
    return (f"{p.pod_id}  account {p.account}  {exp}  {p.pod.desired_status}{gone}  "
            f"{one_line(p.pod.name or '', 40)} {one_line(p.pod.gpu or '', 30)}{price}")


def toast_text(message: str, title: str) -> str:
    """A result's message under its title, without saying the title twice: a bulk result's
    message begins with its count ("2 of 2 stopped: a, b"), which is the title already."""
    if title and message.startswith(title):
        rest = message[len(title):].lstrip(":; ")
        return rest or message
    return message
