"""Typed records that cross every boundary: Sagan's, RunPod's, the cache's and triage's."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Iterable, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from sagan_tui.wire.basics import (  # noqa: F401 - re-exported: models is where records are imported from
    KNOWN_STATUSES, NO_TURN, OWNER_TURN_STATUSES, TURNS, ErrorKind, ExperimentFacts, HealthState,
    SourceHealth, as_utc, is_owner_turn, iso, turn_for, utcnow,
)

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_NESTING = 100


def nesting(value: Any) -> int:
    """How deep lists and dicts nest in `value` (a scalar is 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, depth = stack.pop()
        items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
        if items is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((item, depth + 1) for item in items)
    return deepest


def storable_text(s: str) -> str:
    """`s` as UTF-8 can hold it: lone surrogates (which JSON escapes allow) replaced by U+FFFD."""
    if s.isascii():  # a flag CPython keeps: no copy, and most of what every poll reads
        return s
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class Wire(BaseModel):
    """Base of records read from a server: camelCase on the wire, extras tolerated."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="allow", frozen=False,
    )

    @field_validator("*", mode="after")
    @classmethod
    def _storable(cls, v: Any) -> Any:
        # One record the cache cannot store would fail the whole poll's transaction: an
        # integer past 64 bits makes the record invalid (skipped with a reason), a lone
        # surrogate (valid JSON, not UTF-8) becomes U+FFFD.
        if isinstance(v, datetime):
            return as_utc(v)
        if isinstance(v, str):
            return storable_text(v)
        if isinstance(v, int) and not isinstance(v, bool) and not INT64_MIN <= v <= INT64_MAX:
            raise ValueError("integer out of range (more than 64 bits)")
        if isinstance(v, (dict, list)) and nesting(v) > MAX_NESTING:
            # pydantic refuses to serialise past ~250 levels: the cache write would fail the poll.
            raise ValueError(f"nested more than {MAX_NESTING} levels deep")
        return v

    def dump(self) -> dict[str, Any]:
        """The record as JSON-ready camelCase, extras dropped."""
        return self.model_dump(mode="json", by_alias=True, exclude=set(self.model_extra or {}))

    def dump_json(self, *, exclude_none: bool = False) -> str:
        """`dump()` as JSON text, for the cache: the same values, read back to an equal record."""
        extras = set(self.model_extra or {})
        try:
            # pydantic's own serializer: several times json.dumps(dump()), which cost more than
            # SQLite's insert of an event row.
            return self.model_dump_json(by_alias=True, exclude_none=exclude_none, exclude=extras)
        except ValueError:
            # It refuses a lone surrogate nested in free-form metadata, as a value or as a key (valid
            # JSON: what a JavaScript server sends after slice() cut a pair), and so does its JSON
            # mode. Dumped as Python values, json writes the surrogate as the ASCII escape `\ud800`:
            # the record is stored exactly, and one such record never fails the poll's transaction.
            # `_jsonable` writes what json cannot (datetimes) as pydantic's JSON mode does.
            return json.dumps(self.model_dump(by_alias=True, exclude_none=exclude_none, exclude=extras),
                              default=_jsonable)


def _jsonable(value: Any) -> Any:
    """A value json cannot write (a datetime, an enum) as pydantic's JSON mode writes it."""
    from pydantic_core import to_jsonable_python

    return to_jsonable_python(value)


# --- Sagan ----------------------------------------------------------------------------

class Experiment(Wire, ExperimentFacts):
    id: str
    number: int
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
    tags: list[str] = Field(default_factory=list)
    has_clean_result: bool = False
    auto_approve_plan: bool = False
    parent_experiment_id: str | None = None
    runpod_account: str | None = None
    converted_to_kind: str | None = None
    converted_to_id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None


class WorkflowEvent(Wire):
    id: str
    entity_kind: str = "experiment"
    entity_id: str | None = None
    experiment_number: int | None = None  # filled by the server or by sync when known
    event_type: str
    from_status: str | None = None
    to_status: str | None = None
    actor_kind: str | None = None
    actor_user_id: str | None = None
    note: str | None = None
    metadata: Any = None
    created_at: datetime

    @property
    def is_marker(self) -> bool:
        return self.event_type.startswith("epm:")


TEXTBOX_RE = re.compile(r"\[TEXTBOX:([A-Za-z0-9_.\-]+)\]")


def textbox_fields(body: str | None) -> list[str]:
    """The distinct `[TEXTBOX:name]` field names of a body, in order of first appearance."""
    seen: dict[str, None] = {}
    for m in TEXTBOX_RE.finditer(body or ""):
        seen.setdefault(m.group(1), None)
    return list(seen)


class ApprovalRequest(Wire):
    id: str
    agent_run_id: str | None = None
    experiment_id: str | None = None
    experiment_number: int | None = None
    entity_kind: str = "experiment"
    kind: str = "experiment_plan"
    title: str = ""
    body_md: str = ""
    status: str = "pending"
    approved_state: str | None = None
    requested_by: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @property
    def textbox_fields(self) -> list[str]:
        return textbox_fields(self.body_md)


class PodLifecycle(Wire):
    """A row of Sagan's pod_lifecycle table (snake_case on the wire, as Sagan stores it)."""

    model_config = ConfigDict(populate_by_name=True, extra="allow", alias_generator=None)

    id: str | int
    runpod_pod_id: str
    account: str = "team"
    agent_run_id: str | None = None
    experiment_id: str | None = None
    experiment_number: int | None = None
    run_id: str | None = None
    name: str | None = None
    gpu_type_id: str | None = None
    gpu_count: int | None = None
    status: str = "deploying"
    desired_status: str | None = None
    retry_count: int = 0
    max_retries: int = 3
    blocked_reason: str | None = None
    last_error: str | None = None
    last_checked_at: datetime | None = None
    last_heartbeat_at: datetime | None = None
    stopped_at: datetime | None = None
    terminated_at: datetime | None = None
    cost_per_hr: float | None = None
    adjusted_cost_per_hr: float | None = None
    uptime_seconds: int | None = None
    last_started_at: datetime | None = None
    metadata: Any = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude=set(self.model_extra or {}))


