"""The audit log of the owner's actions (`actions`: stops, holds and their origin, approvals): written
before and after each action, read by the audit screen and by the rule that an owner's stop is no loss."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagan_tui.wire.basics import parse_ts, ts
from sagan_tui.core.models import Action

if TYPE_CHECKING:
    from sagan_tui.core.store.holder import Holder


class ActionRows:
    """Every statement on the audit log; each write is its own transaction."""

    def __init__(self, db: "Holder"):
        self._db = db

    def audit(self, action: Action) -> int:
        with self._db.transaction() as conn:
            cur = conn.execute(
                "insert into actions (at, action, target, account, result, error, detail, origin)"
                " values (?,?,?,?,?,?,?,?)", (ts(action.at), action.action, action.target, action.account,
                                              action.result, action.error, action.detail, action.origin))
            return int(cur.lastrowid)

    def finish(self, action_id: int, result: str, error: str | None = None) -> None:
        with self._db.transaction() as conn:
            conn.execute("update actions set result = ?, error = ? where id = ?", (result, error, action_id))

    def read(self, limit: int = 200) -> list[Action]:
        rows = self._db.rows("select * from actions order by id desc limit ?", (limit,))
        return [Action.model_validate({**r, "at": parse_ts(r["at"])}) for r in rows]

    def owner_stops(self) -> set[str]:
        """Pod ids the owner asked to stop or terminate from this panel (never losses).

        A stop that failed or was refused (read-only, or its target had already vanished) was
        never sent to RunPod: its pod's disappearance is still a loss.
        """
        rows = self._db.rows("select target from actions where action in ('stop', 'terminate')"
                             " and result not in ('error', 'refused', 'cancelled')")
        return {r["target"] for r in rows}
