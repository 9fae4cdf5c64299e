"""The desk's incident job: hold (one, marked), the wave's response, release (one, marked, after a canary), canary, acknowledge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagan_tui.panel.desk import exp_line

if TYPE_CHECKING:
    from sagan_tui.panel.desk import Desk

HOLD_NOTE = ("Sets the status to blocked and stops the pods listed (starting, or doomed inside the wave's "
             "kill window), then verifies no new pod comes until the guard ends.")


def canary_note(waves: Any, shown: int) -> str:
    """What C's dialog says it watches: past the kill time of the wave the session would take (the
    one shown, else the latest; core/session/incident_view.py's IncidentLines.start_canary), or, with no wave, no kill time."""
    wave = waves[shown] if 0 <= shown < len(waves) else (waves[-1] if waves else None)
    if wave is None or wave.gap_median_s is None:
        why = "no wave on record, so no kill time" if wave is None else "the wave's kill time is unknown"
        return f"Releases it, re-dispatches one pod and watches it run for a while ({why} to wait past)."
    return (f"Releases it, re-dispatches one pod and watches it past the wave's kill time "
            f"({round(wave.gap_median_s)} s after RUNNING).")


class IncidentActions:
    def __init__(self, desk: Desk) -> None:
        self.desk = desk

    # --- hold ----------------------------------------------------------------------------

    def hold(self) -> None:
        exp = self.desk.target_experiment()
        if exp is not None:
            self._hold_dialog([exp.number], f"Hold 1 experiment: #{exp.number}", [exp_line(exp)], origin="h")

    def bulk_hold(self) -> None:
        from sagan_tui.panel.bulk_plans import plan_hold
        from sagan_tui.panel.screens.confirm import counted

        desk = self.desk
        marked = list(desk.selection.marked_experiments())
        if not marked:
            desk.notify("No experiment is marked (space marks one).", severity="warning")
            return
        known = {n: desk.view.experiments.get(n) for n in marked}
        plan = plan_hold(marked, known)
        hidden, by = desk.selection.hidden_marks("experiments")
        warning = plan.warning([f"#{k}" for k in hidden], by)
        if not plan.targets:
            desk.notify(f"Nothing to hold. {warning}", severity="warning")
            return
        lines = [exp_line(e) if (e := known.get(n)) else f"#{n} (not in the cache)" for n in plan.targets]
        self._hold_dialog(list(plan.targets), f"Hold {counted(len(plan.targets), 'experiment')}", lines,
                          bulk=True, warning=warning, origin="H")

    def _hold_dialog(self, numbers: list[int], title: str, lines: list[str], bulk: bool = False,
                     warning: str = "", origin: str = "h") -> None:
        from sagan_tui.panel.screens.hold import HoldScreen

        desk = self.desk
        session = desk.session

        def chosen(answer: dict | None) -> None:
            if answer is not None:
                desk.call(lambda: session.hold(numbers, answer["note"], origin, answer["keep"]), clear_marks=bulk,
                          what="hold " + ", ".join(f"#{n}" for n in numbers))

        async def opened() -> tuple[str, tuple]:
            return await session.hold_note(), await session.stop_targets(numbers)

        desk.then(opened, lambda got: desk.host.push_screen(HoldScreen(
            title, lines, got[1], confirm_label="Hold", note_value=got[0], note=HOLD_NOTE, warning=warning), chosen))

    def wave_response(self) -> None:
        """The wave's verdict and its response in one dialog."""
        from sagan_tui.panel.screens.wave_response import open_wave_response

        open_wave_response(self.desk.host)  # keys typed after W meet the dialog's bindings (panel/key_hold.py)

    # --- release and canary ----------------------------------------------------------------

    def release(self) -> None:
        exp = self.desk.target_experiment("blocked", self.desk.session.release_refused)
        if exp is not None:
            self._release_dialog([exp.number], bulk=False)

    def bulk_release(self) -> None:
        desk = self.desk
        marked = [n for n in desk.selection.marked_experiments()
                  if (e := desk.view.experiments.get(n)) is not None and e.status == "blocked"]
        if marked:
            self._release_dialog(marked, bulk=True)
            return
        session = desk.session

        async def rest() -> tuple[tuple[int, ...], Any]:  # no marks: those a passed canary vouches for
            numbers = tuple(await session.canary_rest())
            return numbers, (await self._release_facts(list(numbers)) if numbers else None)

        def show(found: tuple[tuple[int, ...], Any]) -> Any:
            numbers, facts = found
            if not numbers:
                desk.notify("Nothing to release: mark held experiments (space), or pass a canary first.",
                            severity="warning")
                return None
            return self._release_screen(list(numbers), facts, bulk=False, ready=True)

        desk.then(rest, show)

    async def _release_facts(self, numbers: list[int]) -> tuple[dict[int, str], Any]:
        """Who held each one, and the guard a release of them meets."""
        session = self.desk.session
        return await session.blocked_by(numbers), await session.dispatch_guard("release", numbers)

    def _release_dialog(self, numbers: list[int], bulk: bool) -> None:
        self.desk.then(lambda: self._release_facts(numbers),
                       lambda facts: self._release_screen(numbers, facts, bulk=bulk, ready=False))

    def _release_screen(self, numbers: list[int], facts: tuple[dict[int, str], Any], bulk: bool,
                        ready: bool) -> Any:
        """The release dialog, or during a wave (or after a lost canary) the guard's typed one."""
        desk = self.desk
        session = desk.session
        who, verdict = facts
        lines = [f"{exp_line(e) if (e := desk.view.experiments.get(n)) else f'#{n}'}  held by {who.get(n, '?')}"
                 for n in numbers]
        if verdict.needs_typed_confirmation:
            note = f"Released by the owner through the dispatch guard: {verdict.summary}"
            return desk.guarded("Release", "release", numbers, verdict, lines, bulk=bulk,
                                send=lambda typed: session.release(numbers, note, typed))
        return self._release_note(numbers, lines, bulk, ready)

    def _release_note(self, numbers: list[int], lines: list[str], bulk: bool, ready: bool) -> Any:
        from sagan_tui.panel.screens.confirm import counted
        from sagan_tui.panel.screens.prompt import NoteScreen

        desk = self.desk
        session = desk.session

        def chosen(note: str | None) -> None:
            if note is not None:
                desk.call(lambda: session.release(numbers, note), clear_marks=bulk,
                          what="release " + ", ".join(f"#{n}" for n in numbers))

        return desk.host.push_screen(NoteScreen(
            f"Release {counted(len(numbers), 'experiment')}", lines, confirm_label="Release",
            note=("Sets the status back to approved: Sagan may dispatch it again, auto-recovery included."
                  + ("" if ready else " During a wave, C (canary) re-dispatches one first.")),
            note_value="Released by the owner from sagan-tui."), chosen)

    def canary(self) -> None:
        desk = self.desk
        exp = desk.target_experiment("blocked", desk.session.release_refused)
        if exp is None:
            return
        session, n = desk.session, exp.number

        def dialog(verdict: Any) -> Any:
            from sagan_tui.panel.screens.confirm import ConfirmScreen

            if verdict.needs_typed_confirmation:
                return desk.guarded("Canary", "canary", [n], verdict, [exp_line(exp)],
                                    send=lambda typed: session.canary(n, typed))
            view = desk.view
            return desk.host.push_screen(ConfirmScreen(
                f"Canary 1 experiment: #{n}", [exp_line(exp)], confirm_label="Release and re-dispatch",
                note=canary_note(view.waves, view.loss_view.shown if view.loss_view else -1)),
                desk.on_confirm(lambda: session.canary(n, str(n)), what=f"canary #{n}"))

        desk.then(lambda: session.dispatch_guard("canary", [n]), dialog)

    def acknowledge(self) -> None:
        desk = self.desk
        session = desk.session

        async def run() -> None:
            said = await session.acknowledge_wave()
            desk.host.notify(said, title="Acknowledged", markup=False)

        desk.host.run_worker(run(), group="owner-ack", exit_on_error=False)
