"""What the UI knows of the panel: the session's last updates applied, records by key (no I/O)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Mapping

from sagan_tui.panel.pod_log import PodLog

if TYPE_CHECKING:
    from sagan_tui.wire.basics import SourceHealth
    from sagan_tui.wire.channel.views import (ApprovalView, CachedPodView, ExperimentView, IncidentView, LossRecordView,
                                         RecordPatchView, RowView, TimelineView, UpdateView, WaveView)


class PodRecords(Mapping[str, "CachedPodView"]):
    """The pods' records by key, each the latest the session sent. A record held crosses as a
    patch (RecordPatchView: its fields that differ from the record sent whole), which replaces
    the record's patch before it and is applied when the record is read: a poll may patch every
    pod, and the owner reads a few (a stop dialog, a detail's pods)."""

    __slots__ = ("_made", "_patches", "_records")

    def __init__(self) -> None:
        self._records: dict[str, CachedPodView] = {}  # as sent whole
        self._patches: dict[str, RecordPatchView] = {}  # the latest patch of each
        self._made: dict[str, tuple[RecordPatchView, CachedPodView]] = {}  # a patched record read, by its patch

    def __getitem__(self, key: str) -> CachedPodView:
        cp = self._records[key]
        p = self._patches.get(key)
        if p is None:
            return cp
        made = self._made.get(key)
        if made is None or made[0] is not p:
            made = self._made[key] = (p, p.applied_to(cp))
        return made[1]

    def __contains__(self, key: object) -> bool:
        return key in self._records

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def apply(self, full: bool, records: Mapping[str, CachedPodView | None],
              patches: tuple[RecordPatchView, ...]) -> None:
        if full:
            self._records, self._patches, self._made = {}, {}, {}
        held, patched, made = self._records, self._patches, self._made
        for pid, cp in records.items():
            patched.pop(pid, None)
            made.pop(pid, None)
            if cp is None:
                held.pop(pid, None)
            else:
                held[pid] = cp
        for p in patches:  # C speed: a poll that patches every pod reads none of them here
            if len(p.keys) == 1:
                patched[p.keys[0]] = p
            else:
                patched.update(dict.fromkeys(p.keys, p))


class PanelView:
    """Only the main thread reads or changes it; every value in it came whole from the session.
    The rows are the tables' (a row the UI holds arrives as a patch its table applies)."""

    def __init__(self) -> None:
        self.experiments: dict[int, ExperimentView] = {}
        self.pods = PodRecords()
        self.approvals: tuple[ApprovalView, ...] = ()
        self.health: Mapping[str, SourceHealth] = {}
        self.paging: tuple[str, ...] = ()  # watch's failing page targets, as the status line says them
        self.loss_view: IncidentView | None = None
        self.timelines: dict[str, TimelineView] = {}
        self.in_flight: Mapping[str, float] = {}
        self.polls = 0
        self.pod_logs: dict[str, PodLog] = {}  # the pods a pod screen follows (panel/pod_log.py)

    @property
    def losses(self) -> tuple[LossRecordView, ...]:
        return self.loss_view.losses if self.loss_view else ()

    @property
    def waves(self) -> tuple[WaveView, ...]:
        return self.loss_view.waves if self.loss_view else ()

    def apply(self, u: UpdateView) -> None:
        if u.full:
            self.experiments = {}
        self.experiments.update(u.experiment_records)
        self.pods.apply(u.full, u.pod_records, u.pod_record_patches)
        if u.approval_records is not None:
            self.approvals = u.approval_records
        if u.health is not None:
            self.health = u.health
        if u.paging is not None:
            self.paging = u.paging
        if u.losses is not None:
            self.loss_view = u.losses
        for t in u.timelines:
            self.timelines[t.tag] = t
        for log in u.pod_logs:
            self.pod_logs.setdefault(log.pod_id, PodLog()).apply(log)
        if u.in_flight is not None:
            self.in_flight = u.in_flight
        if u.polls is not None:
            self.polls = u.polls

    def pod_rows_of(self, experiment: int, rows: Mapping[str, RowView]) -> dict[str, RowView]:
        """Of the pods pane's `rows` (its table's, by key), those of one experiment (the detail's pods)."""
        out = {}
        lost = {x.pod_id: x for x in self.losses}
        for pid, row in rows.items():
            cp, loss = self.pods.get(pid), lost.get(pid)
            number = cp.experiment if cp is not None else (loss.experiment if loss else None)
            if number == experiment:
                out[pid] = row
        return out

    def experiment_of(self, pane: str, key: str) -> int | None:
        """The experiment a row of `pane` is about, read by the row's key."""
        if pane == "pods":
            cp = self.pods.get(key)
            if cp is not None:
                return cp.experiment
            return next((x.experiment for x in self.losses if x.pod_id == key), None)
        if pane == "approvals":
            return next((a.experiment_number for a in self.approvals if a.id == key), None)
        tl = self.timelines.get(pane)
        return tl.subjects.get(key) if tl else None
