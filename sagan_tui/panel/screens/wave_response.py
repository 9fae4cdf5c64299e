"""The wave response: one dialog proposing what the wave's verdict calls for (hold, dismiss nothing, ticket).

The proposal (which experiments, which lines, what is ticked) is core/triage/response.py's, made on
the session's side for the wave on screen and read through the channel; this module shows it, collects the owner's ticks and note, and sends what was ticked through the
ActionRunner (audited, in-flight guarded) and the report export, then says per line what happened.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Checkbox, Label, Static

from sagan_tui.panel.safe_text import clean, literal, one_line
from sagan_tui.panel.screens.confirm import Dialog
from sagan_tui.panel.screens.hold import TickBox, kept, stop_ticks
from sagan_tui.panel.screens.prompt import NoteField

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import ProposalView as Proposal


class WaveResponseScreen(Dialog["dict | None"]):
    """Returns {"hold": bool, "ticket": bool, "note": str} on Send, None on Cancel. Opens on Cancel."""

    DEFAULT_CSS = Dialog.DEFAULT_CSS + """
    WaveResponseScreen #targets { max-height: 4; margin: 0 0 1 0; }
    WaveResponseScreen Checkbox { border: none; padding: 0; height: 1; margin: 0; }
    WaveResponseScreen .line-targets { color: $text-muted; padding: 0 0 0 4; }
    WaveResponseScreen #note-row { height: auto; margin: 0 0 0 4; }
    WaveResponseScreen .statement { padding: 0 0 0 0; }
    WaveResponseScreen #note-label { width: auto; padding: 0 1 0 0; }
    """

    def __init__(self, proposal: Proposal, stops: tuple = ()):
        v = proposal.verdict
        targets = [f"+ {f.statement}" for f in v.for_[:3]] + [f"- {f.statement}" for f in v.against[:2]]
        targets += [f"- missing: {m}" for m in v.missing[:2]]
        left = [f"left out: {x}" for x in proposal.left_out]
        super().__init__(f"Wave response. {v.headline}", targets + left, confirm_label="Send",
                         confirm_variant="warning",
                         note="A hold sets status blocked and stops the pods ticked below (starting, or doomed in "
                              "the kill window); then no new pod is verified until the guard ends.")
        self.proposal = proposal
        self.stops = tuple(stops)

    def compose_body(self) -> ComposeResult:
        for line in self.proposal.lines:
            if not line.enabled:  # a statement, not a choice: a sentence, never a box to tick
                yield Static(literal(statement(line)), id=f"line-{line.key}", classes="statement")
                continue
            yield TickBox(Content(clean(line.label)), value=line.checked, id=f"line-{line.key}", compact=True)
            if line.detail:
                yield Static(literal(line.detail), classes="line-targets")
            if line.key == "hold":
                with Horizontal(id="note-row"):
                    yield Label("Note:", id="note-label")
                    yield NoteField(self.proposal.note, id="note")
                yield from stop_ticks(self.stops)  # untick one to keep it running

    def result(self) -> dict:
        def ticked(key: str) -> bool:
            found = [w for w in self.query(f"#line-{key}") if isinstance(w, Checkbox)]
            return bool(found) and found[0].value

        note = self.query("#note")
        return {"hold": ticked("hold"), "ticket": ticked("ticket"), "keep": kept(self, self.stops),
                "note": note.first(NoteField).value if note else ""}

    @on(NoteField.Submitted, "#note")
    def _to_send(self, event: NoteField.Submitted) -> None:
        event.stop()
        self.query_one("#confirm").focus()


def statement(line) -> str:
    """A line the owner cannot tick, as the sentence it is."""
    if line.key == "hold":  # disabled only when it would hold none
        return "Nothing to hold: no experiment of this wave would be re-dispatched into it."
    if line.key == "dismiss":
        return f"Nothing is dismissed: {line.detail}."
    return f"{line.label}: {line.detail}." if line.detail else f"{line.label}."


def open_wave_response(app: Any) -> None:
    """`W`: the response to the wave the panel shows (the active one, else the latest), proposed
    by the session; keys typed meanwhile go to the dialog (panel/key_hold.py). Read-only refuses
    the key before this (panel/desk.py), audited as every mutating key is."""
    from sagan_tui.panel.key_hold import open_dialog

    async def opened() -> Any:
        proposal = await app.session.wave_response()
        if proposal is None:
            app.notify("No reaping wave to respond to.", markup=False)
            return None

        def chosen(answer: dict | None) -> None:
            if answer and (answer["hold"] or answer["ticket"]):
                app.run_worker(_send(app, proposal, answer), group="owner-actions", exit_on_error=False,
                               description="the wave response (W)")
            elif answer is not None:
                app.notify("Nothing ticked: nothing sent.", markup=False)

        stops = await app.session.stop_targets(list(proposal.holds)) if proposal.holds else ()
        return app.push_screen(WaveResponseScreen(proposal, stops), chosen)

    open_dialog(app, opened)


async def _send(app: Any, proposal: Proposal, answer: dict) -> None:
    """Each ticked line in turn; one notification saying what happened to each."""
    from sagan_tui.wire.config import data_dir
    from sagan_tui.panel.clipboard import copy

    said: list[str] = []
    ok = True
    if answer["hold"]:
        result = await app.session.hold(list(proposal.holds), answer["note"] or proposal.note, "W",
                                        answer.get("keep", ()))
        ok &= result.ok
        said.append(f"hold: {result.message}")
    said.append(f"dismiss: nothing dismissed ({len(proposal.line('ticket').targets)} lost pods kept as evidence)")
    if answer["ticket"]:
        try:
            path, text = await app.session.export_report(data_dir(), "ticket")
            not_copied = copy(app, text)
            said.append(f"ticket: written to {path}")  # the clipboard on its own line (a long path wraps)
            said.append("ticket: copied to the clipboard (OSC 52)" if not_copied is None
                        else f"ticket: not copied: {not_copied}")
        except OSError as exc:
            ok = False
            said.append(f"ticket: not written: {one_line(exc)}")
    app.notify("\n".join(one_line(s, 400) for s in said), title="Wave response" if ok else "Wave response: not all done",
               severity="information" if ok else "error", markup=False, timeout=20)
    if answer["hold"]:
        app.request_refresh()
