"""The panel's actions as data: one entry per binding id (keymap.py), grouped by job; hosts compose the groups.

An entry says what a key does (Textual's action string on the node that offers it), its label
on the key bar, the job it belongs to, whether it changes Sagan, RunPod or the shared cache
(`mutating`: the verb a read-only refusal audits), who runs it, and whether it opens a dialog
(panel/key_hold.py). The keys are keymap.py's, so a key is written once. Who runs it:

- `OWN`: the widget or screen that declares it (a table's cursor keys, a dialog's close);
- `DESK`: the owner's desk of the screen that offers its group (panel/desk.py), on that screen's
  selection: plans, incident, pods, results, records;
- `APP`: the panel's own keys (panel/panel_keys.py), which work on every screen of the panel.

A host lists the groups it offers (`bindings(...)` in its BINDINGS) and gets their action methods
from `offering(...)`; read-only refuses every mutating entry in one place, the desk's `refused`.
Pure but for Textual's Binding record: imported by the first frame's widgets.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple

from textual.binding import Binding

from sagan_tui.wire.keymap import BY_ID

OWN, DESK, APP = "own", "desk", "app"


class Entry(NamedTuple):  # a NamedTuple, not a dataclass: the first frame makes this class (no exec'd methods)
    id: str  # the binding id (keymap.py): its keys, its help line
    action: str  # Textual's action string, parameters included
    label: str  # the key bar's and the palette's words
    group: str  # the job: panel, panes, plans, incident, pods, results, records, or a widget's scope
    runner: str = OWN
    mutating: str | None = None  # the verb read-only refuses and audits ("stop pod")
    opens_dialog: bool = False  # the keys typed after it go to its dialog (panel/key_hold.py)
    before_load: bool = False  # works from the first frame, before the session has opened the cache
    show: bool = True
    priority: bool = False

    @property
    def name(self) -> str:
        """The action's name without its parameters (`interval(1)` -> `interval`)."""
        return self.action.split("(", 1)[0]

    def binding(self) -> Binding:
        return Binding(BY_ID[self.id].keys, self.action, self.label, show=self.show, priority=self.priority,
                       id=self.id)


def _desk(id_: str, group: str, label: str, mutating: str | None = None, dialog: bool = True) -> Entry:
    return Entry(id_, id_.split(".", 1)[1], label, group, DESK, mutating, opens_dialog=dialog)


def _app(id_: str, action: str, label: str, *, dialog: bool = False, before_load: bool = False,
         show: bool = True) -> Entry:
    return Entry(id_, action, label, "panel", APP, opens_dialog=dialog, before_load=before_load, show=show)


def _own(id_: str, action: str, label: str, *, show: bool = True, priority: bool = False,
         mutating: str | None = None, group: str | None = None) -> Entry:
    return Entry(id_, action, label, group or id_.split(".", 1)[0], OWN, mutating, show=show, priority=priority)


def _hidden(id_: str, action: str, label: str, **kw: Any) -> Entry:
    return _own(id_, action, label, show=False, **kw)


