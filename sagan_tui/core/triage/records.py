"""Loss records as JSON Lines in, waves as JSON out: pure text handling, no files."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable, Iterable

from pydantic import TypeAdapter, ValidationError

from sagan_tui.core.models import Loss, PodSighting, SourceHealth, iso
from sagan_tui.core.triage.diagnosis import Dispatch
from sagan_tui.core.triage.gaps import gap_of
from sagan_tui.core.triage.grouping import signature_of
from sagan_tui.core.triage.verdict import diagnosis_of, verdict_of
from sagan_tui.core.triage.waves import Wave

# Besides losses (the default), a line may carry what a cache would add to the analysis:
# a pod sighting (the control group) or an account's health and balance.
# SourceHealth and PodSighting are plain dataclasses (the first frame shows health before pydantic
# is imported; a triage holds a sighting per pod): pydantic validates them all the same, field by field.
RECORD_TYPES: dict[str, Callable[[Any], Any]] = {
    "loss": Loss.model_validate, "sighting": TypeAdapter(PodSighting).validate_python,
    "health": TypeAdapter(SourceHealth).validate_python}


# Times a record may carry: outside them the analysis' own arithmetic (a wave's end plus the
# guard, a gap in seconds) leaves the range of a date, and no pod ran then anyway.
EARLIEST = datetime(1970, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(2999, 12, 31, tzinfo=timezone.utc)
TIME_FIELDS = ("first_seen_at", "running_at", "last_seen_at", "lost_at")


@dataclass
class ParsedLines:
    losses: list[Loss] = field(default_factory=list)
    sightings: list[PodSighting] = field(default_factory=list)
    health: dict[str, SourceHealth] = field(default_factory=dict)
    dispatches: list[Dispatch] = field(default_factory=list)  # Sagan's own history, when at hand
    balances: dict[str, list[tuple]] = field(default_factory=dict)  # account -> balance history (a cache's)
    withdrawn: list[Loss] = field(default_factory=list)  # losses disproved (a cache's audit trail)
    evidence: dict[str, dict] = field(default_factory=dict)  # pod id -> billing and audit-log row (a cache's)
    syslog: dict[str, dict] = field(default_factory=dict)  # pod id -> its system log as read (a cache's)
    errors: list[str] = field(default_factory=list)  # "line N: what was wrong"


def _why(exc: ValidationError) -> str:
    # Field and message only: pydantic's default text repeats the input, which may be long.
    parts = []
    for e in exc.errors()[:3]:
        loc = ".".join(str(p) for p in e.get("loc", ())) or "record"
        parts.append(f"{loc}: {e.get('msg', 'invalid')}")
    return "; ".join(parts)


def _not_finite(obj: Any, path: str = "") -> str | None:
    """The first field holding NaN or an infinity (JSON's NaN, Infinity), by its dotted name."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return path or "record"
    items = obj.items() if isinstance(obj, dict) else enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        found = _not_finite(value, f"{path}.{key}" if path else str(key))
        if found:
            return found
    return None


def refusal(record: Any) -> str | None:
    """Why a record that validated cannot be analysed (times out of range or out of order, a
    negative price), or None."""
    for name in TIME_FIELDS:
        t = getattr(record, name, None)
        if t is not None and not EARLIEST <= t <= LATEST:
            return f"{name}: {t.isoformat()} is outside {EARLIEST.year}-{LATEST.year}"
    running, seen, lost = (getattr(record, n, None) for n in ("running_at", "last_seen_at", "lost_at"))
    if running is not None and lost is not None and lost < running:
        return "lost_at is before running_at"
    if seen is not None and lost is not None and seen > lost:
        return "last_seen_at is after lost_at"
    if running is not None and seen is not None and seen < running:
        return "last_seen_at is before running_at"
    cost = getattr(record, "cost_per_hr", None)
    if cost is not None and cost < 0:
        return "cost_per_hr is negative"
    return None


def parse_record_lines(lines: Iterable[str]) -> ParsedLines:
    """Each non-blank line one JSON object; a bad line becomes an error naming it, the rest are kept.

    Two loss records of one pod are merged into one loss, as the cache merges a pod's records from
    both sources, and the merge is reported on the later line."""
    from sagan_tui.core.triage.losses import combine

    out = ParsedLines()
    first_line: dict[str, int] = {}  # pod_id -> the line its loss was first given on
    for n, line in enumerate(lines, 1):
        text = line.strip()
        if not text:
            continue
        try:
            obj: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            out.errors.append(f"line {n}: not JSON: {exc.msg} at column {exc.colno}")
            continue
        if not isinstance(obj, dict):
            out.errors.append(f"line {n}: expected a JSON object, got {type(obj).__name__}")
            continue
        bad = _not_finite(obj)
        if bad:
            out.errors.append(f"line {n}: {bad}: not a finite number (NaN or Infinity)")
            continue
        kind = obj.pop("type", "loss")
        validate = RECORD_TYPES.get(kind) if isinstance(kind, str) else None
        if validate is None:
            out.errors.append(f"line {n}: unknown record type {kind!r} (expected {', '.join(RECORD_TYPES)})")
            continue
        try:
            record = validate(obj)
        except ValidationError as exc:
            out.errors.append(f"line {n}: {_why(exc)}")
            continue
        why = refusal(record)
        if why:
            out.errors.append(f"line {n}: {why}")
            continue
        if isinstance(record, Loss) and record.pod_id in first_line:
            at = next(i for i, x in enumerate(out.losses) if x.pod_id == record.pod_id)
            out.losses[at] = combine([out.losses[at], record])
            out.errors.append(f"line {n}: pod {record.pod_id} was also lost on line {first_line[record.pod_id]}:"
                              " merged into one loss")
        elif isinstance(record, Loss):
            first_line[record.pod_id] = n
            out.losses.append(record)
        elif isinstance(record, PodSighting):
            out.sightings.append(record)
        else:
            out.health[record.source] = record
    return out


def parse_loss_lines(lines: Iterable[str]) -> tuple[list[Loss], list[str]]:
    """(losses, errors) of JSON Lines loss records; sighting and health lines are accepted and left out."""
    parsed = parse_record_lines(lines)
    return parsed.losses, parsed.errors


def loss_to_json(loss: Loss) -> dict[str, Any]:
    """The JSON Lines form of a loss (unknown fields left out), plus its RUNNING-to-lost gap."""
    # A loss's state is said only when it is not a plain confirmed one (withdrawn, missing).
    quiet = {"dismissed"} if not loss.dismissed else set()
    out = loss.model_dump(mode="json", exclude_none=True, exclude=quiet | ({"state"} if loss.state == "confirmed"
                                                                             else set()))
    gap = gap_of(loss)
    if gap is not None:
        out["gap_s"] = round(gap, 3)
    return out


def wave_to_json(wave: Wave) -> dict[str, Any]:
    """One wave as `waves --format json` prints it: exactly DESIGN.md's keys (scripts rely on
    them), its cause `signature` (grouping.py) and the losses of its run that fit none
    (`unrelated`); the gap spread and unpriced losses are stated in the diagnosis."""
    return {
        "start": iso(wave.start), "end": iso(wave.end),
        "losses": [loss_to_json(x) for x in wave.losses],
        "accounts": list(wave.accounts), "experiments": list(wave.experiments),
        "datacenters": list(wave.datacenters), "gpu_types": list(wave.gpu_types),
        "gap_median_s": wave.gap_median_s, "burn_usd": round(wave.burn_usd, 4),
        "bursts": [{"start": iso(b.start), "end": iso(b.end), "pod_ids": list(b.pod_ids),
                    "accounts": list(b.accounts)} for b in wave.bursts],
        "signature": signature_of(wave).to_json(),
        "unrelated": [loss_to_json(x) for x in wave.unrelated],
        "verdict": verdict_of(wave).to_json(),
        "diagnosis": [{"kind": f.kind, "statement": f.statement, "evidence": list(f.evidence)} for f in diagnosis_of(wave)],
    }


def waves_to_json(waves: Iterable[Wave], withdrawn: Iterable[Loss] = (), forming: Iterable = ()) -> dict[str, Any]:
    """`waves`, the `forming` clusters (correlated losses not yet a wave, core/triage/forming.py) and
    the losses `withdrawn` (disproved: in no wave), each with why."""
    return {"waves": [wave_to_json(w) for w in waves], "forming": [c.to_json() for c in forming],
            "withdrawn": [withdrawn_to_json(x) for x in sorted(withdrawn, key=lambda x: (x.lost_at, x.pod_id))]}


def withdrawn_to_json(loss: Loss) -> dict[str, Any]:
    return {"pod_id": loss.pod_id, "account": loss.account, "experiment": loss.experiment,
            "lost_at": iso(loss.lost_at), "withdrawn_at": iso(loss.withdrawn_at) if loss.withdrawn_at else None,
            "reason": loss.withdrawn_reason or "withdrawn", "suspected": loss.reason}
