"""The guarded re-dispatch dialog: the wave, the burn of one more loss, and the number typed to confirm."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, Input, Label, Static

from sagan_tui.wire import fmt
from sagan_tui.panel.safe_text import literal
from sagan_tui.panel.screens.confirm import Dialog

if TYPE_CHECKING:  # annotations only: in process mode these arrive as the channel's plain views
    from sagan_tui.wire.channel.views import ExperimentView as Experiment
    from sagan_tui.wire.channel.views import VerdictView as GuardVerdict
    from sagan_tui.wire.channel.views import WaveView as Wave


def wave_lines(wave: Wave) -> list[str]:
    """The wave as the dialog shows it: window and scope, then a table of the lost pods (capped)."""
    lines = [f"Wave: {len(wave.losses)} pods lost {fmt.window(wave.start, wave.end, seconds=True)}; "
             f"accounts {', '.join(wave.accounts)}; experiments {', '.join(map(fmt.exp, wave.experiments)) or '?'}",
             f"  {'pod':<14}  {'account':<8}  {'exp':>5}  {'lost at':<8}  after RUNNING"]
    pods = []
    for x in wave.losses:
        g = x.gap_s  # RUNNING to lost, as the session read it (unknown, or RUNNING after the loss: "?")
        pods.append(f"  {x.pod_id:<14}  {x.account:<8}  {fmt.exp(x.experiment):>5}  {fmt.hms(x.lost_at):<8}  "
                    f"{fmt.duration(g) if g is not None and g >= 0 else '?'}")
    return lines + list(fmt.capped(pods))


def guard_lines(verdict: GuardVerdict) -> list[str]:
    """Why the guard stopped the one-key re-dispatch, the wave, and the expected burn."""
    lines = [f"- {r}" for r in verdict.reasons]
    if verdict.wave is not None:
        lines += ["", *wave_lines(verdict.wave)]
    lines += ["", f"Expected burn of another lost try: ~{fmt.usd(verdict.expected_burn_usd)}"]
    return lines


class GuardedDispatchScreen(Dialog["str | None"]):
    """Returns what the owner typed (the core checks it again), or None on cancel.

    Opens with the focus in the input: typing the number and Enter confirms. Enter on anything
    else says what was expected and stays open; Escape or [Cancel] cancels. The [Re-dispatch]
    button stays disabled until the typed text is the experiment's number.
    """

    DEFAULT_CSS = Dialog.DEFAULT_CSS + """
    GuardedDispatchScreen #guard-facts { height: auto; padding: 1 0 0 0; }
    GuardedDispatchScreen #typed-row { height: 1; margin: 1 0 0 0; }
    GuardedDispatchScreen #typed-label { width: auto; color: $warning; padding: 0 1 0 0; }
    GuardedDispatchScreen #typed { width: 12; }
    GuardedDispatchScreen #typed-error { height: auto; color: $error; text-style: bold; }
    """
    AUTO_FOCUS = "#typed"

    def __init__(self, experiment: Experiment, verdict: GuardVerdict, *, action: str = "Re-dispatch",
                 targets: list[str] | None = None, what: str = "1 experiment"):
        """`action` names the dispatch path (Re-dispatch, Approve, Release, Canary); `targets` the
        lines of every experiment it dispatches (several for a bulk release); the token to type
        is the verdict's (the number, or for several their count)."""
        head = f"#{experiment.number}" if targets is None else f"{len(targets)} experiments"
        super().__init__(
            f"{action} {what if targets is None else head} through the dispatch guard"
            + (f": {head}" if targets is None else ""),
            targets or [f"#{experiment.number} {experiment.title} ({experiment.status}, "
                        f"{experiment.runpod_account or 'account ?'})"],
            confirm_label=action)
        self.experiment = experiment
        self.verdict = verdict
        self.action = action
        self.token = getattr(verdict, "token", "") or str(experiment.number)

    def compose_body(self) -> ComposeResult:
        yield Static(literal("\n".join(guard_lines(self.verdict)), multiline=True), id="guard-facts")
        with Horizontal(id="typed-row"):
            yield Label(f"Type {self.token} and Enter to {self.action.lower()} anyway (Escape cancels):",
                        id="typed-label")
            yield Input(placeholder="number", id="typed", max_length=12, restrict=r"[0-9]*",
                        compact=True)
        yield Static("", id="typed-error")

    def on_mount(self) -> None:
        # Textual centres a newly focused widget at its next turn, which may come before the
        # dialog has a layout (then nothing scrolls, and on a tall verdict at 24 rows the input
        # stays below the fold): centre it again, the same way, once the layout exists.
        self.call_after_refresh(self._show_input)
        self._armed(False)

    def _armed(self, ready: bool) -> None:
        """The button says what it waits for while disabled: in NO_COLOR a disabled button's label
        had no shade of its own and did not show at all."""
        button = self.query_one("#confirm", Button)
        button.disabled = not ready
        button.label = self.action if ready else f"{self.action} (type {self.token})"

    def _show_input(self) -> None:
        typed = self.query_one("#typed", Input)
        if self.focused is typed and not self.can_view_entire(typed):
            self.scroll_to_center(typed, origin_visible=True)

    def result(self) -> str:
        return self.query_one("#typed", Input).value.strip()

    @on(Input.Changed, "#typed")
    def _typed(self, event: Input.Changed) -> None:
        self._armed(event.value.strip() == self.token)
        self.query_one("#typed-error", Static).update("")

    @on(Input.Submitted, "#typed")
    def _submitted(self, event: Input.Submitted) -> None:
        # Typing the number is the deliberate act: Enter on it confirms. Anything else is
        # refused out loud, and the dialog stays open for a retry or an explicit cancel.
        event.stop()
        typed = event.value.strip()
        if typed == self.token:
            self.dismiss(typed)
            return
        said = f"you typed {typed}" if typed else "nothing typed"
        self.query_one("#typed-error", Static).update(literal(
            f"{said}: type {self.token} to {self.action.lower()}, or Escape to cancel. Nothing sent."))
