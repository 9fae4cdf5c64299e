"""What a poll changed: one source's result as it is built, and the ChangeSet the panel applies by key."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Mapping, NamedTuple

from sagan_tui.core.models import HealthState, Loss, SourceHealth
from sagan_tui.core.store.pod_rows import CachedPod


class Written(NamedTuple):
    """A pod as a poll's write left it (core/store/pod_rows.py merged()), and which of this
    process's commits that was (Cache.commits): a read of the pod made after it knows better."""

    at: int
    pod: CachedPod


class StoredExperiment(NamedTuple):
    """An experiment's record as a poll's write left it (its JSON object, core/store/sagan_rows.py
    merge_patch), and which of this process's commits that was (as Written's)."""

    at: int
    data: Mapping


@dataclass(frozen=True)
class ChangeSet:
    """What one poll changed, for the panel to apply by key; and each source's health after it."""

    at: datetime
    duration_s: float
    health: Mapping[str, SourceHealth]
    experiments: tuple[int, ...] = ()
    events_added: int = 0
    approvals_changed: bool = False
    pods_changed: tuple[str, ...] = ()
    pods_gone: tuple[str, ...] = ()
    new_losses: tuple[Loss, ...] = ()
    skipped: tuple[str, ...] = ()
    polled: tuple[str, ...] = ()
    pods_missing: tuple[str, ...] = ()  # absent from a list, not yet confirmed lost
    withdrawn: tuple[str, ...] = ()  # losses (or suspicions) disproved: out of every wave
    doubtful: tuple[str, ...] = ()  # "team: 7 of 7 live pods unlisted at once"
    phantoms: tuple[str, ...] = ()  # pods listed once and never again: gone, never losses
    # The changed and gone pods' rows as this poll wrote them, by id: the session takes them as
    # they are instead of reading them back; a changed pod without one is read from the cache.
    pods_written: Mapping[str, Written] = field(default_factory=dict)
    pods_flagged: tuple[str, ...] = ()  # pods whose flag alone this poll wrote
    # The changed experiments' records as this poll wrote them, by number (as pods_written).
    experiments_written: Mapping[int, StoredExperiment] = field(default_factory=dict)

    def summary_line(self) -> str:
        parts = [self.at.strftime("%H:%M:%S")]
        for name, h in self.health.items():
            mark = "ok" if h.state == HealthState.OK else (
                h.state.value if not h.error_kind else f"ERR {h.error_kind.value}")
            extra = "" if name in self.polled or h.state == HealthState.DISABLED else " (backing off)"
            parts.append(f"{name}={mark}{extra}")
        parts.append(f"exp={len(self.experiments)} ev+={self.events_added} pods~={len(self.pods_changed)}"
                     f" gone={len(self.pods_gone)} lost+={len(self.new_losses)}")
        if self.pods_missing:
            parts.append(f"missing={len(self.pods_missing)}")
        if self.withdrawn:
            parts.append(f"withdrawn={len(self.withdrawn)}")
        if self.phantoms:
            parts.append(f"phantoms={len(self.phantoms)}")
        if self.doubtful:
            parts.append("doubtful(" + "; ".join(self.doubtful) + ")")
        if self.skipped:
            parts.append(f"skipped={len(self.skipped)}")
        parts.append(f"{self.duration_s * 1000:.0f}ms")
        return " ".join(parts)


def merged(parts: "list[ChangeSet]", at: datetime, duration_s: float,
           health: Mapping[str, SourceHealth]) -> ChangeSet:
    """Several sources' ChangeSets as one (a `sync` cycle)."""
    return ChangeSet(
        at=at, duration_s=duration_s, health=MappingProxyType(dict(health)),
        experiments=tuple(n for p in parts for n in p.experiments),
        events_added=sum(p.events_added for p in parts),
        approvals_changed=any(p.approvals_changed for p in parts),
        pods_changed=tuple(i for p in parts for i in p.pods_changed),
        pods_gone=tuple(i for p in parts for i in p.pods_gone),
        new_losses=tuple(x for p in parts for x in p.new_losses),
        skipped=tuple(r for p in parts for r in p.skipped), polled=tuple(n for p in parts for n in p.polled),
        pods_missing=tuple(i for p in parts for i in p.pods_missing),
        withdrawn=tuple(i for p in parts for i in p.withdrawn), doubtful=tuple(d for p in parts for d in p.doubtful),
        phantoms=tuple(i for p in parts for i in p.phantoms), pods_written=MappingProxyType(_written(parts)),
        pods_flagged=tuple(i for p in parts for i in p.pods_flagged),
        experiments_written=MappingProxyType({n: e for p in parts for n, e in p.experiments_written.items()}))


def _written(parts: "list[ChangeSet]") -> dict[str, Written]:
    """The parts' written pods, but those another part wrote too (a flag, an experiment adopted):
    which write came last is not known here, so they are read back."""
    writers = Counter(pid for p in parts for pid in {*p.pods_written, *p.pods_changed, *p.pods_gone, *p.pods_flagged})
    return {pid: w for p in parts for pid, w in p.pods_written.items() if writers[pid] == 1}


@dataclass
class SourceResult:
    """One source's poll as it is written: what the ChangeSet will say of it."""

    experiments: list[int] = field(default_factory=list)
    events_added: int = 0
    approvals_changed: bool = False
    pods_changed: list[str] = field(default_factory=list)
    pods_gone: list[str] = field(default_factory=list)
    losses: list[Loss] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    withdrawn: list[str] = field(default_factory=list)
    doubtful: list[str] = field(default_factory=list)
    phantoms: list[str] = field(default_factory=list)
    to_read: list[str] = field(default_factory=list)  # missing pods to read directly, most recent first
    written: dict[str, Written] = field(default_factory=dict)  # ChangeSet.pods_written
    experiments_written: dict[int, StoredExperiment] = field(default_factory=dict)  # ChangeSet's
    flagged: list[str] = field(default_factory=list)  # ChangeSet.pods_flagged

    def changes(self, source: str, at: datetime, duration_s: float, health: Mapping[str, SourceHealth]) -> ChangeSet:
        """This poll of `source` as the ChangeSet the panel applies."""
        return ChangeSet(
            at=at, duration_s=duration_s, health=MappingProxyType(dict(health)), experiments=tuple(self.experiments),
            events_added=self.events_added, approvals_changed=self.approvals_changed,
            pods_changed=tuple(self.pods_changed), pods_gone=tuple(self.pods_gone), new_losses=tuple(self.losses),
            skipped=tuple(self.skipped), polled=(source,), pods_missing=tuple(self.missing),
            withdrawn=tuple(self.withdrawn), doubtful=tuple(self.doubtful), phantoms=tuple(self.phantoms),
            pods_written=MappingProxyType(self.written), pods_flagged=tuple(self.flagged),
            experiments_written=MappingProxyType(self.experiments_written))

    def add(self, other: "SourceResult") -> None:
        """`other`, a later write of the same poll, added: a pod it wrote without handing its
        record over is read back, not taken as the earlier write left it."""
        for pid in (*other.pods_changed, *other.pods_gone, *other.flagged):
            self.written.pop(pid, None)
        self.written.update(other.written)
        self.experiments_written.update(other.experiments_written)
        for name in ("pods_changed", "pods_gone", "losses", "skipped", "missing", "withdrawn", "doubtful",
                     "phantoms", "flagged"):
            getattr(self, name).extend(getattr(other, name))
