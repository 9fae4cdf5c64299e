"""What crosses the channel from the session to the UI: view data only, as msgspec Structs.

Rows are rendered already (text, style, sort value), keyed by domain id; health is the plain
SourceHealth dataclass of basics.py (no pydantic); results of the owner's actions and what the
dialogs read are plain fields. Nothing here computes: the UI shows these as they are.
"""

from __future__ import annotations

import bisect
import math
from datetime import datetime
from typing import Any, Sequence, Union

import msgspec

from sagan_tui.wire.basics import ExperimentFacts, SourceHealth
from sagan_tui.wire.config import UiSettings


Order = Union[int, float, str, tuple[Any, ...]]  # a row's order within its group (render.Row's)


class CellView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One table cell: cleaned text, a Rich style, the value it sorts by (the text if None).

    render.Cell is this type: rows are rendered into it and sent as they are."""

    text: str
    style: str = ""
    sort: Any = None

    @property
    def sort_value(self) -> Any:
        return self.text.lower() if self.sort is None else self.sort


class RowView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One table row, one shape from the session's renderer (render.Row is this) through the
    channel to the table's store."""

    cells: tuple[CellView, ...]
    group: int = 0
    # A tuple, not Any: decoded into Any an array is a list, which the collector tracks for as
    # long as the table holds the row; a tuple of numbers and text it stops tracking.
    order: Order = 0
    until: float = math.inf

    def search_text(self) -> str:
        return " ".join(c.text for c in self.cells).lower()


class RowPatchView(msgspec.Struct, frozen=True, array_like=True, gc=False, omit_defaults=True):
    """A row the UI holds already (wire/channel/rows.py): the new cells at the indexes `at`, the
    others those of the row held; `group`, `order` and `until` are sent only when they changed
    (None: the held row's; a row's order is never None)."""

    at: tuple[int, ...]
    cells: tuple[CellView, ...]
    until: float | None = None
    group: int | None = None
    order: Order | None = None

    def applied_to(self, row: Any) -> tuple[RowView, Sequence[int]]:
        """`row` (a RowView) with this patch's cells in place, sharing the others,
        and the indexes of the cells it replaced that read differently (text or style: a cell
        whose sort value alone changed is drawn as it was). One pass: a poll may patch every row."""
        cells = list(row.cells)
        drawn = []
        for i, cell in zip(self.at, self.cells):
            was = cells[i]
            if was.text != cell.text or was.style != cell.style:
                drawn.append(i)
            cells[i] = cell
        group, order, until = self.group, self.order, self.until
        # Every patched cell drawn anew (the common case) is said by `at` itself: a poll that
        # patches every row then leaves no list per row for the collector to count.
        return RowView(tuple(cells), row.group if group is None else group, row.order if order is None else order,
                       row.until if until is None else until), self.at if len(drawn) == len(self.at) else drawn


