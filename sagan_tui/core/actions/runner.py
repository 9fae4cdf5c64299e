"""The owner's actions against Sagan and RunPod: refused in read-only, audited, never sent twice at once."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Mapping, Sequence

import msgspec

from sagan_tui.core.actions.results import ActionResult, StopTarget
from sagan_tui.core.config_model import Settings
from sagan_tui.core.models import Action, ApprovalRequest, utcnow, valid_pod_id
from sagan_tui.wire.safe_text import clean, one_line
from sagan_tui.core.sources.errors import SourceError, SourceTimeout, scrub
from sagan_tui.core.sources.runpod_base import RunPodTransport
from sagan_tui.core.sources.sagan import SaganClient
from sagan_tui.core.store.cache import Cache

if TYPE_CHECKING:
    from sagan_tui.core.triage.guard import GuardVerdict

DECISIONS = ("approve", "reject", "defer")
DECIDED = {"approve": "approved", "reject": "rejected", "defer": "deferred"}
# The audit verb of a pod stop: Cache.owner_stops() reads it, so a stop the owner asked for
# is never counted as a loss when the pod disappears from the next poll.
STOP_VERB = "stop"
DEFAULT_HOLD_NOTE = "Held by the owner from sagan-tui."
DEFAULT_RELEASE_NOTE = "Released by the owner from sagan-tui."


class Refusal(Exception):
    """Raised inside an action to refuse it before anything is sent; the text is the reason."""


class ActionRunner:
    """One per panel. Every method returns an ActionResult; none raises for a server's failure.

    The in-flight set lives on the event loop: the check and the insert happen with no
    await between them, so a double keypress can never send the same action twice.
    """

    def __init__(self, settings: Settings, cache: Cache, sagan: SaganClient,
                 transports: Mapping[str, RunPodTransport], *, clock: Callable[[], datetime] = utcnow,
                 offload: Callable[..., Awaitable[Any]] | None = None):
        self.settings = settings
        self.cache = cache
        self.sagan = sagan
        self.transports = transports
        self.clock = clock
        self.offload = offload or asyncio.to_thread  # where the cache is written (the session's writer)
        self._in_flight: set[tuple[str, str]] = set()
        self._secrets = settings.secrets()

    @classmethod
    def for_poller(cls, settings: Settings, cache: Cache, poller: Any, *,
                   clock: Callable[[], datetime] = utcnow) -> "ActionRunner":
        """Share the poller's clients (one connection pool, one key per account) and its writer."""
        return cls(settings, cache, poller.sagan, poller.transports, clock=clock,
                   offload=getattr(poller, "offload", None))

    def in_flight(self, verb: str, target: str) -> bool:
        return (verb, target) in self._in_flight

    # --- the common path ---------------------------------------------------------------

    async def _perform(self, verb: str, target: str, send: Callable[[], Awaitable[str]], *,
                       account: str | None = None, detail: str | None = None,
                       key: tuple[str, str] | None = None, origin: str | None = None,
                       experiment: int | None = None) -> ActionResult:
        """Refuse, audit, send, record: the one path every action takes. `experiment`: its account
        is read from the cache (after the action is marked in flight: a double press that reaches
        here twice sends once, the first, whatever the reads' order)."""
        key = key or (verb, target)
        # Marked before the first await: two presses on one loop are told apart here, in order.
        claimed = not self.settings.read_only and key not in self._in_flight
        if claimed:
            self._in_flight.add(key)
        try:
            if experiment is not None and account is None:
                exp = await self.offload(self.cache.experiment, int(experiment))
                account = exp.runpod_account if exp else None
            done = lambda ok, message, **kw: ActionResult(  # noqa: E731
                ok=ok, message=clean(message, multiline=True), verb=verb, target=target, account=account, **kw)
            if self.settings.read_only:
                result = done(False, f"read-only: {verb} {target} refused (the panel was started with --read-only)",
                              refused=True)
                return await self._record(result, detail, origin)
            if not claimed:
                result = done(False, f"{verb} {target} is already in flight: not sent again", refused=True)
                return await self._record(result, detail, origin)
            audit_id = await self.offload(self.cache.audit, Action(
                at=self.clock(), action=verb, target=target, account=account, detail=detail, origin=origin))
            try:
                message = await send()
                result = done(True, message)
            except Refusal as why:
                result = done(False, f"{verb} {target} not sent: {why}", refused=True)
            except SourceError as exc:
                said = self._clean(exc.message)
                hint = (" (it may still have been applied: the next poll will tell)"
                        if isinstance(exc, SourceTimeout) else "")
                result = done(False, f"{verb} {target} failed: {said}{hint}", server_error=said)
            except Exception as exc:  # a bug or a bad id must still end as a visible failure
                said = self._clean(f"{type(exc).__name__}: {exc}")
                result = done(False, f"{verb} {target} failed: {said}", server_error=said)
            await self.offload(self.cache.finish_action, audit_id, result.result,
                               None if result.ok else result.message)
            return msgspec.structs.replace(result, audit_id=audit_id)
        finally:
            if claimed:
                self._in_flight.discard(key)

    async def refuse_read_only(self, what: str, target: str = "-") -> ActionResult:
        """A mutating key pressed in read-only: said out loud and audited with what it was pressed
        on (`target`, "-" for nothing), nothing looked up or sent."""
        verb = what.replace(" ", "-")
        on = self._clean(target) or "-"
        result = ActionResult(ok=False, refused=True, verb=verb, target=on,
                              message=f"read-only: {what} refused{'' if on == '-' else ' on ' + on}"
                                      " (the panel was started with --read-only)")
        return await self._record(result, None)

    async def _record(self, result: ActionResult, detail: str | None, origin: str | None = None) -> ActionResult:
        audit_id = await self.offload(self.cache.audit, Action(
            at=self.clock(), action=result.verb, target=result.target, account=result.account,
            result=result.result, error=result.message, detail=detail, origin=origin))
        return msgspec.structs.replace(result, audit_id=audit_id)

    async def record_cancelled(self, verb: str, target: str, *, account: str | None = None,
                               why: str = "cancelled by the owner", detail: str | None = None) -> ActionResult:
        """Audit an action the owner backed out of in its dialog (nothing was sent): a guarded
        re-dispatch cancelled during a wave is evidence of what the owner chose not to do."""
        result = ActionResult(ok=False, message=clean(f"{verb} {target} {why}: nothing sent", multiline=True),
                              cancelled=True, verb=verb, target=target, account=account)
        return await self._record(result, detail)

    async def record_done(self, verb: str, target: str, message: str, *, ok: bool = True,
                          detail: str | None = None) -> ActionResult:
        """Audit what the owner did inside the panel (acknowledge a wave, export the report): it
        sends nothing to Sagan or RunPod, so read-only allows it, but `A` must show it."""
        said = self._clean(message)
        result = ActionResult(ok=ok, message=said, verb=verb, target=self._clean(target))
        audit_id = await self.offload(self.cache.audit, Action(
            at=self.clock(), action=verb, target=result.target, result=result.result,
            error=None if ok else said, detail=detail or said))
        return msgspec.structs.replace(result, audit_id=audit_id)

    def _clean(self, text: str) -> str:
        return one_line(scrub(text, self._secrets), limit=2000)

    @staticmethod
    def _confirmed(reply: Any, what: str) -> None:
        if not (isinstance(reply, dict) and reply.get("ok") is True):
            raise SourceError("sagan", f"{what}: the server did not confirm (no \"ok\": true in its reply)")

    async def _experiment(self, number: int):
        exp = await self.offload(self.cache.experiment, int(number))
        if exp is None:
            raise Refusal(f"#{number} is not in the cache yet (wait for the next poll)")
        return exp

    # --- the dispatch guard, on every path that makes Sagan dispatch ----------------------

    def _verdict(self, verb: str, numbers: Sequence[int], armed: str = "") -> Awaitable[GuardVerdict]:
        from sagan_tui.core.actions.guard import guard_of

        return self.offload(guard_of, self.cache, verb, list(numbers), self.clock(), self.settings.guard_minutes,
                            armed)

    @staticmethod
    async def _guard(verdict: Awaitable[GuardVerdict], confirm: str | None) -> None:
        """Refuse (nothing sent) unless the guard is quiet or the owner typed its token."""
        v = await verdict
        if v.needs_typed_confirmation and (confirm or "").strip() != v.token:
            raise Refusal(f"dispatch guard: {v.summary}; type {v.token} to confirm")

    # --- Sagan -------------------------------------------------------------------------

    async def decide(self, approval: ApprovalRequest, decision: str, answers: Mapping[str, str] | None = None,
                     note: str = "", confirm: str | None = None) -> ActionResult:
        """Approve, reject or defer a request. Approving needs every [TEXTBOX:name] answered, and
        goes through the dispatch guard: approval is what makes Sagan dispatch."""
        target = f"#{approval.experiment_number}" if approval.experiment_number is not None else approval.id
        given = {k: (v or "").strip() for k, v in (answers or {}).items()}
        fields = approval.textbox_fields
        sent = {f: given[f] for f in fields if given.get(f)}

        async def send() -> str:
            if decision not in DECISIONS:
                raise Refusal(f"unknown decision {decision!r}")
            missing = [f for f in fields if not sent.get(f)]
            if decision == "approve" and missing:
                raise Refusal("approving needs every textbox answered; empty: " + ", ".join(missing)
                              + " (write n/a where a field does not apply)")
            if decision == "approve" and approval.experiment_number is not None:
                await self._guard(self._verdict("approve", (approval.experiment_number,)), confirm)
            reply = await self.sagan.decide(approval.id, decision, sent, note.strip())
            self._confirmed(reply, "decision")
            state = (reply.get("approvalRequest") or {}).get("status") if isinstance(reply, dict) else None
            # The request's new state, stamped with when the owner decided: a deferred request
            # must stay reachable (`a` opens it, the inbox says it was deferred, and when).
            decided = approval.model_copy(update={"status": str(state or DECIDED[decision]),
                                                  "updated_at": self.clock()})
            await self.offload(self.cache.record_approval, decided)
            return f"{decision} sent for {target}" + (f": request now {state}" if state else "")

        return await self._perform(decision, target, send, key=("decide", approval.id),
                                   detail=f"approval {approval.id}; answers: {', '.join(sent) or 'none'}")

    async def hold(self, number: int, note: str = "", origin: str = "h") -> ActionResult:
        """Set the experiment to `blocked`, which stops Sagan's recovery from re-dispatching it;
        `origin` (h, H, W, canary, watch) is audited with it: who held it is never guessed later."""
        async def send() -> str:
            reply = await self.sagan.set_status(int(number), "blocked", note.strip() or DEFAULT_HOLD_NOTE)
            self._confirmed(reply, "status")
            status = (reply.get("experiment") or {}).get("status", "blocked")
            return f"#{number} held: status {status}"

        return await self._perform("hold", f"#{number}", send, experiment=number,
                                   detail=one_line(note, limit=500) or None, origin=origin)

    async def release(self, number: int, note: str = "", confirm: str | None = None, *, armed: str = "",
                      batch: Sequence[int] = ()) -> ActionResult:
        """Undo a hold: `blocked` back to `approved` (Sagan's status verb); only a blocked experiment.
        Through the dispatch guard (a released experiment is dispatched again by Sagan's recovery):
        `confirm` is the token typed for the whole `batch` (this one alone by default)."""
        async def send() -> str:
            exp = await self._experiment(number)
            if exp.status != "blocked":
                raise Refusal(f"#{number} is {exp.status}, not blocked: there is no hold to release")
            await self._guard(self._verdict("release", batch or (number,), armed), confirm)
            reply = await self.sagan.set_status(int(number), "approved", note.strip() or DEFAULT_RELEASE_NOTE)
            self._confirmed(reply, "status")
            status = (reply.get("experiment") or {}).get("status", "approved")
            return f"#{number} released: status {status}"

        return await self._perform("release", f"#{number}", send, experiment=number,
                                   detail=one_line(note, limit=500) or None)

    async def bulk_release(self, numbers: Iterable[int], note: str = "", confirm: str | None = None, *,
                           armed: str = "") -> ActionResult:
        numbers = list(dict.fromkeys(int(n) for n in numbers))
        parts = await asyncio.gather(*(self.release(n, note, confirm, armed=armed, batch=numbers) for n in numbers))
        return _summary("release", "released", [f"#{n}" for n in numbers], parts)

    async def canary(self, number: int, confirm: str | None = None) -> ActionResult:
        """The canary: a held experiment released and re-dispatched at once, through the dispatch
        guard (its number typed while a wave or forming cluster is active)."""
        async def send() -> str:
            exp = await self._experiment(number)
            if exp.status != "blocked":
                raise Refusal(f"#{number} is {exp.status}, not blocked: a canary is one of the held experiments")
            await self._guard(self._verdict("canary", (number,)), confirm)
            self._confirmed(await self.sagan.set_status(int(number), "approved", "Canary: released by the owner "
                                                        "to re-dispatch one pod and watch it."), "status")
            reply = await self.sagan.launch_pod(int(number), "Canary re-dispatch by the owner from sagan-tui.")
            self._confirmed(reply, "launch-pod")
            return f"#{number} released and re-dispatched as the canary: watching its pod"

        return await self._perform("canary", f"#{number}", send, experiment=number)

    async def redispatch(self, number: int, note: str = "", confirm: str | None = None) -> ActionResult:
        """Ask Sagan to launch a pod for an approved experiment, through the dispatch guard.

        When the guard demands it, `confirm` must be the experiment number as the owner typed it.
        """
        async def send() -> str:
            exp = await self._experiment(number)
            if exp.status != "approved":
                raise Refusal(f"#{number} is {exp.status}, not approved: Sagan dispatches only approved experiments")
            await self._guard(self._verdict("redispatch", (number,)), confirm)
            reply = await self.sagan.launch_pod(int(number), note.strip())
            self._confirmed(reply, "launch-pod")
            run = reply.get("agentRunId")
            return f"#{number} re-dispatched" + (f": agent run {one_line(run, limit=80)}" if run else "")

        return await self._perform("redispatch", f"#{number}", send, experiment=number)

    async def promote(self, number: int) -> ActionResult:
        async def send() -> str:
            exp = await self._experiment(number)
            if exp.status != "awaiting_promotion":
                raise Refusal(f"#{number} is {exp.status}: only an experiment awaiting promotion can be promoted")
            self._confirmed(await self.sagan.promote(int(number)), "promote")
            return f"#{number} promoted"

        return await self._perform("promote", f"#{number}", send)

    async def bulk_hold(self, numbers: Iterable[int], note: str = "", origin: str = "H") -> ActionResult:
        numbers = list(dict.fromkeys(int(n) for n in numbers))
        parts = await asyncio.gather(*(self.hold(n, note, origin) for n in numbers))
        return _summary("hold", "held", [f"#{n}" for n in numbers], parts)

    # --- RunPod ------------------------------------------------------------------------

    async def stop_pod(self, pod_id: str, account: str, expected_status: str = "RUNNING",
                       experiment: int | None = None, also: frozenset[str] = frozenset()) -> ActionResult:
        """Stop one pod with its own account's key, after re-checking it is still what the owner saw
        (or one of `also`: containment stops a starting pod that has reached RUNNING since, too)."""
        async def send() -> str:
            if not valid_pod_id(pod_id):
                raise Refusal("not a RunPod pod id")
            transport = self.transports.get(account)
            if transport is None:
                raise Refusal(f"account {account} has no key configured in this panel")
            changed = await self._recheck(transport, pod_id, account, expected_status, also)
            if changed:
                raise Refusal(changed)
            reply = await transport.stop(pod_id)
            stopped = ((reply or {}).get("data") or {}).get("podStop") if isinstance(reply, dict) else None
            if not isinstance(stopped, dict):
                raise SourceError(account, "podStop: RunPod's reply has no podStop result")
            return f"pod {pod_id} ({account}) stopping: RunPod says {stopped.get('desiredStatus', 'accepted')}"

        exp = f", #{experiment}" if experiment is not None else ""
        return await self._perform(STOP_VERB, pod_id, send, account=account,
                                   detail=f"expected {expected_status}{exp}")

    async def _recheck(self, transport: RunPodTransport, pod_id: str, account: str, expected: str,
                       also: frozenset[str] = frozenset()) -> str | None:
        """What changed since the owner looked, or None when the pod is still as they saw it."""
        cached = next((p for p in await self.offload(self.cache.pods) if p.pod_id == pod_id), None)
        if cached is None:
            return f"the cache has no record of pod {pod_id}"
        if cached.account != account:
            return f"the last poll lists {pod_id} under account {cached.account}, not {account}"
        if cached.gone_at is not None:
            return f"the last poll saw {pod_id} gone ({cached.gone_reason or 'no longer listed'})"
        ok = {expected, *also}
        if cached.pod.desired_status not in ok:
            return f"the last poll saw {pod_id} {cached.pod.desired_status}, not {expected}"
        live = await transport.get_pod(pod_id)
        if live is None:
            return f"pod {pod_id} no longer exists in account {account} (RunPod says not found)"
        if live.desired_status not in ok:
            return f"pod {pod_id} is now {live.desired_status}, not {expected}"
        return None

    async def bulk_stop(self, targets: Sequence[StopTarget]) -> ActionResult:
        parts = await asyncio.gather(*(self.stop_pod(t.pod_id, t.account, t.expected_status, t.experiment)
                                       for t in targets))
        return _summary(STOP_VERB, "stopped", [t.pod_id for t in targets], parts)


def _summary(verb: str, did: str, targets: list[str], parts: Sequence[ActionResult]) -> ActionResult:
    """One line for a bulk action: how many of how many, and what each failure said."""
    good = [p.target for p in parts if p.ok]
    bad = [p for p in parts if not p.ok]
    message = f"{len(good)} of {len(parts)} {did}"
    if good:
        message += ": " + ", ".join(good)
    if bad:
        message += "; not done: " + "; ".join(p.message for p in bad)
    return ActionResult(ok=bool(parts) and not bad, message=message, did=did,
                        refused=bool(parts) and all(p.refused for p in parts),
                        server_error="; ".join(p.server_error for p in bad if p.server_error) or None,
                        verb=f"bulk {verb}", target=", ".join(targets), parts=tuple(parts))