# --- RunPod ---------------------------------------------------------------------------

POD_ID_RE = re.compile(r"^[a-z0-9]{6,32}$")
MAX_UPTIME_S = 10 * 366 * 86400  # ten years: longer than RunPod has existed


def valid_pod_id(pod_id: object) -> bool:
    """Whether `pod_id` may be pasted into a GraphQL string or a URL path."""
    # fullmatch: with match, `$` also matches before a final newline, which would go out with the id.
    return isinstance(pod_id, str) and bool(POD_ID_RE.fullmatch(pod_id))


class RunPodPod(Wire):
    """A pod as one RunPod account lists it, flattened from the nested GraphQL/REST reply."""

    id: str
    account: str = ""
    experiment: int | None = None  # not RunPod's: filled from Sagan's records or the pod's name
    name: str | None = None
    desired_status: str = "RUNNING"
    last_status_change: str | None = None
    uptime_seconds: int | None = None  # runtime.uptimeInSeconds (the top-level one is unreliable)
    cost_per_hr: float | None = None
    adjusted_cost_per_hr: float | None = None
    gpu_count: int | None = None
    gpu: str | None = None  # machine.gpuDisplayName
    datacenter: str | None = None  # machine.dataCenterId
    pod_type: str | None = None
    image_name: str | None = None
    machine_id: str | None = None
    host: str | None = None  # machine.podHostId (GraphQL only: REST v2 names no machine)
    has_runtime: bool = False
    cluster_id: str | None = None  # REST v2 `cluster.id`: an Instant Cluster member

    @field_validator("id")
    @classmethod
    def _id(cls, v: str) -> str:
        if not valid_pod_id(v):
            raise ValueError("pod id must match ^[a-z0-9]{6,32}$")
        return v

    @field_validator("uptime_seconds")
    @classmethod
    def _uptime(cls, v: int | None) -> int | None:
        # A start is dated `now - uptime`: an uptime past any pod's life is a lie, and past
        # datetime's range it would fail the poll of every other pod with it.
        if v is not None and not 0 <= v <= MAX_UPTIME_S:
            raise ValueError(f"uptime {v} s is outside 0..{MAX_UPTIME_S}")
        return v

    @property
    def running(self) -> bool:
        return self.desired_status == "RUNNING"

    @property
    def reaped_reason(self) -> str | None:
        """The RunPod-side reason when the pod is EXITED by RunPod rather than by its owner."""
        if self.desired_status in ("EXITED", "TERMINATED", "DEAD") and self.last_status_change:
            text = self.last_status_change.lower()
            if "by runpod" in text or "reaped" in text or "reclaim" in text:
                return self.last_status_change
        return None



