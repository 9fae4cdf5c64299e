"""Each source's health and feed cursor (`sync_state`) and each account's balance history
(`balance_history`) in the cache."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING

from sagan_tui.wire.basics import health_from_row, parse_ts, ts
from sagan_tui.core.models import SourceHealth

if TYPE_CHECKING:
    from sagan_tui.core.store.holder import Holder

# A failed poll keeps the last known balance and the last success: both are still facts.
_KEPT_ON_FAILURE = ("last_success", "balance", "spend_per_hr", "spend_limit", "under_balance", "billing_mode")


class HealthRows:
    """Every statement on the sources' health and the balances. A method given `conn` runs in that
    write transaction (a poll's health is written with what it read); the others read committed rows."""

    def __init__(self, db: "Holder"):
        self._db = db

    def set(self, conn: sqlite3.Connection, h: SourceHealth, cursor: str | None = None) -> None:
        row = {"source": h.source, "state": h.state.value, "error_kind": h.error_kind.value if h.error_kind else None,
               "message": h.message, "last_success": ts(h.last_success), "last_attempt": ts(h.last_attempt),
               "consecutive_failures": h.consecutive_failures, "next_attempt": ts(h.next_attempt),
               "transport": h.transport, "balance": h.balance, "spend_per_hr": h.spend_per_hr,
               "spend_limit": h.spend_limit,
               "under_balance": None if h.under_balance is None else int(h.under_balance),
               "unreadable": h.unreadable, "unreadable_since": ts(h.unreadable_since),
               "duplicates": h.duplicates, "duplicates_since": ts(h.duplicates_since), "phantoms": h.phantoms,
               "billing_mode": h.billing_mode}
        cols = list(row)
        sets = ", ".join(f"{c}=excluded.{c}" for c in cols if c != "source")
        for keep in _KEPT_ON_FAILURE:
            sets = sets.replace(f"{keep}=excluded.{keep}", f"{keep}=coalesce(excluded.{keep}, sync_state.{keep})")
        if cursor is not None:
            row["cursor"] = cursor
            cols.append("cursor")
            sets += ", cursor=excluded.cursor"
        conn.execute(f"insert into sync_state ({', '.join(cols)}) values ({', '.join('?' * len(cols))})"
                     f" on conflict(source) do update set {sets}", list(row.values()))

    def record_balance(self, conn: sqlite3.Connection, account: str, at: datetime, balance: float | None,
                       under_balance: bool | None, spend_per_hr: float | None = None,
                       spend_limit: float | None = None, billing_mode: str | None = None) -> bool:
        """A balance_history row when the account's balance or under-balance flag moved since its
        last row (a poll that read neither adds nothing); whether one was added."""
        if balance is None and under_balance is None:
            return False
        under = None if under_balance is None else int(under_balance)
        last = conn.execute("select balance, under_balance from balance_history where account = ?"
                            " order by at desc, id desc limit 1", (account,)).fetchone()
        if last is not None and tuple(last) == (balance, under):
            return False
        conn.execute("insert into balance_history (account, at, balance, under_balance, spend_per_hr, spend_limit,"
                     " billing_mode) values (?,?,?,?,?,?,?)",
                     (account, ts(at), balance, under, spend_per_hr, spend_limit, billing_mode))
        return True

    def balance_history(self) -> dict[str, list[tuple]]:
        """Per account, (at, balance, under_balance, spend_per_hr, spend_limit) rows, oldest first."""
        out: dict[str, list[tuple]] = {}
        for account, at, bal, under, spend, limit in self._db.tuples(
                "select account, at, balance, under_balance, spend_per_hr, spend_limit from balance_history"
                " order by account, at, id"):
            out.setdefault(account, []).append((parse_ts(at), bal, None if under is None else bool(under),
                                                spend, limit))
        return out

    def cursor(self, source: str) -> str | None:
        rows = self._db.rows("select cursor from sync_state where source = ?", (source,))
        return rows[0]["cursor"] if rows else None

    def read(self) -> dict[str, SourceHealth]:
        return {r["source"]: health_from_row(r) for r in self._db.rows("select * from sync_state")}
