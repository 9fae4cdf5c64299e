"""What the panel shows, read from the cache in the session's thread: rows by key, and what changed
after a poll of ours or a commit of another writer (no Textual)."""

from __future__ import annotations

import time

import msgspec
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Callable, Iterable, Mapping

from sagan_tui.core.config_model import Settings
from sagan_tui.core.models import Experiment, HealthState, Loss, SourceHealth, utcnow
from sagan_tui.core.store.cache import Cache, CachedPod
from sagan_tui.core.store.sagan_rows import experiment_of
from sagan_tui.core.sync.changes import StoredExperiment, Written
from sagan_tui.core.session.incident import IncidentWatch
from sagan_tui.core.session.incident_view import IncidentLines
from sagan_tui.core.triage import TriageContext, Wave, active_wave, find_waves
from sagan_tui.core.triage.forming import active_forming, find_forming
from sagan_tui.core.triage.evidence import evidence_moved
from sagan_tui.core.triage.verdict import headline as verdict_headline
from sagan_tui.wire import render
from sagan_tui.wire.channel.views import NoteView
from sagan_tui.wire.render import Row
from sagan_tui.wire.safe_text import one_line

# Above this many changed experiments one full read is cheaper than many point reads.
POINT_READS_MAX = 200
TIMELINE_LIMIT = 300
# A pod that went away on request (not a loss) stays in view this long, dimmed.
GONE_VISIBLE_S = 3600.0




@dataclass(frozen=True)
class Delta:
    """What a poll changed, as rows to apply by key, plus what deserves the owner's attention."""

    experiments: Mapping[str, Row] = field(default_factory=dict)
    pods: Mapping[str, Row] = field(default_factory=dict)  # rows of the pods that changed
    pods_removed: tuple[str, ...] = ()  # keys no longer shown
    approvals: Mapping[str, Row] | None = None
    timeline: bool = False
    losses: bool = False
    new_inbox: tuple[Experiment, ...] = ()
    new_waves: tuple[Wave, ...] = ()
    # (pod ids withdrawn, the headline of the wave they were announced in): a false alarm to retract
    retracted: tuple[tuple[tuple[str, ...], str], ...] = ()
    # (title, line) of the incident's news: a wave grown, a cluster forming, a hold overridden, a canary
    incident: tuple[tuple[str, str], ...] = ()
    # The records behind the changed rows, for the UI's selection and dialogs (never mutated).
    experiment_records: Mapping[int, Experiment] = field(default_factory=dict)
    pod_records: Mapping[str, CachedPod | None] = field(default_factory=dict)  # None: no longer held


