"""The owner's desk: what the owner asks of the session, the actions (each audited, each a
coroutine of its typed result) and what the dialogs show (read in the session's SQLite thread).
PanelSession (core/session/core.py) composes one; it owns the SQLite thread and the model these
run on, and the desk reaches them through its `DeskHost` surface."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Awaitable, Callable, Protocol, Sequence

from msgspec.structs import replace

from sagan_tui.wire.channel.views import UpdateView

if TYPE_CHECKING:
    from datetime import datetime

    from sagan_tui.core.actions.contain import Containment
    from sagan_tui.core.actions.results import ActionResult, StopTarget
    from sagan_tui.core.actions.runner import ActionRunner
    from sagan_tui.wire.channel.views import ProposalView
    from sagan_tui.core.config_model import Settings
    from sagan_tui.core.models import Action, ApprovalRequest
    from sagan_tui.core.session.model import PanelModel
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller
    from sagan_tui.core.triage import GuardVerdict


class DeskHost(Protocol):
    """What the desk needs of its session (PanelSession): its parts, as they are now (the model
    and the runner exist once the cache is open), its SQLite thread and its updates."""

    settings: "Settings"
    cache: "Cache | None"
    poller: "Poller | None"
    model: "PanelModel | None"
    runner: "ActionRunner | None"
    containment: "Containment | None"
    clock: "Callable[[], datetime]"

    def in_db(self, fn: Callable[..., Any], *args: Any) -> Awaitable[Any]: ...
    def publish(self, update: object) -> None: ...
    def refresh(self, at: "datetime | None" = None) -> None: ...
    def update_of(self, delta: Any, notes: tuple = ()) -> UpdateView: ...


class OwnerDesk:
    """The owner's actions and the dialogs' reads, on its session's loop and SQLite thread."""

    def __init__(self, host: DeskHost):
        self.host = host

    # The session's parts, read when used: the model, runner and containment come with the open.
    settings = property(lambda self: self.host.settings)
    cache = property(lambda self: self.host.cache)
    poller = property(lambda self: self.host.poller)
    model = property(lambda self: self.host.model)
    runner = property(lambda self: self.host.runner)
    containment = property(lambda self: self.host.containment)
    clock = property(lambda self: self.host.clock)

    # --- the owner's actions: each returns an awaitable of its typed result --------------

    async def refuse(self, what: str, target: str = "-") -> "ActionResult":
        """A mutating key in read-only: refused out loud, and the audit log says so (with its target)."""
        return await self._acting(lambda: self.runner.refuse_read_only(what, target))

    async def decide(self, approval: "ApprovalRequest", decision: str, answers: dict[str, str],
               note: str, confirm: str | None = None) -> "ActionResult":
        """Approving goes through the dispatch guard (the runner refuses it without `confirm`)."""
        own = ("hold" if decision == "reject" else "approve", [approval.experiment_number]) \
            if approval.experiment_number is not None and decision != "defer" else None
        return await self._acting(lambda: self.runner.decide(approval, decision, answers, note, confirm), own)

    async def hold(self, numbers: Sequence[int], note: str, origin: str = "h",
             keep: Sequence[str] = ()) -> "ActionResult":
        """Containment (core/actions/contain.py): hold `numbers`, stop their starting and doomed pods but
        those the owner unticked (`keep`), and verify until the guard ends; `origin` is audited."""
        return await self.contain(list(numbers), note, origin, frozenset(keep))

    async def stop_targets(self, numbers: Sequence[int]) -> "tuple[StopTarget, ...]":
        """What containment would stop for `numbers` now, for the dialog to list before Send."""
        return await self.host.in_db(self._doomed, list(numbers))

    def _doomed(self, numbers: list[int]) -> "tuple[StopTarget, ...]":
        from sagan_tui.core.actions.contain import stop_targets

        m = self.model
        wave = m.active_wave()
        return tuple(stop_targets(m.pods.values(), numbers, self.clock(), wave.gap_median_s if wave else None))

    async def contain(self, numbers: list[int], note: str, origin: str,
                       keep: frozenset[str] = frozenset()) -> "ActionResult":
        import msgspec

        targets = [t for t in await self.host.in_db(self._doomed, numbers) if t.pod_id not in keep]
        known = await self.host.in_db(lambda: {n: {p.pod_id for p in self.model.pods.values() if p.experiment == n}
                                           for n in numbers})
        done = await self.containment.contain(numbers, targets, origin=origin, note=note, known_pods=known)
        now = self.clock()
        for n in numbers:
            if n in self.containment.watched and self.model is not None:
                self.model.incident.own_change(n, now)  # the owner's own change: a hold to watch, no "your turn"
                self.model.incident.held(n, now, origin)
        self.host.refresh()
        return msgspec.structs.replace(done.hold, message=done.message)

    async def release(self, numbers: Sequence[int], note: str = "", confirm: str | None = None) -> "ActionResult":
        """Blocked back to approved (one, or the marks), through the dispatch guard: during a wave,
        or after a canary was lost, only with the typed token; the owner's own change is not
        announced back."""
        numbers = list(numbers)
        armed = self._canary_lost()
        run = (lambda: self.runner.release(numbers[0], note, confirm, armed=armed)) if len(numbers) == 1 else (
            lambda: self.runner.bulk_release(numbers, note, confirm, armed=armed))
        for n in numbers if self.containment is not None else ():
            self.containment.released(n)
        return await self._acting(run, ("release", numbers))

    def _canary_lost(self) -> str:
        """The guard's reason after a failed canary ("nothing more is released"), else ""."""
        c = self.model.canary if self.model is not None else None
        if c is None or c.state(self.clock()) != "lost":
            return ""
        return f"canary #{c.experiment} was lost ({c.pod_id}): the wave still kills, nothing more is released"

    async def dispatch_guard(self, verb: str, numbers: Sequence[int]) -> "GuardVerdict":
        """The guard a dispatch path (approve, release, redispatch, canary) meets for `numbers`,
        the same verdict the runner enforces: the dialog asks for its token when it needs one."""
        from sagan_tui.core.actions.guard import guard_of

        armed = self._canary_lost() if verb == "release" else ""
        return await self.host.in_db(guard_of, self.cache, verb, list(numbers), self.clock(),
                          self.settings.guard_minutes, armed)

    async def release_refused(self, number: int) -> "ActionResult":
        """`u` on an experiment that is not blocked: the runner refuses it with the reason, audited."""
        return await self._acting(lambda: self.runner.release(number))

    async def canary(self, number: int, confirm: str | None = None) -> "ActionResult":
        """Release `number` and re-dispatch it through the guard; on success its pod is watched."""
        result = await self._acting(lambda: self.runner.canary(number, confirm), ("release", [number]))
        if result.ok and self.containment is not None:
            self.containment.released(number)
        if result.ok and self.model is not None:
            lines = self.model.incident_lines
            lines.start_canary(number, lines.held_now())
        return result

    async def canary_rest(self) -> "tuple[int, ...]":
        """The held experiments a passed canary proposes releasing (empty unless it passed)."""
        def rest() -> tuple[int, ...]:
            c = self.model.canary if self.model is not None else None
            if c is None or c.state(self.clock()) != "passed":
                return ()
            return tuple(n for n in c.held if (e := self.model.experiments.get(n)) and e.status == "blocked")

        return await self.host.in_db(rest)

    async def blocked_by(self, numbers: Sequence[int]) -> "dict[int, str]":
        """experiment -> who blocked it (the owner, W, Sagan's pod-stop cascade), for the release dialog."""
        from sagan_tui.core.actions.holds import blocked_by

        return await self.host.in_db(blocked_by, self.cache, list(numbers))

    async def acknowledge_wave(self) -> str:
        """The wave on screen acknowledged (persisted): quiet until it grows; what was done, in words."""
        said = await self._changing(_redrawn(lambda m: m.incident_lines.acknowledge()), self.model)
        await self.runner.record_done("acknowledge", "wave", said)  # `A` shows it beside the actions
        return said

    async def start_canary(self, number: int) -> str:
        """Watch `number` as the canary (after its guarded re-dispatch): its line in the wave panel."""
        def start(m: PanelModel) -> str:
            return m.incident_lines.start_canary(number, m.incident_lines.held_now())

        return await self._changing(_redrawn(start), self.model)

    async def held_now(self) -> "tuple[int, ...]":
        return await self.host.in_db(lambda: self.model.incident_lines.held_now())

    async def redispatch(self, number: int, note: str, confirm: str | None = None) -> "ActionResult":
        return await self._acting(lambda: self.runner.redispatch(number, note, confirm=confirm))

    async def promote(self, number: int) -> "ActionResult":
        return await self._acting(lambda: self.runner.promote(number))

    async def stop(self, targets: Sequence["StopTarget"]) -> "ActionResult":
        targets = list(targets)
        t = targets[0] if len(targets) == 1 else None
        run = (lambda: self.runner.stop_pod(t.pod_id, t.account, t.expected_status, t.experiment)) if t else (
            lambda: self.runner.bulk_stop(targets))
        return await self._acting(run)

    async def record_cancelled(self, verb: str, target: str, *, account: str | None = None,
                         detail: str | None = None) -> "ActionResult":
        """An action the owner backed out of in its dialog, audited (nothing is sent)."""
        return await self.runner.record_cancelled(verb, target, account=account, detail=detail)

    async def _acting(self, run: Callable[[], Awaitable["ActionResult"]],
                      own: tuple[str, list[int]] | None = None) -> "ActionResult":
        result = await run()
        if result.ok or any(p.ok for p in result.parts):
            if own is not None and self.model is not None:  # the owner's own change: a hold to watch, no "your turn"
                verb, numbers = own
                done = {n for n in numbers if result.ok and len(numbers) == 1
                        or any(p.ok and p.target == f"#{n}" for p in result.parts)}
                for n in done:
                    self.model.incident.own_change(n, self.clock())
                    if verb == "hold":
                        self.model.incident.held(n, self.clock())
                    else:
                        self.model.incident.released(n)
            self.host.refresh()  # its effect shows on the next poll
        return result

    async def dismiss(self, pod_id: str) -> str:
        """Hide a lost (or gone) pod's row from the pods pane; what was done, in words."""
        return await self._changing(self.model.dismiss if self.model else None, pod_id)

    async def balance_history(self) -> dict:
        """The cache's balance history per account, for the account view's sparkline (terminal's hunk)."""
        return await self.host.in_db(self.cache.balance_history)

    async def toggle_dismissed(self) -> str:
        return await self._changing(self.model.toggle_dismissed if self.model else None)

    async def _changing(self, fn: Callable[..., Any] | None, *args: Any) -> str:
        if fn is None:
            return "the cache is still being opened"
        def change() -> tuple[str, UpdateView]:
            said, delta = fn(*args)
            return said, self.host.update_of(delta)  # its rows read back in the same thread

        said, update = await self.host.in_db(change)  # another process's write lock waited out on the loop
        self.host.publish(replace(update, said=said, answer=True))
        return said

    # --- what the dialogs show, read in the SQLite thread --------------------------------

    async def hold_note(self) -> str:
        """The note a hold is prefilled with: the active wave's one line, when there is one."""
        def note() -> str:
            from sagan_tui.core.triage import wave_summary

            wave = self.model.active_wave()
            return f"Held by the owner: {wave_summary(wave)}." if wave is not None else ""

        return await self.host.in_db(note)

    async def wave_response(self) -> "ProposalView | None":
        """W's proposal for the wave on screen (the active one, else the latest), as the channel's view."""
        def proposal() -> "ProposalView | None":
            from sagan_tui.core.session.incident_view import shown_of
            from sagan_tui.core.session.views import proposal_view
            from sagan_tui.core.triage.response import propose

            from sagan_tui.core.triage.summary import summarize

            m = self.model
            shown, _until = shown_of(m.waves, m.clock(), self.settings.guard_minutes)  # the wave panel's
            if shown < 0:
                return None
            night = summarize(m.waves, m.losses, self.cache.incident_rows.last_acknowledged())  # what the ticket file holds
            return proposal_view(propose(m.waves[shown], m.experiments, ticket=night))

        return await self.host.in_db(proposal)

    async def dispatch_verdict(self, number: int) -> "GuardVerdict":
        from sagan_tui.core.actions.guard import dispatch_verdict

        return await self.host.in_db(dispatch_verdict, self.cache, number, self.clock(),
                          self.settings.guard_minutes)

    async def approvals_of(self, number: int, status: str = "pending") -> "list[ApprovalRequest]":
        """One experiment's requests in `status` (a deferred one stays reachable from `a`)."""
        return await self.host.in_db(lambda: [a for a in self.cache.approvals(status)
                                                if a.experiment_number == number])

    async def audit_log(self, limit: int = 500) -> "list[Action]":
        return await self.host.in_db(self.cache.actions, limit)

    async def export_report(self, directory: Any, source: str = "export") -> tuple[Any, str]:
        """Write the incident report (`e`, or W's ticket: `source`), audited with the file it wrote."""
        from sagan_tui.core.actions.guard import export_report

        try:
            path, text = await self.host.in_db(export_report, self.cache, self.clock(), directory,
                                           self.settings.guard_minutes)
        except OSError as exc:
            await self.runner.record_done(source, str(directory), f"not written: {exc}", ok=False)
            raise
        await self.runner.record_done(source, path.name, f"incident report written to {path}")
        return path, text

    async def pod_detail(self, pod_id: str) -> Any:
        """A pod's screen from the cache and the model (core/session/pod_detail.py), read in the writer thread."""
        from sagan_tui.core.session.pod_detail import pod_detail

        return await self.host.in_db(lambda: pod_detail(pod_id, self.model, self.cache, self.clock()))

    async def view(self, number: int) -> Any:
        """One experiment as Sagan serves it now (the detail's plan and fields)."""
        return await self.poller.sagan.view(number)


def _redrawn(fn: Callable[[PanelModel], str]) -> Callable[[PanelModel], tuple[str, Any]]:
    """`fn`'s words with the wave panel redrawn: it changed the incident's state (core/session/incident_view.py)."""
    def change(m: PanelModel) -> tuple[str, Any]:
        from sagan_tui.core.session.model import Delta

        return fn(m), Delta(losses=True)
    return change
