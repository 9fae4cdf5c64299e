"""The guarded re-dispatch dialog: the wave, the burn of one more loss, and the number typed to confirm."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Button, Input, Label, Static

from sagan_tui.models import Experiment
from sagan_tui.triage import GuardVerdict, Wave
from sagan_tui.triage import fmt
from sagan_tui.triage.gaps import gap_of
from sagan_tui.ui.safe_text import literal
from sagan_tui.ui.screens.confirm import Dialog


def wave_lines(wave: Wave) -> list[str]:
    """The wave as the dialog shows it: window, scope, then one line per lost pod (capped)."""
    lines = [f"Wave {fmt.window(wave.start, wave.end, seconds=True)}: {len(wave.losses)} pods lost, "
             f"accounts {', '.join(wave.accounts)}, experiments {', '.join(map(fmt.exp, wave.experiments)) or '?'}"]
    pods = []
    for x in wave.losses:
        g = gap_of(x)
        after = f", {fmt.duration(g)} after RUNNING" if g is not None else ""
        pods.append(f"  {x.pod_id}  {x.account:<8} {fmt.exp(x.experiment):>5}  lost {fmt.hms(x.lost_at)}{after}")
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

    Confirm stays disabled until the typed text is the experiment's number.
    """

    DEFAULT_CSS = Dialog.DEFAULT_CSS + """
    GuardedDispatchScreen #guard-facts { height: auto; max-height: 14; padding: 1 0 0 0; }
    GuardedDispatchScreen #guard-facts Static { width: auto; }
    GuardedDispatchScreen #typed-label { padding: 1 0 0 0; color: $warning; }
    """

    def __init__(self, experiment: Experiment, verdict: GuardVerdict):
        super().__init__(
            f"Re-dispatch 1 experiment through the dispatch guard: #{experiment.number}",
            [f"#{experiment.number} {experiment.title} ({experiment.status}, {experiment.runpod_account or 'account ?'})"],
            confirm_label="Re-dispatch")
        self.experiment = experiment
        self.verdict = verdict

    def compose_body(self) -> ComposeResult:
        with VerticalScroll(id="guard-facts"):
            yield Static(literal("\n".join(guard_lines(self.verdict)), multiline=True))
        yield Label(f"Type {self.experiment.number} to re-dispatch anyway:", id="typed-label")
        yield Input(placeholder=str(self.experiment.number), id="typed", max_length=12, restrict=r"[0-9]*")

    def on_mount(self) -> None:
        self.query_one("#confirm", Button).disabled = True

    def result(self) -> str:
        return self.query_one("#typed", Input).value.strip()

    @on(Input.Changed, "#typed")
    def _typed(self, event: Input.Changed) -> None:
        self.query_one("#confirm", Button).disabled = event.value.strip() != str(self.experiment.number)

    @on(Input.Submitted, "#typed")
    def _submitted(self, event: Input.Submitted) -> None:
        # Typing the number is the deliberate act; Enter then only moves to the enabled button.
        event.stop()
        confirm = self.query_one("#confirm", Button)
        if not confirm.disabled:
            confirm.focus()