class PanelModel:
    """Holds the last read of each table; every read is from the cache, never from the network."""

    def __init__(self, settings: Settings, cache: Cache, clock: Callable[[], datetime] = utcnow):
        self.settings = settings
        self.cache = cache
        self.clock = clock
        self.experiments: dict[int, Experiment] = {}
        self.pods: dict[str, CachedPod] = {}
        self._pod_at: dict[str, int] = {}  # per pod held, the cache's commits when it was read or written
        self._exp_at: dict[int, int] = {}  # the same, per experiment held
        self.losses: list[Loss] = []
        self.health: dict[str, SourceHealth] = {}
        self.waves: list[Wave] = []
        self.forming: list = []  # forming clusters (core/triage/forming.py), every one; active_forming() for now's
        self.incident = IncidentWatch()
        self.incident_lines = IncidentLines(self)  # its news and view (core/session/incident_view.py)
        self.canary = None  # a Canary (core/triage/canary.py) while one is watched
        self.containment = None  # the session's Containment (core/actions/contain.py): its lines for the wave panel
        self.approvals: tuple = ()  # the pending requests, as last read
        self.hidden_gone: set[str] = set()  # gone (not lost) pods dismissed this session
        self.dismissed: set[str] = set()  # losses dismissed: hidden from the pods pane, kept everywhere else
        self.show_dismissed = False  # the pods pane's toggle: dismissed rows shown again
        # What the cache held when last read in full, to tell what another writer changed.
        self._data_version: int | None = None
        self._exp_stamps: dict[int, tuple] = {}
        self._pod_stamps: dict[str, tuple] = {}
        self.event_position = 0
        self._counts: dict[int, int] = {}
        # The pods of every wave announced or present at load: a wave holding any of them is one
        # the owner was told of (its first loss re-dated by Sagan's evidence is the same wave).
        self._seen_pods: set[str] = set()
        self._announced: dict[tuple, tuple[frozenset[str], str]] = {}  # wave id -> (its pods, its headline)
        self._pod_looks: dict[str, tuple] = {}  # per account, as its pods' rows were last drawn
        self._pod_until: dict[str, float] = {}  # per pod row shown, when time alone changes it
        self._exp_until: dict[int, float] = {}  # the same, per experiment row (its age)
        self.deferred: dict[int, datetime | None] = {}  # experiment -> when the owner deferred its request
        # New inbox items are announced against what was known; a cold cache knows nothing,
        # so its first Sagan poll sets the baseline instead of announcing everything.
        self._inbox_baseline = False
        # watch's page targets whose last try failed, as the status line says them (read_paging).
        self.paging: tuple[str, ...] = ()

    # --- reads -------------------------------------------------------------------------

    def load(self, health: Mapping[str, SourceHealth] | None = None) -> None:
        """Everything, synchronously: the first paint comes from here, before any network call."""
        self.health = dict(health or self.cache.health())
        self._read_experiments()
        self._inbox_baseline = bool(self.experiments)
        self._read_deferred()
        self._read_pods()
        self._read_losses()
        self._seen_pods = {x.pod_id for w in self.waves for x in w.losses}
        self.incident.seen(self.waves)
        self.incident.forming_news(self.active_forming())  # present at load: not news
        self.incident_lines.load()
        self.read_paging()
        self._stamp()

    def read_paging(self) -> None:
        """What `watch` (this cache's, in any process) last met paging: "paging failed: ntfy
        ntfy.sh 403" for each target whose last page failed, none once one went through. The
        table is watch's few rows (core/store/page_rows.py); a target is what may be shown of it
        (scheme and host), never its URL."""
        self.paging = tuple(one_line(f"paging failed: {target} {error or ''}".rstrip(), 120)
                            for target, (state, error, _at) in sorted(self.cache.page_rows.health().items())
                            if state == "error")

    def _stamp(self) -> None:
        self._data_version = self.cache.data_version()
        self._exp_stamps = self.cache.experiment_stamps()
        self._pod_stamps = self.cache.pod_stamps()
        self.event_position = self.cache.event_position()

    def _read_deferred(self) -> set[int]:
        """Experiments whose request the owner deferred (their turn says so); the numbers whose
        deferral changed."""
        before = self.deferred
        self.deferred = {a.experiment_number: a.updated_at for a in self.cache.approvals("deferred")
                         if a.experiment_number is not None}
        return {n for n in set(before) | set(self.deferred) if before.get(n) != self.deferred.get(n)}

    def _read_pods(self, pod_ids: set[str] | None = None, written: Mapping[str, Written] | None = None) -> None:
        """Every pod, or only `pod_ids` again (a poll's changed, gone and lost pods: reading and
        parsing every pod on each poll that changed one would cost in proportion to the fleet).
        `written`: those of them a poll of ours wrote, as stored: taken as they are, not read back,
        unless a read made since that write already knows better (another source's poll of
        ours wrote the pod after it: its experiment adopted, a flag)."""
        written = written or {}
        at = self.cache.commits  # before reading: the read sees every write of ours up to here
        todo = None if pod_ids is None else pod_ids - written.keys()
        if todo is None or len(todo) > POINT_READS_MAX:
            self.pods = {p.pod_id: p for p in self.cache.pods()}
            self._pod_at = dict.fromkeys(self.pods, at)  # read after every write handed over: newer
        else:
            fresh = {p.pod_id: p for p in self.cache.pods(pod_ids=todo)} if todo else {}
            for pid in todo:
                self._pod_at[pid] = at
                if pid in fresh:
                    self.pods[pid] = fresh[pid]
                else:
                    self.pods.pop(pid, None)  # a loss no poll of ours saw: no pod row
        _take_handed(self.pods, self._pod_at, written, lambda w: w.pod)
        self._counts = render.live_pod_counts(self.pods.values())

    def _read_experiments(self, numbers: set[int] | None = None,
                          written: Mapping[int, StoredExperiment] | None = None) -> None:
        """Every experiment, or only `numbers` again; `written`: those of them a poll of ours
        wrote, as stored, taken as they are unless a read made since knows better (as _read_pods)."""
        written = written or {}
        at = self.cache.commits  # before reading: the read sees every write of ours up to here
        todo = None if numbers is None else numbers - written.keys()
        if todo is None or len(todo) > POINT_READS_MAX:
            self.experiments = {e.number: e for e in self.cache.experiments()}
            self._exp_at = dict.fromkeys(self.experiments, at)
        else:
            for n in todo:
                e = self.cache.experiment(n)
                if e is not None:
                    self.experiments[n], self._exp_at[n] = e, at
        _take_handed(self.experiments, self._exp_at, written, lambda w: experiment_of(w.data))

    def _read_losses(self, read: list[Loss] | None = None) -> None:
        # A dismissed loss is still evidence: it stays in the waves, the heatmap and the report.
        self.losses = self.cache.losses() if read is None else read
        self.dismissed = {x.pod_id for x in self.losses if x.dismissed}
        if len(self.losses) < 2:  # no wave without losses: spare reading every pod again
            self.waves, self.forming = [], []
            return
        ctx = TriageContext(sightings=tuple(self.cache.sightings()), health=self.health,
                            accounts_polled=tuple(self.settings.accounts), losses=tuple(self.losses),
                            balances=self.cache.balance_history(), evidence=self.cache.loss_rows.evidence(),
                            syslog=self.cache.loss_rows.syslog())
        self.waves = find_waves(self.losses, context=ctx, guard_minutes=self.settings.guard_minutes,
                                horizon_minutes=self.settings.horizon_minutes)
        self.forming = find_forming(self.losses, self.waves, horizon_minutes=self.settings.horizon_minutes)

    @staticmethod
    def _wave_id(w: Wave) -> tuple:
        return (w.losses[0].pod_id, w.start)

    def inbox(self) -> set[int]:
        return {n for n, e in self.experiments.items() if e.owner_turn}

    def active_wave(self) -> Wave | None:
        return active_wave(self.waves, self.clock(), self.settings.guard_minutes)

    def active_forming(self) -> list:
        return active_forming(self.forming, self.clock(), self.settings.guard_minutes)

    # --- rows --------------------------------------------------------------------------

    def experiment_rows(self, numbers=None) -> dict[str, Row]:
        now = self.clock()
        nums = self.experiments if numbers is None else [n for n in numbers if n in self.experiments]
        if numbers is None:
            self._exp_until = {}
        out = {}
        for n in nums:
            row = out[str(n)] = render.experiment_row(self.experiments[n], self._counts.get(n, 0), now,
                                                      self.deferred.get(n), self.incident.warnings.get(n))
            self._exp_until[n] = row.until
        return out

    def due_experiment_rows(self) -> dict[str, Row]:
        """The experiment rows whose age now reads differently (a minute, an hour or a day on):
        the minute tick re-rendered all of them, 2,000 rows and tens of ms for a few changes."""
        ts = self.clock().timestamp()
        return self.experiment_rows([n for n, until in self._exp_until.items() if until <= ts])

    def _stale(self, account: str, now: datetime) -> bool:
        h = self.health.get(account)
        return h is not None and h.stale(now, self.settings.poll_interval)

    def pod_rows(self, experiment: int | None = None) -> dict[str, Row]:
        """Every pod row (or one experiment's): live, lost until dismissed, gone for an hour."""
        now = self.clock()
        lost = {x.pod_id: x for x in self.losses}
        keys = [pid for pid, cp in self.pods.items() if experiment is None or cp.experiment == experiment]
        # Losses Sagan knows of but no poll of ours ever saw.
        keys += [pid for pid, x in lost.items() if pid not in self.pods and experiment in (None, x.experiment)]
        if experiment is None:
            self._pod_looks = self._looks(now)
            self._pod_until = {}
        out = {}
        for pid in keys:
            row = self._pod_row(pid, lost, now)
            if row is not None:
                out[pid] = row
                self._pod_until[pid] = row.until
        return out

    def pod_rows_for(self, keys: Iterable[str]) -> tuple[dict[str, Row], list[str]]:
        """These pods' rows as `pod_rows()` gives them, and the keys it would not show (to remove)."""
        now = self.clock()
        lost = {x.pod_id: x for x in self.losses}
        rows: dict[str, Row] = {}
        hidden: list[str] = []
        for pid in keys:
            row = self._pod_row(pid, lost, now)
            if row is None:
                hidden.append(pid)
                self._pod_until.pop(pid, None)
            else:
                rows[pid] = row
                self._pod_until[pid] = row.until
        return rows, hidden

    def due_pod_rows(self) -> tuple[dict[str, Row], list[str]]:
        """The rows that time alone has changed since they were drawn (an age crossing a minute
        or an hour, an account turning stale, a gone pod's hour in view ending), as `pod_rows_for`."""
        now = self.clock()
        ts = now.timestamp()
        due = {pid for pid, until in self._pod_until.items() if until <= ts}
        return self.pod_rows_for(due | self._moved_looks(now))

    def _pod_row(self, pid: str, lost: Mapping[str, Loss], now: datetime) -> Row | None:
        cp, loss = self.pods.get(pid), lost.get(pid)
        if loss is not None and pid in self.dismissed and not self.show_dismissed:
            return None  # dismissed: off the pods pane only
        if cp is None:
            return None if loss is None else render.pod_row(None, loss, now)
        if cp.gone_at is not None and loss is None:
            if pid in self.hidden_gone or pid in self.dismissed:
                return None
            gone_s = render.since(cp.gone_at, now) or 0
            if gone_s > GONE_VISIBLE_S:
                return None
            row = render.pod_row(cp, None, now)
            return msgspec.structs.replace(row, until=min(row.until, now.timestamp() + GONE_VISIBLE_S - gone_s))
        live = loss is None and cp.gone_at is None
        if live:
            cp = self._seen_now(cp)
        h = self.health.get(cp.account)
        by_account = live and h is not None and h.state == HealthState.OK and h.last_success is not None
        return render.pod_row(cp, loss, now, stale=self._stale(cp.account, now), seen_by_account=by_account)

    def _moved_looks(self, now: datetime) -> set[str]:
        """Every pod of an account whose look changed (stale, recovered, "seen" moved on)."""
        looks = self._looks(now)
        moved = {a for a in set(looks) | set(self._pod_looks) if looks.get(a) != self._pod_looks.get(a)}
        self._pod_looks = looks
        return {pid for pid, cp in self.pods.items() if cp.account in moved} if moved else set()

    def _looks(self, now: datetime) -> dict[str, tuple]:
        """Per account, what its health puts into a live pod's row: stale or not, and "seen"."""
        out = {}
        for name, h in self.health.items():
            ok = h.state == HealthState.OK and h.last_success is not None
            seen = render.seen_text(render.since(h.last_success, now)) if ok else None
            out[name] = (self._stale(name, now), seen)
        return out

    def _seen_now(self, cp: CachedPod) -> CachedPod:
        # A successful poll of the account lists every live pod; it saw this one then.
        h = self.health.get(cp.account)
        if h and h.state == HealthState.OK and h.last_success and (
                cp.last_seen_at is None or h.last_success > cp.last_seen_at):
            return replace(cp, last_seen_at=h.last_success)  # every other field kept (its flag too)
        return cp

    def approval_rows(self) -> dict[str, Row]:
        self.approvals = tuple(self.cache.approvals("pending"))
        return {a.id: render.approval_row(a) for a in self.approvals}

    def timeline_rows(self, experiment: int | None, kind: str = "all") -> dict[str, Row]:
        return self.timeline(experiment, kind)[0]

    def timeline(self, experiment: int | None, kind: str = "all") -> tuple[dict[str, Row], dict[str, int | None]]:
        """The timeline's rows, newest first, and the experiment each row is about (by row key)."""
        # A type filter reads deeper: the newest few hundred may all be of another type.
        limit = TIMELINE_LIMIT if kind == "all" else TIMELINE_LIMIT * 10
        events = self.cache.events(experiment=experiment, limit=limit)
        now = self.clock()
        rows, subjects = {}, {}
        for e in events:
            if kind == "all" or render.event_kind(e.event_type) == kind:
                rows[e.id], subjects[e.id] = render.event_row(e, now), e.experiment_number
        if kind in ("all", "pods"):
            for x in self.losses:
                if experiment is None or x.experiment == experiment:
                    key = f"loss:{x.pod_id}"
                    rows[key], subjects[key] = render.loss_event_row(x, now), x.experiment
        return rows, subjects

    def affected_pods(self) -> set[str]:
        """The incident layout's pods: every undismissed loss, and live pods of the wave's experiments."""
        keys = {x.pod_id for x in self.losses if x.pod_id not in self.dismissed or self.show_dismissed}
        wave = self.active_wave() or (self.waves[-1] if self.waves else None)
        if wave:
            exps = set(wave.experiments)
            keys |= {p.pod_id for p in self.pods.values() if p.gone_at is None and p.experiment in exps}
        return keys

    def status(self, *, paused: bool, poll_started: float | None = None,
               clock_text: str | None = None, width: int | None = None) -> list[render.Segment]:
        """The status line; `poll_started` is the `time.monotonic()` the running poll began at."""
        polling_for = None if poll_started is None else time.monotonic() - poll_started
        # Past one request timeout a poll is more than a slow reply: retries, or a hang.
        slow = max(render.SLOW_POLL_S, self.settings.request_timeout)
        return render.status_segments(self.health, self.clock(), poll_interval=self.settings.poll_interval,
                                      paused=paused, read_only=self.settings.read_only,
                                      polling_for=polling_for, slow_poll_s=slow, clock=clock_text, width=width,
                                      warn_hours=self.settings.runway_warn_hours)

    # --- after a poll ------------------------------------------------------------------

    def apply(self, changes, *, losses_moved: bool = False) -> Delta:
        """Re-read only what `changes` (a sync ChangeSet) says moved, taking the pods its poll wrote
        as that poll handed them over; return the rows that differ."""
        health_before, self.health = self.health, dict(changes.health)
        self.read_paging()  # watch's (another process's) or none: a poll's round reads it again
        inbox_before = self.inbox()
        changed_exps: set[int] = set(changes.experiments)
        status_before = {n: self.experiments[n].status for n in changed_exps if n in self.experiments}
        self._read_experiments(changed_exps, changes.experiments_written)
        if changes.approvals_changed:
            changed_exps |= self._read_deferred()
        # Only the rows that may read differently are rendered: a poll costs what it changed.
        withdrawn = set(changes.withdrawn)
        redo = {*changes.pods_changed, *changes.pods_gone, *(x.pod_id for x in changes.new_losses),
                *changes.pods_missing, *withdrawn, *changes.pods_flagged}
        if redo:
            old_counts = self._counts
            self._read_pods(redo, changes.pods_written)
            changed_exps |= {n for n in set(old_counts) | set(self._counts)
                             if old_counts.get(n) != self._counts.get(n)}
        if losses_moved:  # read already (another writer's): the pods of every loss may read differently
            redo |= {x.pod_id for x in self.losses}
        # A balance that ran out after a wave is new evidence about it: weigh the waves again.
        elif (changes.new_losses or changes.pods_gone or withdrawn
              or (self.waves and evidence_moved(health_before, self.health))):
            losses_moved = True
            redo |= {x.pod_id for x in self.losses}
            self._read_losses()
            redo |= {x.pod_id for x in self.losses}
        pods, hidden = self.pod_rows_for(redo | self._moved_looks(self.clock()))
        new_waves = tuple(w for w in self.waves if not any(x.pod_id in self._seen_pods for x in w.losses))
        self._seen_pods |= {x.pod_id for w in self.waves for x in w.losses}
        self._announced.update({self._wave_id(w): (frozenset(x.pod_id for x in w.losses),
                                                   f"{len(w.losses)} pods lost {render.window(w.start, w.end)}")
                                for w in new_waves})
        retracted = []
        if withdrawn:  # a wave the owner was told of held a pod now disproved: say so
            self._seen_pods -= withdrawn  # a later real loss of it is news again
            for wid, (told, headline) in list(self._announced.items()):
                if told & withdrawn:
                    retracted.append((tuple(sorted(told & withdrawn)), headline))
                    self._announced[wid] = (told - withdrawn, headline)
        now = self.clock()
        incident = self.incident_lines.news(changes, status_before, new_waves, losses_moved, now)
        # A status change the owner caused (hold, release, approve) is not "your turn" news.
        new_inbox = tuple(self.experiments[n] for n in sorted(self.inbox() - inbox_before)
                          if not self.incident.is_quiet(n, now))
        if not self._inbox_baseline:
            new_inbox = ()
            sagan = self.health.get("sagan")
            self._inbox_baseline = sagan is not None and sagan.state == HealthState.OK
        return Delta(
            experiments=self.experiment_rows(changed_exps),
            pods=pods, pods_removed=tuple(hidden),
            approvals=self.approval_rows() if changes.approvals_changed else None,
            timeline=bool(changes.events_added or losses_moved),
            losses=losses_moved or bool(incident), new_inbox=new_inbox, new_waves=new_waves,
            retracted=tuple(retracted), incident=incident,
            experiment_records={n: self.experiments[n] for n in changed_exps if n in self.experiments},
            pod_records={pid: self.pods.get(pid) for pid in redo})

    def dismiss(self, pod_id: str) -> tuple[str, Delta]:
        """Hide a lost pod's row (the cache remembers; the loss stays evidence) or a gone one's
        for this session; what was done, in words, and the rows to apply."""
        if pod_id in {x.pod_id for x in self.losses}:
            self.cache.dismiss_loss(pod_id)
            # The losses are in hand: the one written is flagged here, not read back with every other
            # (another writer's changes come with the next look, foreign()).
            self._read_losses([x.model_copy(update={"dismissed": True}) if x.pod_id == pod_id else x
                               for x in self.losses])
            said = (f"dismissed lost pod {pod_id} from the pods pane; it still counts in losses, waves "
                    "and the report (X shows dismissed rows)")
        else:
            self.hidden_gone.add(pod_id)
            said = f"hid gone pod {pod_id} from the pods pane for this session"
        return said, self._pods_delta({pod_id})

    def toggle_dismissed(self) -> tuple[str, Delta]:
        self.show_dismissed = not self.show_dismissed
        said = ("dismissed pods shown (X hides them again)" if self.show_dismissed
                else "dismissed pods hidden (X shows them)")
        return said, self._pods_delta(set(self.dismissed))

    def _pods_delta(self, keys: set[str]) -> Delta:
        rows, hidden = self.pod_rows_for(keys)
        return Delta(pods=rows, pods_removed=tuple(hidden), losses=True,
                     pod_records={k: self.pods.get(k) for k in keys})

    # --- another writer ----------------------------------------------------------------

    def foreign(self, health: bool = False) -> Delta | None:
        """What another process committed since the last look (None when nothing was): re-read
        only the rows whose columns differ, the losses, the approvals and the events past our
        position; with `health`, the sources' health that process recorded too (its polls are ours)."""
        version = self.cache.data_version()
        if version == self._data_version:
            return None
        self._data_version = version
        exp_stamps, pod_stamps = self.cache.experiment_stamps(), self.cache.pod_stamps()
        exps = {n for n, st in exp_stamps.items() if self._exp_stamps.get(n) != st}
        pods = {p for p in set(pod_stamps) | set(self._pod_stamps) if self._pod_stamps.get(p) != pod_stamps.get(p)}
        self._exp_stamps, self._pod_stamps = exp_stamps, pod_stamps
        position = self.cache.event_position()
        events = position != self.event_position
        self.event_position = position
        losses_before = self.losses
        self._read_losses_quietly()
        losses_moved = self.losses != losses_before
        from sagan_tui.core.sync.poller import ChangeSet  # the same path as a poll of ours

        changes = ChangeSet(at=self.clock(), duration_s=0.0, health=self.cache.health() if health else self.health,
                            experiments=tuple(exps),
                            events_added=int(events), approvals_changed=True, pods_changed=tuple(pods))
        return self.apply(changes, losses_moved=losses_moved)

    def _read_losses_quietly(self) -> None:
        """The losses as another writer left them; waves recomputed only when they differ."""
        fresh = self.cache.losses()
        if fresh != self.losses:
            self._read_losses(fresh)


