"""The panel's tables: experiments, pods (every account), timeline, pending approvals."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import BindingType
from textual.message import Message
from textual.reactive import reactive

from sagan_tui.wire import render
from sagan_tui.panel.layout import fit_body
from sagan_tui.panel.registry import OWN, bindings
from sagan_tui.panel.widgets.keyed_table import KeyedTable


class _TopRowTable(KeyedTable):
    """The experiments and pods tables: their rows decide their heights (panel/layout.py)."""

    def on_rows_changed(self) -> None:
        fit_body(self)

    def on_resize(self) -> None:
        fit_body(self)


class ExperimentsTable(_TopRowTable):
    def __init__(self, **kwargs) -> None:
        super().__init__(render.EXPERIMENT_COLUMNS, title="Experiments", **kwargs)

    def on_resize(self) -> None:
        """The title takes the pane's free width: the table is never wider than its pane."""
        self.set_column_widths(experiment_widths(self.scrollable_content_region.width, self.cell_padding))
        fit_body(self)


# Narrower than this, the title gives way no further: the status and turn columns do.
TITLE_LEAST, STATUS_LEAST, TURN_LEAST = 24, 12, 16


def experiment_widths(pane_width: int, padding: int = 1) -> dict[str, int]:
    """The experiments table's widths for a pane this wide: the title the rest of the pane
    (between TITLE_LEAST and its default); under that the raw status and the turn narrow first
    (cut cells end in `…`), so at 80 columns a title reads as more than its first word."""
    specs = {c.key: c.width or len(c.label) for c in render.EXPERIMENT_COLUMNS}
    chrome = 1 + 2 * padding * (len(specs) + 1)  # the mark column and every column's padding
    out = dict(specs)

    def free() -> int:
        return pane_width - chrome - sum(w for k, w in out.items() if k != "title")

    if free() < TITLE_LEAST:
        short = free() + specs["status"] - STATUS_LEAST + specs["turn"] - TURN_LEAST
        cut = max(0, TITLE_LEAST - short)  # what is still missing once both are at their least
        give = max(0, TITLE_LEAST - free() - cut)
        out["status"] = specs["status"] - min(give, specs["status"] - STATUS_LEAST)
        out["turn"] = specs["turn"] - (give - (specs["status"] - out["status"]))
    out["title"] = max(min(TITLE_LEAST, max(1, free())), min(specs["title"], free()))
    return {"status": out["status"], "turn": out["turn"], "title": out["title"]}


class PodsTable(_TopRowTable):
    BINDINGS: ClassVar[list[BindingType]] = bindings("pods", runner=OWN)  # panel/registry.py

    PINNED = "lost pinned below"  # a sort orders the live pods; the lost and gone stay under them

    class DismissRequested(Message):
        """The owner dismissed a lost or gone pod's row from this pane (local: nothing is sent to a
        server, and a loss stays in the losses, waves and report)."""

        def __init__(self, pod_id: str) -> None:
            super().__init__()
            self.pod_id = pod_id

    class ShowDismissedToggled(Message):
        """The owner asked to show the dismissed rows again (or to hide them)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(render.POD_COLUMNS, title="Pods", **kwargs)

    def action_toggle_dismissed(self) -> None:
        self.post_message(self.ShowDismissedToggled())

    def action_dismiss_loss(self) -> None:
        key = self.cursor_key
        row = self.records.get(key) if key else None
        if key is None or row is None or row.group == 0:
            self.notify("only a lost or gone pod's row can be dismissed", severity="warning", markup=False)
            return
        self.post_message(self.DismissRequested(key))


def text_widths(pane_width: int, padding: int = 1) -> dict[str, int]:
    """The timeline's `what` and `note` widths for a pane this wide: never under their defaults,
    `what` up to 40 with a third of what is free, `note` the rest (the pane scrolls past that)."""
    specs = {c.key: c.width or len(c.label) for c in render.TIMELINE_COLUMNS}
    fixed = 1 + sum(w for k, w in specs.items() if k not in ("what", "note"))  # 1: the mark column
    free = pane_width - fixed - 2 * padding * (len(specs) + 1)
    what = max(specs["what"], min(40, free // 3))
    return {"what": what, "note": max(specs["note"], free - what)}


class TimelineTable(KeyedTable):
    """Events newest first; for the selected experiment or every one; follow mode keeps the top in view."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("timeline", runner=OWN)  # panel/registry.py
    everything: reactive[bool] = reactive(True, init=False)
    follow: reactive[bool] = reactive(True, init=False)
    kind: reactive[str] = reactive("all", init=False)

    class Changed(Message):
        """Scope or type changed: the app re-reads the timeline."""

    def __init__(self, **kwargs) -> None:
        super().__init__(render.TIMELINE_COLUMNS, title="Timeline", **kwargs)

    def on_resize(self) -> None:
        """The text columns (what, note) take the pane's free width (zoomed, the whole screen's)."""
        self.set_column_widths(text_widths(self.scrollable_content_region.width, self.cell_padding))

    def action_toggle_scope(self) -> None:
        self.everything = not self.everything

    def action_toggle_follow(self) -> None:
        self.follow = not self.follow
        if self.follow and self.row_count:
            self.move_cursor(row=0)

    def action_cycle_kind(self) -> None:
        kinds = render.EVENT_KINDS
        self.kind = kinds[(kinds.index(self.kind) + 1) % len(kinds)]

    def watch_everything(self) -> None:
        self.post_message(self.Changed())

    def watch_kind(self) -> None:
        self.post_message(self.Changed())

    def watch_follow(self) -> None:
        self.describe(self._described)  # the title says whether it follows

    _described: int | None = None

    def describe(self, experiment: int | None) -> None:
        self._described = experiment
        where = "all" if self.everything or experiment is None else f"#{experiment}"
        bits = [where]
        if self.kind != "all":
            bits.append(self.kind)
        if self.follow:
            bits.append("follow")
        self.scope_label = " ".join(bits)
        self.refresh_titles()


class ApprovalsTable(KeyedTable):
    def __init__(self, **kwargs) -> None:
        super().__init__(render.APPROVAL_COLUMNS, title="Pending approvals", **kwargs)