# In the key bar's order (a host's bindings keep the order they have here).
ENTRIES: tuple[Entry, ...] = (
    _app("panel.help", "help", "Help", dialog=True, before_load=True),
    _app("panel.inbox", "inbox", "Inbox only"),
    _app("panel.incident", "incident", "Incident"),
    _app("panel.pause", "pause", "Pause/resume"),
    _app("panel.refresh", "refresh", "Refresh"),
    _app("panel.slower", "interval(1)", "Slower polls"),
    _app("panel.faster", "interval(-1)", "Faster polls"),
    _app("panel.zoom", "zoom", "Zoom pane", before_load=True),
    _app("panel.accounts", "accounts", "Accounts", dialog=True),
    _app("panel.quit", "quit", "Quit", before_load=True),
    # Not on the key bar (its room is for the incident's keys): the help lists it, and the area says it.
    _app("panel.dismiss_news", "dismiss_news", "Clear notifications", before_load=True, show=False),
    # The owner's desk, on a screen's selection (main screen, experiment detail).
    _desk("panel.review_approval", "plans", "Approval"),
    _desk("panel.hold", "incident", "Hold", "hold"),
    _desk("panel.redispatch", "results", "Re-dispatch", "re-dispatch"),
    _desk("panel.stop_pod", "pods", "Stop pod", "stop pod"),
    _desk("panel.promote", "results", "Promote", "promote"),
    _desk("panel.bulk_hold", "incident", "Hold marked", "bulk hold"),
    _desk("panel.bulk_stop", "pods", "Stop marked", "bulk stop"),
    _desk("panel.audit", "records", "Audit log"),
    _desk("panel.export_report", "results", "Export report", dialog=False),
    _desk("panel.wave_response", "incident", "Wave response", "wave response"),  # panel/screens/wave_response.py
    _desk("panel.release", "incident", "Release", "release"),  # the key bar abbreviates what does not fit
    _desk("panel.bulk_release", "incident", "Release marked", "bulk release"),
    _desk("panel.canary", "incident", "Canary", "canary"),
    _desk("panel.acknowledge", "incident", "Acknowledge wave", dialog=False),  # `K`, not `k` (keymap.py)
    *(_hidden(f"panel.pane_{name}", f"pane('{name}')", f"Pane {n}: {name}", group="panes")
      for n, name in enumerate(("experiments", "pods", "timeline", "losses", "approvals"), 1)),
    # Any table pane. The arrows and page keys are ScrollView's, with LineTable's actions; Home and
    # End go to the first and last row (ScrollView's scroll sideways, which an owner never meant here).
    _hidden("table.select", "select_cursor", "Open"),
    _hidden("table.top", "cursor_top", "First row"),
    _hidden("table.bottom", "cursor_bottom", "Last row"),
    # j/k as vim, less and k9s move; the wave's acknowledgement left `k` for `K` (keymap.py).
    _hidden("table.down", "scroll_down", "Down"),
    _hidden("table.up", "scroll_up", "Up"),
    _own("table.mark", "toggle_mark", "Mark"),
    _hidden("table.mark_all", "mark_all", "Mark all"),
    _hidden("table.invert_marks", "invert_marks", "Invert marks"),
    _hidden("table.sort", "cycle_sort", "Sort"),
    _hidden("table.sort_reverse", "reverse_sort", "Reverse sort"),
    _own("table.filter", "filter", "Filter"),
    _hidden("table.next_match", "next_match(1)", "Next match"),
    _hidden("table.previous_match", "next_match(-1)", "Previous match"),
    # `x` writes the shared cache: refused in read-only (by the main screen's desk, which hears it).
    _own("pods.dismiss", "dismiss_loss", "Dismiss lost", mutating="dismiss"),
    _hidden("pods.show_dismissed", "toggle_dismissed", "Show dismissed"),
    _own("timeline.scope", "toggle_scope", "All/selected"),
    _own("timeline.follow", "toggle_follow", "Follow"),
    _own("timeline.type", "cycle_kind", "Type"),
    _own("heatmap.dimension", "cycle_dimension", "Rows by"),
    _own("heatmap.window", "cycle_window", "Window"),
    _hidden("heatmap.left", "move(0, -1)", "Earlier"),
    _hidden("heatmap.right", "move(0, 1)", "Later"),
    _hidden("heatmap.up", "move(-1, 0)", "Row up"),
    _hidden("heatmap.down", "move(1, 0)", "Row down"),
    _own("heatmap.select", "select_cell", "Cell losses"),
    # The loss area's: the page keys read on through the wave's text, the heatmap keeps the arrows.
    _hidden("heatmap.page_down", "wave_page(1)", "Wave text down", group="wave"),
    _hidden("heatmap.page_up", "wave_page(-1)", "Wave text up", group="wave"),
    _hidden("heatmap.end", "wave_end(1)", "Wave text end", group="wave"),
    _hidden("heatmap.home", "wave_end(0)", "Wave text start", group="wave"),
    _own("filter.cancel", "cancel", "Cancel"),
    _own("detail.close", "close", "Back"),
    _own("detail.raw", "toggle_raw", "Plan raw/markdown"),
    _own("detail.reload", "fetch", "Reload plan"),  # as refresh on the panel; `u` releases
    _own("pod.close", "close", "Back"),
    _own("pod.copy_id", "copy_id", "Copy id"),
    _own("pod.experiment", "experiment", "Experiment"),
    _own("approval.close", "close", "Close"),
    # priority: a terminal sends alt+a as ESC a, which a focused Input would take as the letter a.
    # Read-only opens the request with these refused (panel/desk.py's `refused`, through the dialog).
    _own("approval.approve", "decide('approve')", "Approve", priority=True, mutating="approve"),
    _own("approval.reject", "decide('reject')", "Reject", priority=True, mutating="reject"),
    _own("approval.defer", "decide('defer')", "Defer", priority=True, mutating="defer"),
    # priority: the App moves the focus before it hands on the next key. Without it a tab typed
    # in one burst with the answers (a fast typist, a paste over SSH) was queued behind them and
    # the next answer landed in the field before.
    _hidden("approval.next_field", "next_field(1)", "Next field", priority=True),
    _hidden("approval.previous_field", "next_field(-1)", "Previous field", priority=True),
    _own("audit.close", "close", "Close"),
    _hidden("audit.close_q", "close", "Close"),
    _hidden("audit.down", "move(1)", "Down"),  # as in the panel's tables
    _hidden("audit.up", "move(-1)", "Up"),
    _own("dialog.cancel", "cancel", "Cancel"),
    _own("help.close", "close", "Close"),
    _own("accounts.close", "close", "Close"),
)
BY_ENTRY_ID: dict[str, Entry] = {e.id: e for e in ENTRIES}
# The desk's and the App's entries by action name: what a generated action method runs.
BY_NAME: dict[str, Entry] = {e.name: e for e in ENTRIES if e.runner != OWN}
# The owner's desk's jobs, as the main screen offers them all.
DESK_GROUPS = ("plans", "incident", "pods", "results", "records")


