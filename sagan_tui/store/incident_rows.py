"""The owner's wave acknowledgements in the cache (schema v6 `wave_acks`): read and written here."""

from __future__ import annotations

from sagan_tui.basics import parse_ts, ts
from sagan_tui.store.cache import Cache


def wave_acks(cache: Cache) -> dict[str, tuple]:
    """wave key -> (acked_at, pods, accounts tuple, cause, confidence)."""
    rows = cache._rows("select * from wave_acks", ())
    return {r["wave_key"]: (parse_ts(r["acked_at"]), r["pods"], tuple(filter(None, (r["accounts"] or "").split(","))),
                            r["cause"], r["confidence"]) for r in rows}


def ack_wave(cache: Cache, key: str, at, pods: int, accounts: tuple[str, ...], cause: str, confidence: str) -> None:
    with cache.transaction() as conn:
        conn.execute("insert or replace into wave_acks (wave_key, acked_at, pods, accounts, cause, confidence) "
                     "values (?,?,?,?,?,?)", (key, ts(at), pods, ",".join(accounts), cause, confidence))


def last_acknowledged(cache: Cache):
    """When the owner last acknowledged a wave (None when never): the night's incident starts there."""
    rows = cache._rows("select max(acked_at) as at from wave_acks", ())
    return parse_ts(rows[0]["at"]) if rows and rows[0]["at"] else None
