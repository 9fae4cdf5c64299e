"""Sagan's statuses and turns, UTC helpers and the cache's stamps, and each source's health, in plain Python.

Apart from models.py (which re-exports all of it) and store/ so that the panel's first frame,
which shows these, is drawn before pydantic or sqlite-utils is imported: pydantic and the model
classes cost a quarter of a second of the start (bench/bench_start.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from enum import Enum
from typing import Any, Mapping

# --- statuses and turns ---------------------------------------------------------------

KNOWN_STATUSES: tuple[str, ...] = (
    "proposed", "clarifying", "awaiting_clarifications", "gate_pending", "planning",
    "plan_pending", "approved", "awaiting_approval", "queued", "implementing",
    "code_reviewing", "testing", "running", "uploading", "verifying", "interpreting",
    "reviewing", "clean_result_drafting", "awaiting_promotion", "followups_running",
    "shared", "blocked", "completed", "done_experiment", "done_impl", "failed",
    "cancelled", "archived",
)

_SAGAN_RUNS = "Sagan: run and verify"
TURNS: dict[str, str] = {
    "proposed": "Sagan: clarify scope",
    "clarifying": "Sagan: clarify hypothesis and information gain",
    "awaiting_clarifications": "Owner: answer Sagan questions",
    "gate_pending": "Owner: resolve gate",
    "planning": "Sagan: draft plan",
    "plan_pending": "Owner: approve, defer, or reject",
    "awaiting_approval": "Owner: approve, defer, or reject",
    "reviewing": "Owner: review interpretation and propose follow-ups",
    "awaiting_promotion": "Owner: promote clean result",
    "blocked": "Owner: unblock or revise",
    **{s: _SAGAN_RUNS for s in (
        "approved", "queued", "implementing", "code_reviewing", "testing", "running",
        "uploading", "verifying", "interpreting", "followups_running", "clean_result_drafting",
    )},
}
NO_TURN = "no active owner action"
# RunPod states of a pod still listed but not running: not live, bills no GPU hour, stopping it again does nothing.
STOPPED_STATES = frozenset({"EXITED", "TERMINATED", "DEAD"})
OWNER_TURN_STATUSES: frozenset[str] = frozenset(s for s, t in TURNS.items() if t.startswith("Owner"))


def turn_for(status: str) -> str:
    """Whose turn an experiment in `status` is, as Sagan's experimentTurn says."""
    return TURNS.get(status, NO_TURN)


def is_owner_turn(status: str) -> bool:
    return status in OWNER_TURN_STATUSES


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class HeldClock:
    """A clock that stands still until moved (a replay, a test driving the simulator's clock); the
    session process's clock when the panel starts it with one, moved by the panel's readings."""

    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at

    def move(self, at: datetime) -> None:
        self.at = max(self.at, at)  # never back: what was counted stays counted


def as_utc(value: datetime | None) -> datetime | None:
    """Naive datetimes from the wire are UTC; aware ones are converted to UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value if value.tzinfo is timezone.utc else value.astimezone(timezone.utc)


def iso(value: datetime | None) -> str | None:
    """ISO 8601 UTC with a Z, the form every reply and record uses."""
    v = as_utc(value)
    return None if v is None else v.isoformat().replace("+00:00", "Z")


_TS = "%Y-%m-%dT%H:%M:%S.%fZ"


def ts(value: datetime | None) -> str | None:
    """A fixed-width UTC timestamp (`2026-05-14T10:53:54.000000Z`), so that text order is time order in SQL."""
    v = as_utc(value)
    # isoformat is C, several times strftime's speed (ingest writes one per row); it also pads
    # a year before 1000 to four digits, where strftime's %Y wrote `999-...` (neither fixed
    # width nor readable by parse_ts).
    return None if v is None else v.isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_ts(value: str | None) -> datetime | None:
    """A stamp from the cache (or any ISO 8601 text) as an aware UTC datetime; ValueError if unreadable."""
    if not value:
        return None
    try:
        # Python 3.11's fromisoformat reads `...Z` about ten times faster than strptime.
        return as_utc(datetime.fromisoformat(value.replace("Z", "+00:00")))
    except ValueError:
        # What strptime reads and fromisoformat does not (a lower-case z, unpadded fields) is
        # still read, as it always was.
        return datetime.strptime(value, _TS).replace(tzinfo=timezone.utc)


class ExperimentFacts:
    """What an experiment's status says, for Experiment and for the plain ExperimentView (the
    channel's, and the first frame's: both have `status` and `turn`; no annotations here, which
    pydantic would take for fields)."""

    @property
    def status_known(self) -> bool:
        return self.status in KNOWN_STATUSES

    @property
    def effective_turn(self) -> str:
        """The server's turn when given, else the one DOMAIN.md derives from the status."""
        return self.turn or turn_for(self.status)

    @property
    def owner_turn(self) -> bool:
        return is_owner_turn(self.status)


