"""The hold dialog (`h`, `H`): the note Sagan records, and each pod the hold will stop, with a tick
the owner can take off (that pod is kept running). `W` lists its pods with the same ticks."""

from __future__ import annotations

from typing import Sequence

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Checkbox

from sagan_tui.panel.safe_text import clean, one_line
from sagan_tui.panel.screens.prompt import NoteScreen


class TickBox(Checkbox):
    """A checkbox whose mark says ticked or not without colour (NO_COLOR showed both as `X`)."""

    def watch_value(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "
        super().watch_value()

    def on_mount(self) -> None:
        self.BUTTON_INNER = "X" if self.value else " "


def stop_lines(stops) -> list[str]:
    """One line per pod a hold will stop: `stop <pod id> #N <GPU> $1.49/h 35 s old (CREATED)`;
    its strings (name, GPU) are RunPod's, shown literally by the caller's widget."""
    from sagan_tui.wire.fmt import duration

    out = []
    for t in stops:
        price = f"${t.cost_per_hr:.2f}/h" if t.cost_per_hr is not None else "$?/h"
        age = f"{duration(t.age_s)} old" if t.age_s is not None else "age unknown"
        exp = f" #{t.experiment}" if t.experiment is not None else ""
        out.append(one_line(f"stop {t.pod_id}{exp} {t.gpu or 'GPU?'} {price} {age} ({t.expected_status})", 160))
    return out


def stop_ticks(stops: Sequence) -> ComposeResult:
    """A ticked box per pod to stop, its id in the widget's id (`stop-<pod id>`)."""
    for text, t in zip(stop_lines(stops), stops):
        yield TickBox(Content(clean(text)), value=True, id=f"stop-{t.pod_id}", classes="stop-pod", compact=True)


def kept(screen, stops: Sequence) -> tuple[str, ...]:
    """The pods the owner unticked: not stopped."""
    return tuple(t.pod_id for t in stops
                 if not any(isinstance(w, Checkbox) and w.value for w in screen.query(f"#stop-{t.pod_id}")))


class HoldScreen(NoteScreen):
    """Returns {"note": str, "keep": (pod ids unticked)} on Hold, None on Cancel. Opens on Cancel."""

    DEFAULT_CSS = NoteScreen.DEFAULT_CSS + """
    HoldScreen Checkbox { border: none; padding: 0; height: 1; margin: 0; }
    """

    def __init__(self, title: str, targets: Sequence[str], stops: Sequence = (), **kw) -> None:
        super().__init__(title, targets, **kw)
        self.stops = tuple(stops)

    def compose_body(self) -> ComposeResult:
        yield from super().compose_body()
        yield from stop_ticks(self.stops)

    def result(self) -> dict:  # type: ignore[override]
        return {"note": super().result(), "keep": kept(self, self.stops)}