def bindings(*groups: str, runner: str | None = None) -> list[Binding]:
    """The bindings of `groups` (job names or widget scopes), in the registry's order."""
    return [e.binding() for e in ENTRIES if e.group in groups and (runner is None or e.runner == runner)]


def desk_bindings() -> list[Binding]:
    """The owner's desk's keys, as a screen that offers the desk declares them (not the panes'
    own keys of the same jobs: `x` is the pods pane's)."""
    return bindings(*DESK_GROUPS, runner=DESK)


def mutating_ids() -> frozenset[str]:
    return frozenset(e.id for e in ENTRIES if e.mutating)


def offering(*groups: str) -> Callable[[type], type]:
    """A class decorator: the host gets an `action_<name>` method for each desk or App entry of
    `groups`, which asks the host's `desk` to run it (the desk refuses a mutating one in
    read-only). Textual finds actions by attribute at dispatch; the bindings are the class's own
    BINDINGS (`bindings(...)`, merged when the class is made), and must hold every entry offered."""
    from sagan_tui.panel.key_hold import opens_dialog

    def method(entry: Entry) -> Callable[..., Any]:
        def act(self: Any, *params: Any) -> Any:
            return self.desk.run(entry.name, *params)

        act.__name__ = f"action_{entry.name}"
        act.__doc__ = f"{entry.label} ({entry.id}; panel/registry.py)"
        return opens_dialog(act) if entry.opens_dialog else act

    def offer(cls: type) -> type:
        offered = [e for e in ENTRIES if e.group in groups and e.runner != OWN]
        declared = {b.id for b in getattr(cls, "BINDINGS", []) if isinstance(b, Binding)}
        missing = [e.id for e in offered if e.id not in declared]
        if missing:
            raise TypeError(f"{cls.__name__} offers {groups} without their bindings: {missing}")
        for entry in offered:
            act = method(entry)
            act.__qualname__ = f"{cls.__qualname__}.{act.__name__}"
            setattr(cls, act.__name__, act)
        return cls

    return offer