AccountHealth = SourceHealth


# --- triage and audit -----------------------------------------------------------------

class Loss(BaseModel):
    """A pod that vanished (or was reaped) without anyone asking for it to stop."""

    model_config = ConfigDict(extra="ignore")

    pod_id: str
    account: str
    experiment: int | None = None
    running_at: datetime | None = None
    last_seen_at: datetime | None = None
    lost_at: datetime
    gpu: str | None = None
    datacenter: str | None = None
    cost_per_hr: float | None = None
    source: str = "runpod-poll"  # "runpod-poll", "sagan", or "runpod-poll+sagan"
    reason: str | None = None
    run_id: str | None = None
    host: str | None = None  # the machine it ran on (RunPod's podHostId), when known
    dismissed: bool = False
    # missing (absent from one list, or Sagan's word while RunPod lists it: not yet a loss),
    # confirmed (a loss: counts in waves, verdicts and reports), withdrawn (disproved: kept for
    # the audit trail and `waves --format json`, counted nowhere).
    state: str = "confirmed"
    confirmed_by: str | None = None
    withdrawn_at: datetime | None = None
    withdrawn_reason: str | None = None

    @field_validator("running_at", "last_seen_at", "lost_at", "withdrawn_at", mode="after")
    @classmethod
    def _utc(cls, v: datetime | None) -> datetime | None:
        return as_utc(v)

    @property
    def gap_s(self) -> float | None:
        """Seconds from RUNNING to lost."""
        if self.running_at is None:
            return None
        return (self.lost_at - self.running_at).total_seconds()


@dataclass(frozen=True, slots=True)
class PodSighting:
    """What the polls saw of one pod: the control group of a wave is built from these.

    A plain record, not a model: a triage holds one per pod the cache knows (10,000 on a large
    fleet) for as long as its waves are followed, and a slotted record is a tenth of a pydantic
    model's size. Sightings come from the cache's own columns; a record line is validated by
    triage/records.py's TypeAdapter."""

    pod_id: str
    account: str
    experiment: int | None = None
    first_seen_at: datetime | None = None
    running_at: datetime | None = None
    last_seen_at: datetime | None = None
    desired_status: str | None = None
    gpu: str | None = None
    datacenter: str | None = None
    cost_per_hr: float | None = None
    gone: bool = False
    host: str | None = None
    # The last poll that saw it RUNNING: a pod stopped or lost later still ran until then.
    running_seen_at: datetime | None = None


class Action(BaseModel):
    """One line of the audit log."""

    id: int | None = None
    at: datetime = Field(default_factory=utcnow)
    action: str
    target: str
    account: str | None = None
    result: str = "pending"  # pending, ok, error, refused, cancelled
    error: str | None = None
    detail: str | None = None
    origin: str | None = None  # a hold's maker: h, H, W, canary, watch, sagan (core/store/schema.py)


# --- lenient parsing ------------------------------------------------------------------

M = TypeVar("M", bound=BaseModel)


def parse_records(model: type[M], items: Iterable[Any], what: str,
                  on_bad: "Callable[[Any, str], None] | None" = None) -> tuple[list[M], list[str]]:
    """Validate each record on its own: bad ones become a reason, the rest are kept.
    `on_bad(record, reason)` hears of each bad one (a pod list names the pods it could not read)."""
    good: list[M] = []
    bad: list[str] = []
    for i, item in enumerate(items if isinstance(items, (list, tuple)) else []):
        try:
            good.append(model.model_validate(item))
            continue
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first.get("loc", ()))
            bad.append(f"{what}[{i}]: {loc or 'record'}: {first.get('msg', 'invalid')}")
        except Exception as exc:  # a record so broken pydantic itself chokes
            bad.append(f"{what}[{i}]: {type(exc).__name__}")
        if on_bad is not None:
            on_bad(item, bad[-1])
    if not isinstance(items, (list, tuple)):
        bad.append(f"{what}: expected a list, got {type(items).__name__}")
    return good, bad
