"""How the cache's columns read back: its timestamps, and a source's recorded health.

Apart from cache.py so the first frame can read them without sqlite-utils (ui/first_paint.py).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Mapping

from sagan_tui.basics import ErrorKind, HealthState, SourceHealth, as_utc

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


def health_from_row(r: Mapping[str, Any]) -> SourceHealth:
    """A `sync_state` row as SourceHealth; ValueError for a value it cannot hold."""
    return SourceHealth(
        source=r["source"], state=HealthState(r["state"] or "unknown"),
        error_kind=ErrorKind(r["error_kind"]) if r["error_kind"] else None, message=r["message"],
        last_success=parse_ts(r["last_success"]), last_attempt=parse_ts(r["last_attempt"]),
        consecutive_failures=r["consecutive_failures"] or 0, next_attempt=parse_ts(r["next_attempt"]),
        transport=r["transport"], balance=r["balance"], spend_per_hr=r["spend_per_hr"],
        spend_limit=r["spend_limit"],
        under_balance=None if r["under_balance"] is None else bool(r["under_balance"]),
        unreadable=_column(r, "unreadable") or 0, unreadable_since=parse_ts(_column(r, "unreadable_since")),
        billing_mode=_column(r, "billing_mode"))


def _column(r: Mapping[str, Any], name: str) -> Any:
    """A column a file of an older schema may lack (a read-only open migrates nothing)."""
    return r[name] if name in r.keys() else None
