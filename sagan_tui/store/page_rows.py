"""watch's alerts and its page targets' health in the cache (`page_alerts`, `page_health`): read and written here."""

from __future__ import annotations

from datetime import datetime
from typing import Iterable

from sagan_tui.basics import parse_ts, ts
from sagan_tui.store.cache import Cache


def load_alerts(cache: Cache) -> dict[str, str]:
    """alert key -> its state as JSON (pages/alerts.py's Alert.to_json)."""
    return {r["key"]: r["data"] for r in cache._rows("select key, data from page_alerts", ())}


def save_alerts(cache: Cache, rows: Iterable[tuple[str, str, str, str]], at: datetime) -> None:
    """(key, kind, state, data JSON) each, written in one transaction."""
    rows = list(rows)
    if not rows:
        return
    with cache.transaction() as conn:
        conn.executemany("insert or replace into page_alerts (key, kind, state, data, updated_at) values (?,?,?,?,?)",
                         [(*r, ts(at)) for r in rows])


def record_page_health(cache: Cache, target: str, error: str | None, at: datetime) -> None:
    """A page target's last outcome: `target` is what may be shown of it (scheme and host), never the URL."""
    with cache.transaction() as conn:
        conn.execute("insert into page_health (target, state, error, at) values (?,?,?,?) on conflict(target) do "
                     "update set state = excluded.state, error = excluded.error, at = excluded.at",
                     (target, "error" if error else "ok", error, ts(at)))


def page_health(cache: Cache) -> dict[str, tuple[str, str | None, datetime | None]]:
    """target -> (state, error, when): what a panel shows as "paging failed: ntfy 403"."""
    return {r["target"]: (r["state"], r["error"], parse_ts(r["at"]))
            for r in cache._rows("select * from page_health", ())}


def loss_stamp(cache: Cache) -> tuple:
    """What changes whenever a loss is added, confirmed, withdrawn or dismissed: watch triages again
    only then (or after a while), since weighing a wave's verdict against every sighting is costly."""
    return tuple(cache._tuples("select count(*), max(lost_at), sum(coalesce(state, 'confirmed') = 'confirmed'), "
                               "sum(state = 'withdrawn'), sum(dismissed), max(withdrawn_at) from losses", ())[0])
