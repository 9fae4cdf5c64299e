"""PanelSession: the panel's core on its owner's asyncio loop: cache, per-source polls, model, actions, clock.

Its owner (core/session/serve.py's SessionHost, in the session process or, for a test, in the test's
own process over a socketpair) runs it on its loop: `start()` there, `await close()` at the end.
The owner never touches SQLite or a source: it awaits the methods below and those of
its `desk` (core/session/owner.py's OwnerDesk) and passes on what `publish` hands it: the Open's
answer (ReadyView or FailedView), then each update as the wire's UpdateView, built here. Every source polls on
its own schedule and backoff as a task of that loop, and one SQLite thread (core/session/db.py's
SQLiteWorker) does every cache read and write: poll writes, the audit log, pruning, dismissals,
and the model's reads, so they never interleave. Another process's write lock is waited out on
the loop, not in that thread: the owner's reads never queue behind it.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
from datetime import datetime
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from msgspec.structs import replace

from sagan_tui.wire.basics import HeldClock, utcnow
from sagan_tui.wire.channel.views import FailedView, NoteView, ReadyView, TimelineView, UpdateView
from sagan_tui.core.session.db import SQLiteWorker
from sagan_tui.core.session.owner import OwnerDesk

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import HeatGridView, IncidentView
    from sagan_tui.core.actions.runner import ActionRunner
    from sagan_tui.wire.config import Draft
    from sagan_tui.core.config_model import Settings
    from sagan_tui.core.session.model import Delta, PanelModel
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import ChangeSet, Poller

log = logging.getLogger(__name__)
# Another writer's commits are looked for this often (and after each poll of ours).
WATCH_S = 1.0
# Retention is counted in days: pruning at start and hourly keeps a panel left open for weeks bounded.
PRUNE_EVERY_S = 3600.0
# A cache file that could not be put back is tried again this often: each try copies the whole cache.
CACHE_RETRY_S = 30.0


def _one_line(text: object) -> str:
    from sagan_tui.wire.safe_text import one_line

    return one_line(str(text), limit=2000)


class PanelSession:
    """Owns what the panel's panes are built from; the App only wires keys and applies updates."""

    def __init__(self, settings: "Settings | Draft", publish: Callable[[object], None], *,
                 cache: "Cache | None" = None, poller: "Poller | None" = None,
                 clock: Callable[[], datetime] = utcnow, poll: bool = True,
                 polls_by: Callable[[], None] | None = None) -> None:
        self.settings: Settings = settings  # type: ignore[assignment]  # validated when it opens
        self.clock = clock
        self.cache, self.poller = cache, poller
        self._owns_cache = cache is None
        self.model: PanelModel | None = None
        self._incident_shown: dict | None = None  # the incident view last handed over (core/session/incident_view.py)
        self.runner: ActionRunner | None = None
        self.containment = None  # core/actions/contain.py's Containment, made with the runner
        self.desk = OwnerDesk(self)  # the owner's actions and the dialogs' reads (core/session/owner.py)
        self._send = publish
        self._closed = False  # closed: nothing more is published (a discarded session's late news)
        # Attached to a `watch` (core/session/hub.py): the watch's polls are this session's; it never
        # polls a source, reads what the watch wrote (foreign, health included), and a refresh asks
        # the watch to poll now. One set of polls for any number of panels.
        self._polls_by = polls_by
        self._poll = poll and polls_by is None
        self.paused = False
        self._db = SQLiteWorker()
        self._main_task: asyncio.Task | None = None
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self._timelines: dict[str, tuple[int | None, str]] = {"main": (None, "all")}
        self._heatmap: tuple[str, float | None, int] | None = None  # the scope the UI asked for
        self._heat_labels: dict[str, tuple[str, ...]] = {}  # the last grid's rows, per dimension
        self._in_flight: dict[str, float] = {}
        self._due: dict[str, float] = {}
        self._kicks: dict[str, asyncio.Event] = {}
        self._forced: set[str] = set()
        self._round: set[str] = set()
        self._round_no = 0  # a refresh starts a new round: a poll begun before it does not end it
        self.polls = 0
        self._cache_trouble: tuple[str, float] | None = None  # the last failure to put the cache back, and when
        self._pods_followed = None  # core/session/pod_follow.py's PodFollower, made when serving starts

    # --- life ------------------------------------------------------------------------

    def start(self) -> None:
        """Open (unless open_now did) and serve, as a task of the running loop (its owner's)."""
        self._main_task = asyncio.get_running_loop().create_task(self._run(), name="sagan-session")

    async def close(self) -> None:
        """Stop polling, close the clients (and the cache, if the session opened it); on the owner's loop.
        Once it returns, the session publishes nothing more."""
        self._stop.set()
        for kick in self._kicks.values():
            kick.set()
        if self._main_task is not None:
            await asyncio.gather(self._main_task, return_exceptions=True)
        elif self.poller is not None and self.model is not None:
            await self.poller.aclose()  # opened by open_now, never started
        self._closed = True
        self._db.shutdown()

    @property
    def closed(self) -> bool:
        """Closed and awaited: its polls stopped, it publishes nothing more."""
        return self._closed

    def publish(self, update: object) -> None:
        if not self._closed:
            self._send(update)

    async def _run(self) -> None:
        try:
            await self._main()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # a bug of ours: the panel must end saying so, not hang
            log.exception("the session stopped")
            if self.model is None:
                self.publish(FailedView(f"sagan-tui: the panel's session failed: {type(exc).__name__}: {exc}"))

    def open_now(self) -> ReadyView:
        """Open and read everything on the caller's thread, before the app's loop runs (tests and
        embedding hand the app a cache: the panel is whole from its first frame on)."""
        return self._open(self.settings)

    async def _main(self) -> None:
        from sagan_tui.wire.config import ConfigError, Draft
        from sagan_tui.core.config_model import validate

        if self.model is not None:  # opened already, by open_now
            return await self._serving()
        try:
            settings = validate(self.settings) if isinstance(self.settings, Draft) else self.settings
        except ConfigError as exc:  # its text names the setting, never a secret
            self.publish(FailedView(f"sagan-tui: {_one_line(exc)}", exit_code=2))
            return
        try:
            ready = await self.in_db(self._open, settings)
        except Exception as exc:  # noqa: BLE001 - shown, then the panel exits
            # A CacheUnusable names the path and the cause itself, and exits 2 (the file untouched).
            code = getattr(exc, "exit_code", 1)
            why = _one_line(str(exc) if code == 2 else f"{type(exc).__name__}: {exc}")
            self.publish(FailedView(f"sagan-tui: cannot open the cache: {why}", exit_code=code))
            return
        self.publish(ready)
        await self._serving()

    async def _serving(self) -> None:
        try:
            await self._serve()
        finally:
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)
            if self._pods_followed is not None:
                await self._pods_followed.aclose()
            if self.poller is not None:
                await self.poller.aclose()
            if self._owns_cache and self.cache is not None:
                await self.in_db(self.cache.close)

    def _open(self, settings: "Settings") -> ReadyView:
        """In the SQLite thread: the cache (migrated or moved aside as needed), the poller, the
        runner, and the model read whole. Slow (imports, pydantic, thousands of rows)."""
        from sagan_tui.core.actions.contain import Containment
        from sagan_tui.core.actions.runner import ActionRunner
        from sagan_tui.core.session.model import PanelModel
        from sagan_tui.core.store.cache import Cache
        from sagan_tui.core.sync.poller import Poller

        self.settings = settings
        # Attached: the watch holds this file open and checked it when it opened it.
        self.cache = self.cache or Cache(settings.cache_path, checked=self._polls_by is not None)
        self.poller = self.poller or Poller(settings, self.cache)
        self.poller.offload = self.in_db  # its writes go through the one SQLite thread too
        self.runner = ActionRunner.for_poller(settings, self.cache, self.poller, clock=self.clock)
        self.containment = Containment(self.runner, settings.guard_minutes)
        self.model = PanelModel(settings, self.cache, self.clock)
        self.model.containment = self.containment
        self.model.load(self.poller.health)
        return ReadyView(settings.ui(), tuple(self.cache.notices), self._full())

    async def _serve(self) -> None:
        from sagan_tui.core.session.pod_follow import PodFollower

        transports = self.poller.transports
        self._pods_followed = PodFollower(transports.get, lambda view: self.publish(UpdateView(pod_logs=(view,))))
        sources = self.poller.sources
        self._round = set(sources)
        now = time.monotonic()
        for name in sources:
            self._kicks[name] = asyncio.Event()
            self._due[name] = now if self._poll else float("inf")
            self._tasks.append(asyncio.create_task(self._source(name), name=f"poll-{name}"))
        self._tasks.append(asyncio.create_task(self._every(WATCH_S, self._watch), name="watch"))
        self._tasks.append(asyncio.create_task(self._every(PRUNE_EVERY_S, self._prune, at_once=True),
                                               name="prune"))
        await self._stop.wait()

    async def in_db(self, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in the session's one SQLite thread (core/session/db.py)."""
        return await self._db.run(fn, *args)

    # --- polls, each source on its own --------------------------------------------------

    async def _source(self, name: str) -> None:
        # Until the session stops, not only until cancelled: on Python 3.11 a cancel that lands as
        # a wait_for inside a poll completes is swallowed (the poll returns), and the loop goes on.
        while not self._stop.is_set():
            await self._until_due(name)
            if not self._stop.is_set():
                await self._poll_one(name)

    async def _until_due(self, name: str) -> None:
        kick = self._kicks[name]
        while not self._stop.is_set():
            if name in self._forced:
                self._forced.discard(name)
                return
            wait = None if self.paused else self._due[name] - time.monotonic()
            if wait is not None and wait <= 0:
                return
            kick.clear()
            try:
                async with asyncio.timeout(None if wait == float("inf") else wait):
                    await kick.wait()
            except TimeoutError:
                pass

    async def _poll_one(self, name: str) -> None:
        round_no = self._round_no
        self._in_flight[name] = time.monotonic()
        self.publish(UpdateView(in_flight=dict(self._in_flight)))
        try:
            changes = await self.poller.poll_source(name)
        except Exception as exc:  # noqa: BLE001 - a bug of ours; a source's failure is in its health
            log.exception("poll of %s crashed", name)
            changes, crash = None, _one_line(f"{type(exc).__name__}: {exc}")
        else:
            crash = None
        finally:
            self._in_flight.pop(name, None)
        self._due[name] = time.monotonic() + self.poller.due_in(name, self.settings.poll_interval)
        update = await self.in_db(self._applied, changes, crash)
        if changes is not None:
            update = await self._contained(update)
        if round_no == self._round_no:
            self._round.discard(name)
            if not self._round:
                self.polls += 1
                self._round = set(self.poller.sources)
        self.publish(replace(update, in_flight=dict(self._in_flight), polls=self.polls))
        foreign = await self.in_db(self._foreign)
        if foreign is not None:
            self.publish(foreign)

    def _applied(self, changes: "ChangeSet | None", crash: str | None) -> UpdateView:
        from sagan_tui.core.session.model import announcements

        if changes is None:
            return UpdateView(notes=(NoteView(f"poll failed: {crash}", severity="error"),))
        before = {n: h.state for n, h in self.model.health.items()}
        delta = self.model.apply(changes)
        return self.update_of(delta, tuple(announcements(delta, before, self.model.health)))

    async def _contained(self, update: UpdateView) -> UpdateView:
        """After a poll, in the same round: containment retries its failed stops and looks for
        overrides, and a canary this poll saw lost is held again (origin `canary`) before the
        poll's news goes out, so the line that says it was lost also says it is held."""
        from dataclasses import replace as changed

        m, now = self.model, self.clock()
        if self.containment is None or m is None or (not self.containment.watched and m.canary is None):
            return update  # nothing held through containment, no canary: the poll's update as it is
        seen = await self.in_db(lambda: ({n: (e.status, e.updated_at, None) for n, e in m.experiments.items()
                                           if n in self.containment.watched}, list(m.pods.values())))
        before = self.containment.lines(now)
        await self.containment.step(now, *seen)  # its overrides are told by the incident watch's notes
        c = m.canary
        notes: tuple = ()
        if c is not None and c.state(now) == "lost" and c.reheld_at is None:
            note = (f"Held again: canary #{c.experiment} lost its pod {c.pod_id} to the wave; "
                    "nothing more is released.")
            m.canary = changed(c, reheld_at=now)  # before the await: another source's poll must not hold it twice
            result = await self.desk.contain([c.experiment], note, "canary")
            m.canary = m.canary if result.ok else c
            notes = (NoteView(f"canary #{c.experiment} lost: {result.message}", "Canary held again",
                          "warning" if result.ok else "error"),)
        if self.containment.lines(now) == before and not notes:
            return update  # the wave panel's lines did not move: the poll's own view stands
        view = await self.in_db(self._loss_view)
        return replace(update, losses=view, notes=(*update.notes, *notes))

    def refresh(self, at: datetime | None = None) -> None:
        """Poll every source now, backoff or not (the owner pressed refresh, or an action landed);
        `at` moves a held clock first (HeldClock)."""
        self.move_clock(at)
        if self._polls_by is not None:
            self._polls_by()  # the watch polls now; its writes come back as another writer's
            return
        self._round_no += 1
        self._round = set(self.poller.sources) if self.poller else set()
        for name, kick in self._kicks.items():
            self._forced.add(name)
            kick.set()

    def pause(self, paused: bool) -> None:
        self.paused = paused
        for kick in self._kicks.values():
            kick.set()

    def set_interval(self, seconds: float) -> None:
        """The next poll of each source waits the new interval."""
        self.settings.poll_interval = seconds
        now = time.monotonic()
        for name, kick in self._kicks.items():
            if self._poll:
                self._due[name] = now + seconds
            kick.set()

    # --- what changed beside our polls --------------------------------------------------

    async def _every(self, seconds: float, job: Callable[[], Awaitable[None]], at_once: bool = False) -> None:
        if not at_once:
            await asyncio.sleep(seconds)
        while not self._stop.is_set():
            try:
                await job()
            except Exception:  # noqa: BLE001 - logged; the next round tries again
                log.exception("session job %s failed", getattr(job, "__name__", job))
            await asyncio.sleep(seconds)

    async def _watch(self) -> None:
        for update in await self.in_db(self._look):
            self.publish(update)

    def _look(self) -> list[UpdateView]:
        """One look, in the writer thread: the cache file still there, then other writers' commits."""
        return [u for u in (self._cache_file(), self._foreign()) if u is not None]

    def _cache_file(self) -> UpdateView | None:
        """The cache file removed or replaced under the panel (core/store/moved.py): said at once, put back
        from what the session holds, and every pane read again from the file now at the path."""
        from sagan_tui.core.store.opening import CacheError, cause_of

        how = self.cache.moved() if self.model is not None else None
        trouble = self._cache_trouble
        if how is None or (trouble is not None and time.monotonic() < trouble[1] + CACHE_RETRY_S):
            return None
        try:
            said = self.cache.recreate()
        except (OSError, sqlite3.Error, CacheError) as exc:
            detail = str(exc) if isinstance(exc, CacheError) else f"{self.cache.path}: {cause_of(exc)}"
            why = _one_line(f"the cache file was {how} and could not be put back: {detail} (tried again"
                            f" every {CACHE_RETRY_S:g} s; quitting loses what it holds)")
            self._cache_trouble = (why, time.monotonic())
            if trouble is not None and why == trouble[0]:
                return None  # said once
            return UpdateView(notes=(NoteView(why, f"Cache file {how}", "error", 60.0, ring=True),))
        self._cache_trouble = None
        self.model.load(self.model.health)  # its stamps were of the other file's connection
        note = NoteView(_one_line(said or ""), f"Cache file {how}", "warning", 30.0, ring=True)
        return replace(self._full(), notes=(note,))

    @property
    def attached(self) -> bool:
        """Its polls are a `watch`'s (see polls_by)."""
        return self._polls_by is not None

    async def look_now(self) -> None:
        """Read other writers' commits now instead of at the next look; done once its update is posted."""
        await self._watch()

    def _foreign(self) -> UpdateView | None:
        """Another process's commits (a `sync`, a second panel), read as a poll of ours would be."""
        from sagan_tui.core.session.model import announcements

        attached = self._polls_by is not None
        before = {n: h.state for n, h in self.model.health.items()}
        # Attached, the sources' health is the watch's, read from the cache it writes it to.
        delta = self.model.foreign(attached)
        if delta is None:
            return None
        # A source failing in another writer's poll is that writer's news, unless it polls for us.
        return self.update_of(delta, tuple(n for n in announcements(delta, before, self.model.health)
                                         if attached or n.title != "Source failing"))

    async def _prune(self) -> None:
        s = self.settings
        # The session's clock, not the wall's: a panel replaying a past incident keeps that incident.
        await self.in_db(self.cache.prune, self.clock(), s.events_retention_days,
                          s.observations_retention_days)

    # --- updates ------------------------------------------------------------------------

    def _loss_view(self) -> "IncidentView":
        m = self.model
        # The waves the wave panel may show are weighed here, not on the UI thread when it draws
        # them: a diagnosis reads every pod's sightings, which grows with the fleet.
        from sagan_tui.core.triage.verdict import diagnosis_of

        for wave in (m.active_wave(), max(m.waves, key=lambda w: w.end, default=None)):
            if wave is not None:
                diagnosis_of(wave)  # kept with the wave (its verdict with it)
        from sagan_tui.core.session.views import incident_view as made

        self._incident_shown = m.incident_lines.view()
        return made(m.losses, m.waves, m.dismissed, m.affected_pods(), self._incident_shown)

    def _heat(self) -> "HeatGridView | None":
        """The heatmap's grid for the scope the UI asked for (None before it asked)."""
        if self._heatmap is None or self.model is None:
            return None
        from sagan_tui.core.session.heatmap_view import grid_view

        m = self.model
        dimension = self._heatmap[0]
        grid = grid_view(m.losses, m.waves, m.active_wave(), self._heatmap, m.clock(),
                         self._heat_labels.get(dimension, ()))
        if grid is not None:
            self._heat_labels[dimension] = grid.rows
        return grid

    def _timeline(self, tag: str) -> TimelineView:
        experiment, kind = self._timelines[tag]
        rows, subjects = self.model.timeline(experiment, kind)
        return TimelineView(tag, experiment, kind, rows, subjects)

    def _full(self) -> UpdateView:
        from sagan_tui.core.session import views as V

        m = self.model
        return UpdateView(
            full=True, experiments=m.experiment_rows(), pods=m.pod_rows(), approvals=m.approval_rows(),
            approval_records=V.approvals_view(m.approvals), experiment_records=V.experiments_view(m.experiments),
            pod_records=V.pods_view(m.pods),
            timelines=tuple(self._timeline(t) for t in self._timelines), losses=self._loss_view(),
            heatmap=self._heat(), health=dict(m.health), paging=m.paging, in_flight=dict(self._in_flight),
            polls=self.polls)

    def update_of(self, delta: "Delta", notes: tuple = ()) -> UpdateView:
        from sagan_tui.core.session import views as V

        m = self.model
        return UpdateView(
            experiments=delta.experiments, pods=delta.pods, pods_removed=delta.pods_removed,
            approvals=delta.approvals,
            approval_records=None if delta.approvals is None else V.approvals_view(m.approvals),
            experiment_records=V.experiments_view(delta.experiment_records), pod_records=V.pods_view(delta.pod_records),
            timelines=tuple(self._timeline(t) for t in self._timelines) if delta.timeline or delta.losses else (),
            losses=self._loss_view() if delta.losses else None, heatmap=self._heat() if delta.losses else None,
            health=dict(m.health), paging=m.paging, notes=notes)

    async def watch_timeline(self, tag: str, experiment: int | None, kind: str) -> None:
        """Send `tag`'s timeline rows for this scope now, and again whenever events or losses change."""
        self._timelines[tag] = (experiment, kind)
        if self.model is not None:
            self.publish(await self.in_db(lambda: UpdateView(timelines=(self._timeline(tag),), answer=True)))

    async def watch_heatmap(self, dimension: str, window_s: float | None, width: int) -> None:
        """Send the heatmap's grid for this scope now, and again whenever the losses change."""
        self._heatmap = (dimension, window_s, width)
        if self.model is not None:
            self.publish(await self.in_db(lambda: UpdateView(heatmap=self._heat(), answer=True)))

    def follow_pod(self, pod_id: str, account: str) -> None:
        """Read the pod's log and GPU figures now and every few seconds until forget_pod (its screen is open)."""
        if self._pods_followed is not None:
            self._pods_followed.follow(pod_id, account)

    def forget_pod(self, pod_id: str) -> None:
        if self._pods_followed is not None:
            self._pods_followed.forget(pod_id)

    def forget_timeline(self, tag: str) -> None:
        self._timelines.pop(tag, None)

    async def tick(self, at: datetime | None = None) -> None:
        """Re-render the rows whose text time alone changed (ages, "seen", a gone pod's hour); `at`
        moves a held clock first (HeldClock)."""
        self.move_clock(at)
        update = await self.in_db(self._tick)
        if update is not None:
            self.publish(update)

    async def key_pressed(self, at: datetime | None = None) -> None:
        """The owner pressed a key (at `at` on a held clock): an absence ends, and the wave panel
        loses its since-you-looked line at once, not at the next tick."""
        self.move_clock(at)
        if self.model is not None:
            self.model.incident.key_pressed(self.clock())
        await self.tick()

    def move_clock(self, at: datetime | None) -> None:
        """A held clock (a replay, a test) moves to the panel's reading; a live one ignores it."""
        if at is not None and isinstance(self.clock, HeldClock):
            self.clock.move(at)

    def _tick(self) -> UpdateView | None:
        if self.model is None:
            return None
        pods, hidden = self.model.due_pod_rows()
        exps = self.model.due_experiment_rows()
        # The canary's progress, the since-you-looked line and the wave shown (its guard's end) move
        # with time alone; the heatmap's active columns with the guard.
        losses = self._loss_view() if self.model.incident_lines.view() != self._incident_shown else None
        heat = self._heat() if losses is not None else None
        if pods or hidden or exps or losses:
            return UpdateView(experiments=exps, pods=pods, pods_removed=tuple(hidden), losses=losses, heatmap=heat)
        return None
