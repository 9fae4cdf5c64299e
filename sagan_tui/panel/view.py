"""What the UI knows of the panel: the session's last updates applied, records by key (no I/O)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from sagan_tui.panel.pod_log import PodLog

if TYPE_CHECKING:
    from sagan_tui.wire.basics import SourceHealth
    from sagan_tui.wire.channel.views import (ApprovalView, CachedPodView, ExperimentView, IncidentView, LossRecordView,
                                         RowView, TimelineView, UpdateView, WaveView)


class PanelView:
    """Only the main thread reads or changes it; every value in it came whole from the session.
    The rows are the tables' (a row the UI holds arrives as a patch its table applies)."""

    def __init__(self) -> None:
        self.experiments: dict[int, ExperimentView] = {}
        self.pods: dict[str, CachedPodView] = {}
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
            self.experiments, self.pods = {}, {}
        self.experiments.update(u.experiment_records)
        for pid, cp in u.pod_records.items():
            if cp is None:
                self.pods.pop(pid, None)
            else:
                self.pods[pid] = cp
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
