"""watch's alerts and its page targets' health in the cache (`page_alerts`, `page_health`): read and written here."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Iterable

from sagan_tui.wire.basics import parse_ts, ts

if TYPE_CHECKING:
    from sagan_tui.core.store.holder import Holder


class PageRows:
    """Every statement on watch's alerts and page targets; each write is its own transaction."""

    def __init__(self, db: "Holder"):
        self._db = db

    def load_alerts(self) -> dict[str, str]:
        """alert key -> its state as JSON (core/pages/alerts.py's Alert.to_json)."""
        return {r["key"]: r["data"] for r in self._db.rows("select key, data from page_alerts")}

    def save_alerts(self, rows: Iterable[tuple[str, str, str, str]], at: datetime) -> None:
        """(key, kind, state, data JSON) each, written in one transaction."""
        rows = list(rows)
        if not rows:
            return
        with self._db.transaction() as conn:
            conn.executemany("insert or replace into page_alerts (key, kind, state, data, updated_at)"
                             " values (?,?,?,?,?)", [(*r, ts(at)) for r in rows])

    def record_health(self, target: str, error: str | None, at: datetime) -> None:
        """A page target's last outcome: `target` is what may be shown of it (scheme and host), never the URL."""
        with self._db.transaction() as conn:
            conn.execute("insert into page_health (target, state, error, at) values (?,?,?,?) on conflict(target) do "
                         "update set state = excluded.state, error = excluded.error, at = excluded.at",
                         (target, "error" if error else "ok", error, ts(at)))

    def health(self) -> dict[str, tuple[str, str | None, datetime | None]]:
        """target -> (state, error, when): what a panel shows as "paging failed: ntfy 403"."""
        return {r["target"]: (r["state"], r["error"], parse_ts(r["at"]))
                for r in self._db.rows("select * from page_health")}