def _take_handed(held: dict, read_at: dict, written: Mapping, record: Callable) -> None:
    """The records a poll of ours handed over (`record` of each, None when none can be made), each
    taken unless `held` was read since its write (`read_at`: the cache's commits at each read or
    take): a read made after another write of ours knows better."""
    for key, w in written.items():
        if w.at > read_at.get(key, -1) and (r := record(w)) is not None:
            held[key], read_at[key] = r, w.at


def announcements(delta: Delta, health_before: Mapping[str, HealthState],
                  health: Mapping[str, SourceHealth]) -> list[NoteView]:
    """What a poll tells the owner out loud: new inbox items, new waves, sources that just failed;
    each note's text cleaned to one line (the UI shows it with markup off)."""
    # One note per item: the panel folds them into one "N items in your inbox" line (panel/news.py).
    out = [NoteView(one_line(f"#{e.number} {e.title}: {e.effective_turn}"), "Your turn", ring=True)
           for e in delta.new_inbox]
    for w in delta.new_waves:
        head = verdict_headline(w)
        out.append(NoteView(one_line(f"{len(w.losses)} pods lost {render.window(w.start, w.end)}"
                                 f" in {', '.join(w.accounts)}. {head}"), "Reaping wave", "error", 30, True))
    for title, line in delta.incident:
        severity = "warning" if title != "Reaping wave grew" else "error"
        out.append(NoteView(one_line(line), title, severity, 30, True))
    for pods, headline in delta.retracted:
        out.append(NoteView(one_line(f"False alarm: {', '.join(pods)} not lost after all (RunPod lists"
                                 f" {'them' if len(pods) > 1 else 'it'} again); the wave announced as"
                                 f" \"{headline}\" no longer counts {'them' if len(pods) > 1 else 'it'}"),
                        "Loss withdrawn", "warning", 30, True))
    for name, h in health.items():
        if h.state == HealthState.ERROR and health_before.get(name) != HealthState.ERROR:
            kind = h.error_kind.value if h.error_kind else "error"
            out.append(NoteView(one_line(f"{name}: {kind}: {h.message or ''}"), "Source failing", "warning"))
    return out
