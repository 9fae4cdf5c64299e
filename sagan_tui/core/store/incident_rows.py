"""The owner's wave acknowledgements in the cache (schema v6 `wave_acks`): read and written here."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from sagan_tui.wire.basics import parse_ts, ts

if TYPE_CHECKING:
    from sagan_tui.core.store.holder import Holder


class IncidentRows:
    """Every statement on the wave acknowledgements."""

    def __init__(self, db: "Holder"):
        self._db = db

    def wave_acks(self) -> dict[str, tuple]:
        """wave key -> (acked_at, pods, accounts tuple, cause, confidence)."""
        return {r["wave_key"]: (parse_ts(r["acked_at"]), r["pods"],
                                tuple(filter(None, (r["accounts"] or "").split(","))), r["cause"], r["confidence"])
                for r in self._db.rows("select * from wave_acks")}

    def ack_wave(self, key: str, at: datetime, pods: int, accounts: tuple[str, ...], cause: str,
                 confidence: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("insert or replace into wave_acks (wave_key, acked_at, pods, accounts, cause, confidence) "
                         "values (?,?,?,?,?,?)", (key, ts(at), pods, ",".join(accounts), cause, confidence))

    def last_acknowledged(self) -> datetime | None:
        """When the owner last acknowledged a wave (None when never): the night's incident starts there."""
        rows = self._db.rows("select max(acked_at) as at from wave_acks")
        return parse_ts(rows[0]["at"]) if rows and rows[0]["at"] else None
