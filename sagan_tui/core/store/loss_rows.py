"""The cache's losses (`losses`), the stop evidence read for them (`loss_evidence`, schema v5; the
system log's last lines, `loss_syslog`) and the exits awaiting judgement a poll later (`pending_exits`)."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from typing import TYPE_CHECKING, Iterable

from sagan_tui.wire.basics import parse_ts, ts
from sagan_tui.core.models import Loss

if TYPE_CHECKING:
    from sagan_tui.core.sources.runpod_base import WaveEvidence
    from sagan_tui.core.store.holder import Holder

_DATES = ("running_at", "last_seen_at", "lost_at", "withdrawn_at")


class LossRows:
    """Every statement on the losses and their evidence. A method given `conn` runs in that write
    transaction (a poll's whole write is one); the others read committed rows."""

    def __init__(self, db: "Holder"):
        self._db = db

    # --- inside a poll's write ---------------------------------------------------------

    def upsert(self, conn: sqlite3.Connection, losses: Iterable[Loss]) -> None:
        """Each loss as given, state included; a suspicion never demotes a confirmed loss
        (withdrawing one is `withdraw`)."""
        conn.executemany(
            "insert into losses (pod_id, account, experiment, running_at, last_seen_at, lost_at, gpu, datacenter,"
            " cost_per_hr, source, reason, run_id, dismissed, host, state, confirmed_by)"
            " values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
            " on conflict(pod_id) do update set account=excluded.account, experiment=excluded.experiment,"
            " running_at=excluded.running_at, last_seen_at=excluded.last_seen_at, lost_at=excluded.lost_at,"
            " gpu=excluded.gpu, datacenter=excluded.datacenter, cost_per_hr=excluded.cost_per_hr,"
            " source=excluded.source, reason=excluded.reason, run_id=excluded.run_id,"
            " dismissed=max(losses.dismissed, excluded.dismissed), host=coalesce(excluded.host, losses.host),"
            " state=case when losses.state = 'confirmed' and excluded.state = 'missing' then losses.state"
            " else excluded.state end,"
            " confirmed_by=case when losses.state = 'confirmed' and excluded.state = 'missing'"
            " then losses.confirmed_by else excluded.confirmed_by end,"
            " withdrawn_at=null, withdrawn_reason=null",
            [(x.pod_id, x.account, x.experiment, ts(x.running_at), ts(x.last_seen_at), ts(x.lost_at), x.gpu,
              x.datacenter, x.cost_per_hr, x.source, x.reason, x.run_id, int(x.dismissed), x.host, x.state,
              x.confirmed_by)
             for x in losses])

    def withdraw(self, conn: sqlite3.Connection, rows: Iterable[tuple[str, str]], at: datetime) -> list[str]:
        """(pod_id, why) of losses disproved: kept as withdrawn (the audit trail), counted nowhere.
        The pods that had a loss row not yet withdrawn."""
        rows = list(rows)
        if not rows:
            return []
        ids = [r[0] for r in rows]
        had = [r[0] for r in conn.execute(
            "select pod_id from losses where state != 'withdrawn' and pod_id in (select value from json_each(?))",
            (json.dumps(ids),))]
        conn.executemany("update losses set state = 'withdrawn', withdrawn_at = ?, withdrawn_reason = ?"
                         " where pod_id = ? and state != 'withdrawn'", [(ts(at), why, pod_id) for pod_id, why in rows])
        return had

    def of_account(self, conn: sqlite3.Connection, account: str) -> list[tuple[str, str, str, str]]:
        """(pod_id, source, state, lost_at as stored) of every loss held under `account`."""
        return conn.execute("select pod_id, source, coalesce(state, 'confirmed'), lost_at from losses"
                            " where account = ?", (account,)).fetchall()

    def adopt_experiments(self, conn: sqlite3.Connection) -> None:
        """Losses of pods first seen before Sagan's row of them get its experiment now."""
        conn.execute("update losses set experiment = (select experiment_number from sagan_pods"
                     " where runpod_pod_id = losses.pod_id) where experiment is null")

    def pending_exits(self, account: str, conn: sqlite3.Connection | None = None) -> list[Loss]:
        """The exits of `account` a poll saw and left to the next one to judge (inside `conn`'s
        transaction when given, else as committed)."""
        sql, params = "select loss from pending_exits where account = ? order by pod_id", (account,)
        rows = conn.execute(sql, params).fetchall() if conn is not None else self._db.tuples(sql, params)
        return [Loss.model_validate_json(r[0]) for r in rows]

    def replace_pending_exits(self, conn: sqlite3.Connection, account: str, judged: bool,
                              fresh: Iterable[tuple[str, datetime, Loss]]) -> None:
        """The account's pending exits once judged (`judged`: those held are done) plus this poll's
        new ones, (pod_id, seen at, the loss it would be) each."""
        if judged:
            conn.execute("delete from pending_exits where account = ?", (account,))
        conn.executemany("insert or replace into pending_exits (pod_id, account, seen_at, loss) values (?,?,?,?)",
                         [(pod_id, account, ts(at), loss.model_dump_json()) for pod_id, at, loss in fresh])

    def save_evidence(self, conn: sqlite3.Connection, account: str, pod_ids: Iterable[str], ev: "WaveEvidence",
                      at: datetime) -> None:
        acted = {e.pod_id: e for e in ev.audit or ()}
        rows = []
        for pod in pod_ids:
            e = acted.get(pod)
            audit_state = "unreadable" if ev.audit is None else ("acted" if e else "none")
            billed = None if ev.billed is None else ev.billed.get(pod, 0.0)
            rows.append((pod, account, ts(at), billed, ev.billed_note, audit_state, ev.audit_note,
                         e.actor if e else None, e.action if e else None, e.at if e else None))
        conn.executemany("insert or replace into loss_evidence (pod_id, account, read_at, billed_usd, billed_note,"
                         " audit_state, audit_note, actor, action, acted_at) values (?,?,?,?,?,?,?,?,?,?)", rows)

    def save_syslog(self, conn: sqlite3.Connection, account: str, at: datetime,
                    read: Iterable[tuple[str, str, str | None, list[tuple[str, str]]]]) -> None:
        """(pod_id, state, note, [(timestamp, message), ...]) of each lost pod's system log, as read
        (core/sync/system_log.py cleans and bounds the lines first)."""
        conn.executemany("insert or replace into loss_syslog (pod_id, account, read_at, state, note, lines)"
                         " values (?,?,?,?,?,?)",
                         [(pod, account, ts(at), state, note, json.dumps(lines)) for pod, state, note, lines in read])

    # --- committed reads and the owner's writes ----------------------------------------

    def read(self, since: datetime | None = None, include_dismissed: bool = True,
             pod_ids: Iterable[str] | None = None, states: Iterable[str] | None = ("confirmed",)) -> list[Loss]:
        """Confirmed losses (what waves, verdicts and reports count) unless `states` says (None: all)."""
        sql, params = "select * from losses where 1=1", []
        if states is not None:
            sql += " and coalesce(state, 'confirmed') in (select value from json_each(?))"
            params.append(json.dumps(list(states)))
        if pod_ids is not None:
            sql += " and pod_id in (select value from json_each(?))"
            params.append(json.dumps(list(pod_ids)))
        if since is not None:
            sql += " and lost_at >= ?"
            params.append(ts(since))
        if not include_dismissed:
            sql += " and dismissed = 0"
        out = []
        for r in self._db.rows(sql + " order by lost_at", params):
            r = {k: (parse_ts(v) if k in _DATES else v) for k, v in r.items() if v is not None or k not in ("state",)}
            r["dismissed"] = bool(r["dismissed"])
            out.append(Loss.model_validate(r))
        return out

    def dismiss(self, pod_id: str) -> None:
        with self._db.transaction() as conn:
            conn.execute("update losses set dismissed = 1 where pod_id = ?", (pod_id,))

    def waiting(self) -> list[tuple[str, str, str | None]]:
        """(pod_id, account, reason) of losses Sagan reported that wait for RunPod's word (state missing)."""
        return [tuple(r) for r in self._db.tuples(
            "select pod_id, account, reason from losses where state = 'missing' and source = 'sagan' order by pod_id")]

    def stamp(self) -> tuple:
        """What changes whenever a loss is added, confirmed, withdrawn or dismissed: watch triages again
        only then (or after a while), since weighing a wave's verdict against every sighting is costly."""
        return tuple(self._db.tuples("select count(*), max(lost_at), sum(coalesce(state, 'confirmed') = 'confirmed'),"
                                     " sum(state = 'withdrawn'), sum(dismissed), max(withdrawn_at) from losses")[0])

    def evidence(self) -> dict[str, dict]:
        """pod id -> its evidence row (billed_usd, billed_note, audit_state, audit_note, actor, action)."""
        try:
            return {r["pod_id"]: dict(r) for r in self._db.rows("select * from loss_evidence")}
        except sqlite3.OperationalError:  # a file of an older schema, opened read-only: none read then
            return {}

    def evidence_read(self, pod_ids: Iterable[str]) -> set[str]:
        """Those of `pod_ids` whose evidence has been read already."""
        ids = list(pod_ids)
        if not ids:
            return set()
        return {r[0] for r in self._db.tuples("select pod_id from loss_evidence where pod_id in (%s)"
                                              % ",".join("?" * len(ids)), ids)}

    def syslog(self) -> dict[str, dict]:
        """pod id -> its system log as read at its loss: state (read | unread | gone), note, read_at,
        lines [(timestamp, message), ...]."""
        try:
            rows = self._db.rows("select pod_id, state, note, read_at, lines from loss_syslog")
        except sqlite3.OperationalError:  # a file of an older schema, opened read-only: none read then
            return {}
        out = {}
        for r in rows:
            try:
                lines = [(str(t), str(m)) for t, m in json.loads(r["lines"] or "[]")]
            except (ValueError, TypeError):  # another tool's row: its lines say nothing then
                lines = []
            out[r["pod_id"]] = {"state": r["state"], "note": r["note"], "read_at": r["read_at"], "lines": lines}
        return out

    def syslog_read(self, pod_ids: Iterable[str]) -> set[str]:
        """Those of `pod_ids` whose system log has been asked for already (read or not)."""
        ids = list(pod_ids)
        if not ids:
            return set()
        return {r[0] for r in self._db.tuples("select pod_id from loss_syslog where pod_id in"
                                              " (select value from json_each(?))", (json.dumps(ids),))}
