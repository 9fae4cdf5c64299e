"""What crosses the channel from the session to the UI: view data only, as msgspec Structs.

Rows are rendered already (text, style, sort value), keyed by domain id; health is the plain
SourceHealth dataclass of basics.py (no pydantic); results of the owner's actions and what the
dialogs read are plain fields. Nothing here computes: the UI shows these as they are.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from sagan_tui.basics import SourceHealth
from sagan_tui.config import UiSettings


class CellView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One table cell as render.Cell has it: cleaned text, a Rich style, the value it sorts by."""

    text: str
    style: str = ""
    sort: Any = None

    @property
    def sort_value(self) -> Any:
        return self.text.lower() if self.sort is None else self.sort


class RowView(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One table row as render.Row has it (the same attributes, so a table takes either)."""

    cells: tuple[CellView, ...]
    group: int = 0
    order: Any = 0
    until: float = math.inf

    def search_text(self) -> str:
        return " ".join(c.text for c in self.cells).lower()


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


class UpdateView(msgspec.Struct, frozen=True):
    """One change for the UI to apply by key; `full` replaces every pane. Only what is not None /
    not empty changed (as session/updates.py's PanelUpdate, less the records)."""

    full: bool = False
    experiments: dict[str, RowView] = {}
    pods: dict[str, RowView] = {}
    pods_removed: tuple[str, ...] = ()
    approvals: dict[str, RowView] | None = None
    timelines: tuple[TimelineView, ...] = ()
    health: dict[str, SourceHealth] | None = None
    notes: tuple[NoteView, ...] = ()
    in_flight: dict[str, float] | None = None  # source -> time.monotonic() its poll began (one clock per machine)
    polls: int | None = None
    said: str | None = None
    answer: bool = False


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
    """actions/results.py's ActionResult, as plain fields."""

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


class StopTargetView(msgspec.Struct, frozen=True):
    pod_id: str
    account: str
    expected_status: str = "RUNNING"
    experiment: int | None = None
    name: str | None = None


class VerdictView(msgspec.Struct, frozen=True):
    """The dispatch guard's verdict on one experiment, in words (triage/guard.py's GuardVerdict)."""

    needs_typed_confirmation: bool
    reasons: tuple[str, ...]
    expected_burn_usd: float
    summary: str
    burn_basis: str = ""
    wave_headline: str = ""  # the active wave's one line, "" when none


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


class AuditView(msgspec.Struct, frozen=True):
    """One line of the audit log."""

    id: int | None
    at: str  # ISO 8601, UTC
    action: str
    target: str
    account: str | None = None
    result: str = "pending"
    error: str | None = None
    detail: str | None = None
