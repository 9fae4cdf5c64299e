"""Reconciles one successful poll of an account with what the last one saw: changes, missing pods, losses.

A pod absent from one list is *missing*, never lost on that list's word: RunPod's API has
answered `{"pods": []}` in a glitch, and one such reply must not raise a wave. A missing pod is
confirmed lost by a direct read of it (the poller's, right after this), by the next complete
list missing it too, or by Sagan's not-found record after RunPod stopped listing it; it is
withdrawn when it is listed again with its uptime continuing.

A pod must have existed to be lost. It is *established* once it is listed again after a
complete, undoubted list held it (`Seen.counted_at`, `Seen.established`), or Sagan knows it (a
pod_lifecycle row; our own dispatches go through Sagan, so they are known there). A pod listed
once and gone from the next complete list is a *phantom*: recorded as gone "listed once and
never again", never missing, never a loss. A list whose new pods outnumber the account's listed
pods, or twin one of them (the same name, experiment, GPU, data centre and start under another
id), is doubtful and establishes nothing: one reply listing made-up pods must not make their
absence from the next a wave.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from operator import attrgetter
from typing import Collection, Mapping, NamedTuple

from sagan_tui.wire.basics import STOPPED_STATES
from sagan_tui.core.models import Loss, RunPodPod
from sagan_tui.core.store.pod_rows import CachedPod, PHANTOM

# Every field of a pod but its uptime, which moves on every poll: a row has "changed" only
# when one of these did.
KEY_FIELDS = tuple(f for f in RunPodPod.model_fields if f != "uptime_seconds")
_STATUS, _CHANGE, _EXPERIMENT = (KEY_FIELDS.index(f) for f in ("desired_status", "last_status_change", "experiment"))


pod_key = attrgetter(*KEY_FIELDS)  # RunPodPod -> its fields but uptime, as a tuple
# `now - uptime` moves by the uptime's whole seconds and by the poll's latency (`now` is taken
# once the reply is in, the uptime when the server wrote it): within this plus the poll's own
# duration, the same start read again. A slow poll under load otherwise "restarted" every pod.
RUNNING_AT_JITTER = timedelta(seconds=3)
# One reply that drops more than this share of the account's live pods (and at least
# DOUBTFUL_MIN of them) is doubtful: the poll says so, and each of them waits for a direct read
# or the next list, as every missing pod does.
DOUBTFUL_SHARE, DOUBTFUL_MIN = 0.5, 3
# `counted_at` of a pod established without a later readable listing of its own: a row written
# before establishment was recorded, or a pod listed again by a record that could not be read.
LONG_AGO = datetime(1970, 1, 1, tzinfo=timezone.utc)


class Seen(NamedTuple):
    """One live pod as the last poll wrote it to the cache, kept between polls as plain values."""

    key: tuple  # pod_key(): the pod's fields but uptime
    uptime_seconds: int | None
    first_seen_at: datetime | None
    running_at: datetime | None
    last_seen_at: datetime | None
    missing_since: datetime | None = None  # the first complete list that did not hold it
    counted_at: datetime | None = LONG_AGO  # the first complete, undoubted list that held it

    @classmethod
    def of(cls, c: CachedPod) -> "Seen":
        return cls(pod_key(c.pod), c.pod.uptime_seconds, c.first_seen_at, c.running_at, c.last_seen_at,
                   c.missing_since, c.counted_at)

    @property
    def established(self) -> bool:
        """Listed again after a complete, undoubted list held it: two lists say it exists."""
        if self.counted_at is None:
            return False
        later = self.last_seen_at is not None and self.last_seen_at > self.counted_at
        return later or self.counted_at == LONG_AGO

    @property
    def running(self) -> bool:
        return self.key[_STATUS] == "RUNNING"

    @property
    def status(self) -> str:
        return self.key[_STATUS]

    @property
    def live(self) -> bool:
        """Any status but a stopped one, known or not (MIGRATING): its vanishing is a loss."""
        return self.key[_STATUS] not in STOPPED_STATES

    @property
    def experiment(self) -> int | None:
        return self.key[_EXPERIMENT]

    def with_experiment(self, number: int | None) -> "Seen":
        return self._replace(key=(*self.key[:_EXPERIMENT], number, *self.key[_EXPERIMENT + 1:]))

    def pod(self) -> RunPodPod:
        """The pod as a model again, for the rare row that needs one (gone, lost)."""
        return RunPodPod.model_construct(**dict(zip(KEY_FIELDS, self.key)), uptime_seconds=self.uptime_seconds)

    def cached(self, **changes) -> CachedPod:
        """Its cache row, with `changes` (gone_at, gone_reason, missing_since)."""
        row = dict(pod=self.pod(), first_seen_at=self.first_seen_at, running_at=self.running_at,
                   last_seen_at=self.last_seen_at, gone_at=None, gone_reason=None, missing_since=self.missing_since,
                   counted_at=self.counted_at)
        return CachedPod(**{**row, **changes})


@dataclass
class Reconciled:
    upserts: list[CachedPod] = field(default_factory=list)  # whole rows: new, changed, missing or gone pods
    touched: list[tuple] = field(default_factory=list)  # (pod_id, last_seen_at, running_at, uptime_s): the rest
    observations: list[tuple] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)  # confirmed now, or suspected (state "missing")
    withdrawn: list[tuple[str, str]] = field(default_factory=list)  # (pod_id, why): disproved losses
    changed: list[str] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # newly missing: to be read directly
    phantoms: list[str] = field(default_factory=list)  # listed once, gone from this list: never losses
    still_missing: list[str] = field(default_factory=list)  # missing, and this list could not confirm it
    doubtful: str | None = None  # why this list's absences are suspect, when they are
    live: dict[str, Seen] = field(default_factory=dict)  # the account's live pods once this poll is written


@dataclass(frozen=True)
class ListFacts:
    """What a poll's list says beyond its readable pods (AccountSnapshot's fields)."""

    incomplete: str | None = None  # the list may not hold every pod: no absence means anything
    unreadable: frozenset[str] = frozenset()  # listed, unreadable: never missing
    unnamed: int = 0  # unreadable records naming no pod: absence from this list confirms nothing
    also_listed: frozenset[str] = frozenset()  # another API listed them in this poll


def _running_at(pod: RunPodPod, prev: Seen | None, now: datetime) -> datetime | None:
    if pod.running and pod.has_runtime and pod.uptime_seconds is not None and pod.uptime_seconds >= 0:
        # The runtime's uptime dates RUNNING to the second; a poll only brackets it.
        try:
            return now - timedelta(seconds=pod.uptime_seconds)
        except OverflowError:  # models bound the uptime; a record built another way must not fail the poll
            return None
    if prev and prev.running_at:
        return prev.running_at
    return now if pod.running else None


def continues(start: datetime | None, known_start: datetime | None, last_seen: datetime | None,
              jitter: timedelta) -> bool:
    """Whether a pod listed again RUNNING since `start` is the run we knew (started at
    `known_start`, or at least running when last seen): its uptime continuing, not restarted in
    place. A restart is a new start, and the run before it was lost all the same. A start read
    earlier than the known one is no restart (restarts only move it later)."""
    if start is None:
        return False
    since = known_start or last_seen
    return since is not None and start <= since + jitter


_NAME, _GPU, _DATACENTER = (KEY_FIELDS.index(f) for f in ("name", "gpu", "datacenter"))


def _twins(new: RunPodPod, started: datetime | None, old: Seen, jitter: timedelta) -> bool:
    """A new pod that is a listed one's record under another id: the same name, GPU and data
    centre (and experiment where both name one) and the same start. Sibling dispatches share
    a name but each starts on its own; a copied record keeps the start it copied."""
    k = old.key
    if not new.name or (new.name, new.gpu, new.datacenter) != (k[_NAME], k[_GPU], k[_DATACENTER]):
        return False
    if new.experiment is not None and k[_EXPERIMENT] is not None and new.experiment != k[_EXPERIMENT]:
        return False
    return started is not None and old.running_at is not None and abs(started - old.running_at) <= jitter


def _doubt(pods: list[RunPodPod], prev: Mapping[str, Seen], requested_stops: set[str], facts: ListFacts,
           established: Collection[str], now: datetime, jitter: timedelta) -> str | None:
    """Why this list is doubtful, when it is: it drops most of the account's established live
    pods at once, or its new pods outnumber the pods listed before (at least DOUBTFUL_MIN of
    them), or one twins a pod listed beside it. An incomplete list is judged by nothing."""
    if facts.incomplete is not None:
        return None
    listed = {p.id for p in pods}
    sure = {i: p for i, p in prev.items()
            if p.live and p.missing_since is None and (p.established or i in established)}
    newly = [i for i in sure if i not in listed and i not in requested_stops
             and i not in facts.unreadable and i not in facts.also_listed]
    if len(newly) >= DOUBTFUL_MIN and len(newly) > DOUBTFUL_SHARE * len(sure):
        return f"{len(newly)} of {len(sure)} live pods unlisted at once"
    new = [p for p in pods if p.id not in prev]
    before = sum(1 for p in prev.values() if p.missing_since is None)
    if prev and len(new) > max(before, DOUBTFUL_MIN):
        return f"{len(new)} new pods beside {before} listed before"
    old = [prev[p.id] for p in pods if p.id in prev and prev[p.id].running_at is not None]
    twins = sum(1 for p in new if any(_twins(p, _running_at(p, None, now), o, jitter) for o in old)) if old else 0
    if twins:
        return f"{twins} new pod{'s' if twins != 1 else ''} twinning a listed pod under another id"
    return None


def reconcile(account: str, pods: list[RunPodPod], prev: Mapping[str, Seen], now: datetime,
              requested_stops: set[str], known_losses: set[str], facts: ListFacts = ListFacts(),
              took: timedelta = timedelta(0), held: Mapping[str, Loss] | None = None,
              established: Collection[str] = frozenset()) -> Reconciled:
    """Only ever called with a *successful* poll: a failed one says nothing about the pods.

    A live pod absent from a complete list is missing (a loss row in state "missing"); missing
    in the list before and again now, it is confirmed. A pod listed EXITED with a RunPod-side
    reason is a loss at once (RunPod itself says it reaped it). `held`: the losses (any state)
    of listed pods that are not live, so one listed again continuing is withdrawn.
    `known_losses`: pods whose loss a poll already recorded. `prev` must be exactly what the
    cache holds: a pod whose fields did not change is only touched, not written again.
    `established`: pods known to exist whatever the lists said (Sagan's rows).
    """
    out = Reconciled()
    held = held or {}
    jitter = RUNNING_AT_JITTER + took  # `took`: how long the poll's reply took to arrive
    out.doubtful = _doubt(pods, prev, requested_stops, facts, established, now, jitter)
    counts = facts.incomplete is None and out.doubtful is None  # this list establishes what it holds
    for pod in pods:
        p = prev.get(pod.id)
        key = pod_key(pod)
        counted_at = p.counted_at if p is not None and p.counted_at is not None else (now if counts else None)
        running_at = _running_at(pod, p, now)
        if p is not None and p.running_at and running_at and abs(running_at - p.running_at) <= jitter:
            running_at = p.running_at  # the same start read a poll later (now - uptime): kept, not moved
        found_again = p is not None and p.missing_since is not None
        if found_again:
            if pod.running and not continues(running_at, p.running_at, p.last_seen_at, jitter):
                # Restarted in place while unlisted: the run it had is lost, as of the first list without it.
                out.losses.append(_loss(p.pod(), account, p.running_at, p.last_seen_at, p.missing_since,
                                        f"restarted in place at {running_at:%H:%M:%S}", "confirmed",
                                        "listed again with a new start"))
            else:
                out.withdrawn.append((pod.id, f"listed {pod.desired_status} again at {now:%H:%M:%S}"))
        elif p is None and pod.id in held and held[pod.id].state != "withdrawn":
            loss = held[pod.id]
            if continues(running_at, loss.running_at, loss.last_seen_at or loss.lost_at, jitter):
                out.withdrawn.append((pod.id, f"listed {pod.desired_status} again at {now:%H:%M:%S}"))
                running_at = min(running_at, loss.running_at) if loss.running_at and running_at else running_at
        # A start that moved (a restart in place keeps every other field) is a change the panel must redraw.
        if (p is None or found_again or p.key != key or counted_at != p.counted_at
                or (running_at != p.running_at and running_at is not None)):
            out.changed.append(pod.id)
            out.upserts.append(CachedPod(pod=pod, first_seen_at=(p.first_seen_at if p else None) or now,
                                         running_at=running_at, last_seen_at=now, gone_at=None, gone_reason=None,
                                         counted_at=counted_at))
            # A lastStatusChange only filling in (auto's GraphQL answering from its second poll on,
            # the status the same) is no change of status: no observation.
            if p is None or p.key[_STATUS] != pod.desired_status or p.key[_CHANGE] not in (None, pod.last_status_change):
                out.observations.append((pod.id, account, now, pod.desired_status, pod.uptime_seconds,
                                         pod.last_status_change))
        else:
            out.touched.append((pod.id, now, running_at, pod.uptime_seconds))
        out.live[pod.id] = Seen(key, pod.uptime_seconds, (p.first_seen_at if p else None) or now,
                                running_at or (p.running_at if p else None), now, counted_at=counted_at)
        reason = pod.reaped_reason
        if reason and pod.id not in requested_stops and pod.id not in known_losses:
            last_running = p.last_seen_at if p and p.running else None
            out.losses.append(_loss(pod, account, running_at, last_running, now, reason, "confirmed",
                                    "RunPod lists it exited by RunPod"))
    _absent(out, account, prev, now, requested_stops, known_losses, facts, established, counts)
    return out


def _absent(out: Reconciled, account: str, prev: Mapping[str, Seen], now: datetime,
            requested_stops: set[str], known_losses: set[str], facts: ListFacts,
            established: Collection[str], counts: bool) -> None:
    """The pods of `prev` this list did not hold: kept, missing, confirmed or gone (phantoms too)."""
    absent = [pod_id for pod_id in prev if pod_id not in out.live]
    for pod_id in absent:
        p = prev[pod_id]
        if facts.incomplete is not None or pod_id in facts.unreadable or pod_id in facts.also_listed:
            if counts and pod_id in facts.unreadable and p.counted_at is not None and not p.established:
                # Its record is unreadable, but a complete list named it again: it exists.
                p = p._replace(counted_at=LONG_AGO)
                out.upserts.append(p.cached())
            out.live[pod_id] = p  # listed, or perhaps listed: nothing is known of it
            continue
        asked = pod_id in requested_stops
        if (p.live and not asked and pod_id not in known_losses and p.missing_since is None
                and not p.established and pod_id not in established):
            # Seen once, unknown to Sagan, and gone: no evidence it ever existed (a made-up id).
            gone_at, reason = now, PHANTOM
            out.phantoms.append(pod_id)
        elif p.live and not asked and pod_id not in known_losses:
            if p.missing_since is None:
                out.missing.append(pod_id)
                out.changed.append(pod_id)
                out.upserts.append(p.cached(missing_since=now))
                out.observations.append((pod_id, account, now, "MISSING", None, "not in a complete list"))
                out.live[pod_id] = p._replace(missing_since=now)
                out.losses.append(_loss(p.pod(), account, p.running_at, p.last_seen_at, now,
                                        f"vanished while {p.status}", "missing", None))
                continue
            if facts.unnamed:  # a record this list could not name may be it: a direct read decides
                out.still_missing.append(pod_id)
                out.live[pod_id] = p
                continue
            out.losses.append(_loss(p.pod(), account, p.running_at, p.last_seen_at, p.missing_since,
                                    f"vanished while {p.status}", "confirmed", "missing from two lists"))
            gone_at, reason = p.missing_since, f"vanished while {p.status}"
        elif p.missing_since is not None:  # a stop asked for meanwhile, or already a loss
            gone_at, reason = p.missing_since, "stopped on request" if asked else f"vanished while {p.status}"
        else:
            gone_at, reason = now, "stopped on request" if asked else "no longer listed"
        out.gone.append(pod_id)
        out.upserts.append(p.cached(gone_at=gone_at, gone_reason=reason, missing_since=None))
        out.observations.append((pod_id, account, now, "GONE", None, reason))


def _loss(pod: RunPodPod, account: str, running_at: datetime | None, last_seen_at: datetime | None,
          lost_at: datetime, reason: str, state: str, confirmed_by: str | None) -> Loss:
    return Loss(pod_id=pod.id, account=account, experiment=pod.experiment, running_at=running_at,
                last_seen_at=last_seen_at, lost_at=lost_at, gpu=pod.gpu, datacenter=pod.datacenter,
                cost_per_hr=pod.adjusted_cost_per_hr or pod.cost_per_hr, source="runpod-poll", reason=reason,
                host=pod.host, state=state, confirmed_by=confirmed_by)