class PatchedView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One patch and the keys of the rows it applies to: how patches cross the wire
    (wire/channel/rows.py). A poll that changes many rows the same way (a fleet's status flips)
    sends that patch once, and the UI decodes a key per row, not a patch per row."""

    patch: RowPatchView
    keys: tuple[str, ...]


class NoteView(msgspec.Struct, frozen=True):
    """One notification, text already one clean line (shown with markup off)."""

    message: str
    title: str = ""
    severity: str = "information"
    timeout: float = 8.0
    ring: bool = False


class TimelineView(msgspec.Struct, frozen=True):
    """One timeline's rows for a scope; `subjects` maps each row key to its experiment."""

    tag: str
    experiment: int | None
    kind: str
    rows: dict[str, RowView]
    subjects: dict[str, int | None]


# --- the records the panes select by key, as plain fields ----------------------------------
# The same attribute names as the core's records (models.py, core/store/cache.py, triage/), so the
# screens read either; made on the session's side with msgspec.convert(from_attributes=True).

class ExperimentView(msgspec.Struct, ExperimentFacts, frozen=True):
    number: int
    id: str = ""
    title: str = ""
    status: str = "proposed"
    turn: str | None = None
    legacy_gh_number: int | None = None
    belief_id: str | None = None
    project_id: str | None = None
    body: str | None = None
    hypothesis: str | None = None
    plan_md: str | None = None
    plan_json: Any = None
    pod_spec: Any = None
    config_yaml: str | None = None
    kind: str | None = None
    compute_size: str | None = None
    priority: int | str | None = None
    assignee_kind: str | None = None
    tags: tuple[str, ...] = ()
    has_clean_result: bool = False
    auto_approve_plan: bool = False
    parent_experiment_id: str | None = None
    runpod_account: str | None = None
    converted_to_kind: str | None = None
    converted_to_id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


class PodRecordView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """What the UI reads of a pod's RunPod record (models.py's RunPodPod): the stop dialog's line
    and what the stop's re-check expects. The rest stays on the session's side: the pods pane's
    row is rendered there, so a poll that changes every pod sends these few fields, not the record."""

    desired_status: str = "RUNNING"
    name: str | None = None
    gpu: str | None = None
    cost_per_hr: float | None = None


class CachedPodView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """core/store/cache.py's CachedPod, as far as the UI reads it: which pod, whose, which experiment
    (the number read from Sagan or the pod's name), whether and why it is gone (the stop dialog,
    the bulk stop's plan, the detail's pods, a row's experiment)."""

    pod: PodRecordView
    pod_id: str
    account: str
    experiment: int | None = None
    gone_at: datetime | None = None
    gone_reason: str | None = None


class RecordPatchView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """Records the UI holds (wire/channel/rows.py), as their state: the record sent whole with this
    status and gone, the same for each of `keys` (a fleet's status flip is one patch and its keys,
    not a record per pod). What else the UI reads of a pod (its account, experiment, name, GPU,
    price) comes whole when it changes."""

    desired_status: str
    gone_at: datetime | None
    gone_reason: str | None
    keys: tuple[str, ...]

    def applied_to(self, cp: CachedPodView) -> CachedPodView:
        pod = cp.pod
        return CachedPodView(PodRecordView(self.desired_status, pod.name, pod.gpu, pod.cost_per_hr), cp.pod_id,
                             cp.account, cp.experiment, self.gone_at, self.gone_reason)


class LossRecordView(msgspec.Struct, frozen=True):
    pod_id: str
    account: str
    lost_at: datetime
    experiment: int | None = None
    running_at: datetime | None = None
    last_seen_at: datetime | None = None
    gpu: str | None = None
    datacenter: str | None = None
    cost_per_hr: float | None = None
    source: str = "runpod-poll"
    reason: str | None = None
    run_id: str | None = None
    host: str | None = None
    dismissed: bool = False
    state: str = "confirmed"
    confirmed_by: str | None = None
    withdrawn_at: datetime | None = None
    withdrawn_reason: str | None = None
    gap_s: float | None = None  # seconds from RUNNING to lost (models.py's Loss.gap_s), read there


class FindingView(msgspec.Struct, frozen=True):
    kind: str
    statement: str
    evidence: tuple[str, ...] = ()


class CauseView(msgspec.Struct, frozen=True):
    """A wave's verdict (core/triage/verdict.py's Verdict): the cause, how sure, for and against, what to do."""

    cause: str
    confidence: str
    title: str
    headline: str
    next_step: str
    for_: tuple[FindingView, ...] = ()
    against: tuple[FindingView, ...] = ()
    missing: tuple[str, ...] = ()
    broke: tuple[tuple[str, str], ...] = ()
    runner_up_text: str = ""  # the best other cause: `host-failure -1: all 4 with a known machine on ks2-h17`
    unrelated: tuple[str, ...] = ()  # losses of its run that fit no signature, each said


class BurstView(msgspec.Struct, frozen=True):
    start: datetime
    end: datetime
    losses: tuple[str, ...]  # pod ids


class WaveView(msgspec.Struct, frozen=True):
    """One reaping wave weighed on the session's side: its scope, gaps, burn, verdict and diagnosis."""

    start: datetime
    end: datetime
    losses: tuple[LossRecordView, ...]
    verdict: CauseView
    diagnosis: tuple[FindingView, ...] = ()
    bursts: tuple[BurstView, ...] = ()
    accounts: tuple[str, ...] = ()
    experiments: tuple[int, ...] = ()
    datacenters: tuple[str, ...] = ()
    gpu_types: tuple[str, ...] = ()
    gaps_known: int = 0
    gap_median_s: float | None = None
    gap_spread_s: float | None = None
    burn_usd: float = 0.0
    burn_unknown: int = 0
    summary: str = ""  # its one line (core/triage/guard.py's wave_summary)
    shares: str = ""  # what its losses share (core/triage/grouping.py): "killed ~62 s after RUNNING"

    @property
    def size(self) -> int:
        return len(self.losses)

    @property
    def pod_ids(self) -> tuple[str, ...]:
        return tuple(x.pod_id for x in self.losses)


class IncidentView(msgspec.Struct, frozen=True):
    """Every loss, the waves weighed in the session, and the incident's plain lines (core/session/views.py)."""

    losses: tuple[LossRecordView, ...] = ()
    waves: tuple[WaveView, ...] = ()
    dismissed: frozenset[str] = frozenset()
    affected: frozenset[str] = frozenset()
    forming: tuple[str, ...] = ()
    canary: str = ""
    since_looked: str = ""
    overrides: tuple[tuple[int, str], ...] = ()
    acknowledged: tuple[str, ...] = ()
    # The wave the panel shows, chosen on the session's side: its index in `waves` (-1: none),
    # and while it is the active one, the end of its guard (its last loss + guard_minutes).
    shown: int = -1
    active_until: datetime | None = None
    # Containment's line per held experiment (core/actions/contain.py): verifying, stopping, overridden, contained.
    containment: tuple[tuple[int, str], ...] = ()


class PodDetailView(msgspec.Struct, frozen=True):
    """A pod's screen (core/session/pod_detail.py): what RunPod and Sagan say of it, as (label, value)
    pairs cleaned already, its cost so far and its loss/withdrawal history as lines."""

    pod_id: str
    account: str
    experiment: int | None = None
    runpod: tuple[tuple[str, str], ...] = ()
    sagan: tuple[tuple[str, str], ...] = ()
    cost: str = ""
    history: tuple[str, ...] = ()


class PodLogView(msgspec.Struct, frozen=True):
    """What the session read of one followed pod (core/session/pod_follow.py): its log's new lines as
    (timestamp, source, message), cleaned already; `reset`: they replace what the UI holds.
    `gpus`: (util %, memoryUtil %) per GPU, None when RunPod no longer knows the pod or it was not
    read; `state`: "live", or what failed and when it is tried again."""

    pod_id: str
    lines: tuple[tuple[str, str, str], ...] = ()
    reset: bool = False
    gpus: tuple[tuple[int | None, int | None], ...] | None = None
    state: str = ""


class HeatGridView(msgspec.Struct, frozen=True):
    """The loss heatmap's grid, built on the session's side for the scope the UI asked for
    (WatchHeatmap: rows by, window, width): what core/triage/heatmap.py's HeatGrid says, as plain fields.

    `edges` are the columns' bounds in epoch seconds (column k holds edges[k] <= t < edges[k+1],
    the last also its end); `cells` lists each non-empty cell's pods, by lost_at; `active` are the
    active wave's columns; `cursor` is where the cursor sits until the owner moves it."""

    dimension: str
    window_s: float | None
    width: int
    rows: tuple[str, ...]
    bucket_starts: tuple[datetime, ...]
    bucket_s: float
    counts: tuple[tuple[int, ...], ...]
    max_count: int
    wave_columns: frozenset[int]
    start: datetime
    end: datetime
    edges: tuple[float, ...]
    cells: tuple[tuple[int, int, tuple[str, ...]], ...] = ()
    active: frozenset[int] = frozenset()
    cursor: tuple[int, int] | None = None

    @property
    def total(self) -> int:
        return sum(map(sum, self.counts))

    @property
    def scope(self) -> tuple[str, float | None, int]:
        return self.dimension, self.window_s, self.width

    def column_of(self, when: datetime) -> int | None:
        """The column holding `when`, None outside the grid's window."""
        t = when.timestamp()
        if not self.edges or not self.edges[0] <= t <= self.edges[-1]:
            return None
        return min(bisect.bisect_right(self.edges, t) - 1, len(self.edges) - 2)

    def cell_pods(self, row: int, col: int) -> tuple[str, ...]:
        """The pods lost in one cell, by lost_at."""
        return next((pods for r, c, pods in self.cells if r == row and c == col), ())


class ResponseLineView(msgspec.Struct, frozen=True):
    """One checkbox of the wave response (core/triage/response.py's ResponseLine)."""

    key: str
    label: str
    detail: str = ""
    targets: tuple[str, ...] = ()
    checked: bool = False
    enabled: bool = True


class ProposalView(msgspec.Struct, frozen=True):
    """The wave response the session proposes for the wave on screen (core/triage/response.py's Proposal)."""

    verdict: CauseView
    lines: tuple[ResponseLineView, ...]
    holds: tuple[int, ...]
    note: str
    left_out: tuple[str, ...] = ()

    def line(self, key: str) -> ResponseLineView:
        return next(x for x in self.lines if x.key == key)


class ApprovalView(msgspec.Struct, frozen=True):
    """One approval request's plain fields, and the answers its body asks for."""

    id: str
    experiment_number: int | None = None
    kind: str = "experiment_plan"
    title: str = ""
    body_md: str = ""
    status: str = "pending"
    requested_by: str | None = None
    textbox_fields: tuple[str, ...] = ()
    agent_run_id: str | None = None
    experiment_id: str | None = None
    entity_kind: str = "experiment"
    approved_state: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


class UpdateView(msgspec.Struct, frozen=True):
    """One change for the UI to apply by key; `full` replaces every pane. Only what is not None /
    not empty changed. The session builds it as it is (core/session/core.py): one shape on both
    sides; its host's send step makes the patches and parts (wire/channel/rows.py)."""

    full: bool = False
    experiments: dict[str, RowView] = {}
    pods: dict[str, RowView] = {}
    pods_removed: tuple[str, ...] = ()
    # Rows the UI holds already, as the cells that changed (wire/channel/rows.py), by key: the
    # tables' stores apply them to the rows they hold.
    experiment_patches: dict[str, RowPatchView] = {}
    pod_patches: dict[str, RowPatchView] = {}
    # The same patches as they cross the wire: each once, with the keys of its rows. The client
    # makes them the dicts above (rows.py's HeldTables.receive) before the UI reads the update.
    experiments_patched: tuple[PatchedView, ...] = ()
    pods_patched: tuple[PatchedView, ...] = ()
    approvals: dict[str, RowView] | None = None
    approval_records: tuple[ApprovalView, ...] | None = None
    experiment_records: dict[int, ExperimentView] = {}
    pod_records: dict[str, CachedPodView | None] = {}
    # Records the UI holds whose state alone changed, as that state (rows.py's SentRecords); the
    # UI's view applies one when it reads the record (panel/view.py's PodRecords).
    pod_record_patches: tuple[RecordPatchView, ...] = ()
    timelines: tuple[TimelineView, ...] = ()
    losses: IncidentView | None = None
    heatmap: HeatGridView | None = None
    pod_logs: tuple[PodLogView, ...] = ()
    health: dict[str, SourceHealth] | None = None
    # watch's page targets whose last page failed ("paging failed: ntfy ntfy.sh 403"); None: unchanged
    paging: tuple[str, ...] | None = None
    notes: tuple[NoteView, ...] = ()
    in_flight: dict[str, float] | None = None  # source -> time.monotonic() its poll began (one clock per machine)
    polls: int | None = None
    said: str | None = None
    answer: bool = False
    # More frames of the same update follow: a large one goes in parts, each pods' rows and
    # records only, the rest with the last (wire/channel/rows.py's SentTables.send).
    more: bool = False


class ReadyView(msgspec.Struct, frozen=True, tag="ready"):
    """The session opened the cache and read the model; `first` is the whole panel."""

    settings: UiSettings
    notices: tuple[str, ...]
    first: UpdateView


class FailedView(msgspec.Struct, frozen=True, tag="failed"):
    """The settings did not validate or the cache could not be opened: `error` is the line to print."""

    error: str
    exit_code: int = 1


class Done(msgspec.Struct, frozen=True):
    """The answer to an intent that only starts something (its effect arrives as updates)."""


class ActionResultView(msgspec.Struct, frozen=True):
    """The outcome of one owner action, as the panel reports it (the core's ActionResult is this
    Struct: core/actions/results.py; it crosses the channel as it is).

    `ok` is True only when the server said so. `refused` means nothing was sent (read-only,
    in flight, a guard or a re-check said no); `cancelled` that the owner backed out of a
    dialog (nothing sent either); `server_error` holds the server's own words. A bulk action
    holds one result per target in `parts`, and `did` is its verb's past tense ("stopped").
    """

    ok: bool
    message: str
    server_error: str | None = None
    refused: bool = False
    verb: str = ""
    target: str = ""
    account: str | None = None
    audit_id: int | None = None
    parts: tuple["ActionResultView", ...] = ()
    cancelled: bool = False
    did: str = ""

    @property
    def result(self) -> str:
        """The audit log's word for it."""
        if self.ok:
            return "ok"
        return "cancelled" if self.cancelled else ("refused" if self.refused else "error")

    @property
    def failed(self) -> tuple["ActionResultView", ...]:
        return tuple(p for p in self.parts if not p.ok)

    @property
    def title(self) -> str:
        """The notification's title: `2 of 3 stopped` for a bulk action, else one word."""
        if self.parts:
            return f"{sum(p.ok for p in self.parts)} of {len(self.parts)} {self.did or 'done'}"
        if self.ok:
            return "Done"
        return "Cancelled" if self.cancelled else ("Refused" if self.refused else "Failed")

    @property
    def severity(self) -> str:
        """`information` when all went through, `error` when nothing did through a failure;
        `warning` for the rest: a refusal, a cancel, or a bulk action that partly went through."""
        if self.ok:
            return "information"
        if self.refused or self.cancelled or any(p.ok for p in self.parts):
            return "warning"
        return "error"


class StopTargetView(msgspec.Struct, frozen=True):
    """A pod to stop, as the owner saw it when they asked: the re-check compares against this
    (the core's StopTarget is this Struct)."""

    pod_id: str
    account: str
    expected_status: str = "RUNNING"
    experiment: int | None = None
    name: str | None = None
    gpu: str | None = None  # what the containment dialog lists beside the id (untrusted: shown literally)
    cost_per_hr: float | None = None
    age_s: float | None = None

    @classmethod
    def of(cls, cached: Any) -> "StopTargetView":
        """The stop of a pod as the owner sees it now: a CachedPod, or the CachedPodView the UI holds."""
        return cls(pod_id=cached.pod_id, account=cached.account, expected_status=cached.pod.desired_status,
                   experiment=cached.experiment, name=cached.pod.name)

    def label(self) -> str:
        exp = f"#{self.experiment}" if self.experiment is not None else "no experiment"
        return f"{self.pod_id} ({self.account}, {exp}, {self.expected_status})"


class VerdictView(msgspec.Struct, frozen=True):
    """The dispatch guard's verdict on one experiment, in words (core/triage/guard.py's GuardVerdict)."""

    needs_typed_confirmation: bool
    reasons: tuple[str, ...]
    expected_burn_usd: float
    summary: str
    burn_basis: str = ""
    wave: WaveView | None = None  # the active wave, if any
    token: str = ""  # what the owner types to confirm ("": the experiment's number)


class DetailView(msgspec.Struct, frozen=True):
    """One experiment as Sagan serves it now (the detail's plan and fields), and its requests."""

    experiment: ExperimentView
    approval_requests: tuple[ApprovalView, ...] = ()
    skipped: tuple[str, ...] = ()


class AuditView(msgspec.Struct, frozen=True):
    """One line of the audit log."""

    id: int | None
    at: datetime
    action: str
    target: str
    account: str | None = None
    result: str = "pending"
    error: str | None = None
    detail: str | None = None
    origin: str | None = None  # a hold's maker, recorded when it was made (h, H, W, canary, watch, sagan)