class HealthState(str, Enum):
    OK = "ok"
    ERROR = "error"
    UNKNOWN = "unknown"
    DISABLED = "disabled"


class ErrorKind(str, Enum):
    AUTH = "401"
    RATE_LIMIT = "429"
    SERVER = "5xx"
    TIMEOUT = "timeout"
    BAD_JSON = "bad-json"
    BAD_ENCODING = "bad-encoding"  # a body its Content-Encoding (gzip, deflate, br) cannot decode: it came, broken
    GONE = "410-gone"
    UNREACHABLE = "unreachable"
    CLIENT = "4xx"
    NO_KEY = "no-key"
    FORBIDDEN = "403-no-access"  # a valid key without access to that pod or action (not a revoked key)
    TOO_LARGE = "too-large"  # a reply past the size bound, abandoned before it was read whole
    OTHER = "other"


@dataclass
class SourceHealth:
    """The health of one source: Sagan, or one RunPod account (with its balance)."""

    source: str  # "sagan" or the account name
    state: HealthState = HealthState.UNKNOWN
    error_kind: ErrorKind | None = None
    message: str | None = None
    last_success: datetime | None = None
    last_attempt: datetime | None = None
    consecutive_failures: int = 0
    next_attempt: datetime | None = None
    transport: str | None = None
    # account-only
    balance: float | None = None
    spend_per_hr: float | None = None
    spend_limit: float | None = None
    under_balance: bool | None = None
    # Why the balance is missing or old, e.g. "n/a (GraphQL retired)"; not stored: every poll says it again.
    balance_note: str | None = None
    # Records of the last successful poll that could not be read, and since when some have been:
    # while any are, the account's pods are not all known and its health is never a plain OK.
    unreadable: int = 0
    unreadable_since: datetime | None = None
    # Pods the last successful poll listed more than once (each read as one), and since when some
    # have been: a defect of those records, never of the list, and never a plain OK while it lasts.
    duplicates: int = 0
    duplicates_since: datetime | None = None
    # Pods listed once and never again (phantoms) in the last day: observations, never losses.
    phantoms: int = 0
    # "PREPAID" or "POSTPAID" as REST v2's balance route said (None: not read); a POSTPAID account
    # is invoiced, and its balance never stops its pods.
    billing_mode: str | None = None

    def __post_init__(self) -> None:
        # What the cache and JSON lines hold is text: the same values the enums and UTC stamps hold.
        self.state = HealthState(self.state)
        self.error_kind = None if self.error_kind is None else ErrorKind(self.error_kind)
        self.last_success, self.last_attempt, self.next_attempt, self.unreadable_since = (
            as_utc(self.last_success), as_utc(self.last_attempt), as_utc(self.next_attempt),
            as_utc(self.unreadable_since))
        self.duplicates_since = as_utc(self.duplicates_since)

    def stale(self, now: datetime, poll_interval: float) -> bool:
        """Data older than three polls is stale wherever it shows. A poll is its interval and the
        time the last one took (from its start, `last_attempt`, to its success): an account of
        10,000 pods that takes 3 s to list is polled every 5 s, and is not stale at 6."""
        if self.last_success is None:
            return True
        took = 0.0
        if self.last_attempt is not None and self.last_attempt <= self.last_success:
            took = (self.last_success - self.last_attempt).total_seconds()
        return (now - self.last_success).total_seconds() > 3 * (poll_interval + took)


def health_from_row(r: Mapping[str, Any]) -> SourceHealth:
    """A `sync_state` row of the cache as SourceHealth; ValueError for a value it cannot hold."""
    return SourceHealth(
        source=r["source"], state=HealthState(r["state"] or "unknown"),
        error_kind=ErrorKind(r["error_kind"]) if r["error_kind"] else None, message=r["message"],
        last_success=parse_ts(r["last_success"]), last_attempt=parse_ts(r["last_attempt"]),
        consecutive_failures=r["consecutive_failures"] or 0, next_attempt=parse_ts(r["next_attempt"]),
        transport=r["transport"], balance=r["balance"], spend_per_hr=r["spend_per_hr"],
        spend_limit=r["spend_limit"],
        under_balance=None if r["under_balance"] is None else bool(r["under_balance"]),
        unreadable=_column(r, "unreadable") or 0, unreadable_since=parse_ts(_column(r, "unreadable_since")),
        duplicates=_column(r, "duplicates") or 0, duplicates_since=parse_ts(_column(r, "duplicates_since")),
        phantoms=_column(r, "phantoms") or 0, billing_mode=_column(r, "billing_mode"))


def _column(r: Mapping[str, Any], name: str) -> Any:
    """A column a file of an older schema may lack (a read-only open migrates nothing)."""
    return r[name] if name in r.keys() else None
