"""What the session hands the UI: immutable updates, rows already rendered and keyed by domain id."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from sagan_tui.wire.channel.views import HeatGridView, IncidentView, PodLogView
    from sagan_tui.core.config_model import Settings
    from sagan_tui.core.models import ApprovalRequest, Experiment, SourceHealth
    from sagan_tui.core.session.model import Note
    from sagan_tui.core.store.cache import CachedPod
    from sagan_tui.wire.render import Row


@dataclass(frozen=True)
class TimelineRows:
    """One timeline's rows for a scope (`tag` names the pane asking: "main", "detail"); `subjects`
    maps each row key to the experiment it is about, so a selection is read by key."""

    tag: str
    experiment: int | None
    kind: str
    rows: Mapping[str, "Row"]
    subjects: Mapping[str, int | None]


@dataclass(frozen=True)
class PanelUpdate:
    """One change for the UI to apply by key. `full` replaces every pane (the load); otherwise
    only what is not None / not empty changed."""

    full: bool = False
    experiments: Mapping[str, "Row"] = field(default_factory=dict)
    pods: Mapping[str, "Row"] = field(default_factory=dict)
    pods_removed: tuple[str, ...] = ()
    approvals: Mapping[str, "Row"] | None = None
    approval_records: tuple["ApprovalRequest", ...] | None = None
    experiment_records: Mapping[int, "Experiment"] = field(default_factory=dict)
    pod_records: Mapping[str, "CachedPod | None"] = field(default_factory=dict)
    timelines: tuple[TimelineRows, ...] = ()
    pod_logs: tuple["PodLogView", ...] = ()  # followed pods' news (core/session/pod_follow.py)
    losses: "IncidentView | None" = None  # made in the session (core/session/views.py), waves weighed
    heatmap: "HeatGridView | None" = None  # the grid for the scope the UI asked for (WatchHeatmap)
    health: Mapping[str, "SourceHealth"] | None = None
    paging: tuple[str, ...] | None = None  # watch's failing page targets, sent with the health
    notes: tuple["Note", ...] = ()
    in_flight: Mapping[str, float] | None = None  # source -> time.monotonic() its poll began
    polls: int | None = None  # poll rounds completed (every source asked once, or a refresh)
    said: str | None = None  # a short answer to the owner's last request (dismiss, toggle)
    # What the owner's key asked for (a timeline's scope, a dismissal): the UI applies it at once,
    # never held behind the keys as a poll's news may be (panel/key_first.py).
    answer: bool = False


@dataclass(frozen=True)
class SessionReady:
    """The session opened the cache and read the model; `first` is the whole panel."""

    settings: "Settings"
    notices: tuple[str, ...]
    first: PanelUpdate


@dataclass(frozen=True)
class SessionFailed:
    """The settings did not validate or the cache could not be opened: the panel cannot run.
    `error` is the whole line to print."""

    error: str
    exit_code: int = 1
