"""The cache on its own: migrations, move-aside of bad files, concurrent writers, retention."""

import json
import sqlite3
import subprocess
import sys
import textwrap
from datetime import datetime, timedelta, timezone

from sagan_tui.core.models import Action, Experiment, Loss, WorkflowEvent
from sagan_tui.core.store import schema
from sagan_tui.core.store.cache import Cache

T0 = datetime(2026, 5, 14, 10, 53, 54, tzinfo=timezone.utc)


def test_fresh_cache_is_wal_and_versioned(tmp_path):
    c = Cache(tmp_path / "c.sqlite")
    assert c.db.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert schema.current_version(c.db) == schema.SCHEMA_VERSION
    assert c.notices == []


def test_corrupt_file_moved_aside_and_rebuilt(tmp_path):
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"this is not sqlite at all" * 200)
    c = Cache(path)
    assert c.counts()["experiments"] == 0
    assert len(c.notices) == 1 and "moved aside" in c.notices[0]
    aside = [p for p in tmp_path.iterdir() if ".bad-" in p.name]
    assert aside and aside[0].read_bytes().startswith(b"this is not sqlite")


def test_foreign_sqlite_database_is_not_touched(tmp_path):
    path = tmp_path / "c.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("create table precious (x)")
    conn.execute("insert into precious values (42)")
    conn.commit()
    conn.close()
    c = Cache(path)
    assert "foreign" in c.notices[0]
    aside = next(p for p in tmp_path.iterdir() if ".bad-" in p.name and not p.name.endswith(("-wal", "-shm")))
    assert sqlite3.connect(aside).execute("select x from precious").fetchone() == (42,)


def test_older_schema_migrates(tmp_path):
    path = tmp_path / "c.sqlite"
    c = Cache(path)
    c.db.execute("update meta set value = '0' where key = 'schema_version'")
    c.close()
    c2 = Cache(path)
    assert schema.current_version(c2.db) == schema.SCHEMA_VERSION
    assert any("migrated" in n for n in c2.notices)


def test_upserts_and_list_keeps_view_fields(tmp_path):
    c = Cache(tmp_path / "c.sqlite")
    with c.transaction() as conn:
        c.upsert_experiments(conn, [Experiment(id="a", number=192, title="t", status="running", plan_md="# plan")])
    with c.transaction() as conn:  # a list reply (no planMd) must not erase the plan a view fetched
        c.upsert_experiments(conn, [Experiment(id="a", number=192, title="t2", status="blocked")])
    e = c.experiment(192)
    assert e.title == "t2" and e.status == "blocked" and e.plan_md == "# plan"


def test_events_dedup_and_order(tmp_path):
    c = Cache(tmp_path / "c.sqlite")
    evs = [WorkflowEvent(id=f"e{i}", event_type="note", created_at=T0 + timedelta(seconds=i), experiment_number=1)
           for i in range(5)]
    with c.transaction() as conn:
        assert c.upsert_events(conn, evs) == 5
        assert c.upsert_events(conn, evs[2:]) == 0
    assert [e.id for e in c.events()] == ["e4", "e3", "e2", "e1", "e0"]


def test_losses_round_trip_and_dismiss(tmp_path):
    c = Cache(tmp_path / "c.sqlite")
    loss = Loss(pod_id="v0c7bx292xqvg4", account="team", experiment=192, running_at=T0,
                lost_at=T0 + timedelta(seconds=61), cost_per_hr=1.49)
    with c.transaction() as conn:
        c.upsert_losses(conn, [loss])
    got = c.losses()
    assert got == [loss]
    c.dismiss_loss(loss.pod_id)
    assert c.losses(include_dismissed=False) == []
    assert c.losses()[0].dismissed


def test_audit_log(tmp_path):
    c = Cache(tmp_path / "c.sqlite")
    i = c.audit(Action(action="stop", target="v0c7bx292xqvg4", account="team"))
    c.finish_action(i, "error", "409 conflict")
    a = c.actions()[0]
    assert (a.action, a.target, a.result, a.error) == ("stop", "v0c7bx292xqvg4", "error", "409 conflict")
    assert c.owner_stops() == set()  # a failed stop is not a stop


def test_prune_bounds_events(tmp_path):
    c = Cache(tmp_path / "c.sqlite")
    now = T0 + timedelta(days=40)
    evs = [WorkflowEvent(id=f"e{i}", event_type="note", created_at=T0 + timedelta(days=i)) for i in range(40)]
    with c.transaction() as conn:
        c.upsert_events(conn, evs)
    pruned = c.prune(now, events_days=30, observations_days=14)
    assert pruned["events"] == 10
    assert c.counts()["events"] == 30


WRITER = textwrap.dedent("""
    import sys
    from datetime import datetime, timezone, timedelta
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.models import WorkflowEvent, Action
    c = Cache(sys.argv[1]); tag = sys.argv[2]; n = int(sys.argv[3])
    t0 = datetime(2026, 5, 14, tzinfo=timezone.utc)
    for i in range(n):
        with c.transaction() as conn:
            c.upsert_events(conn, [WorkflowEvent(id=f"{tag}-{i}-{j}", event_type="note",
                                                 created_at=t0 + timedelta(seconds=i)) for j in range(20)])
        c.audit(Action(action="note", target=f"{tag}-{i}"))
        c.events(limit=50)
    print("done", tag)
""")


def test_three_writers_one_file_no_lock_errors(tmp_path):
    path = str(tmp_path / "c.sqlite")
    Cache(path).close()
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, path, tag, "150"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for tag in ("a", "b", "c")]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
        assert "locked" not in err
    c = Cache(path)
    assert c.counts()["events"] == 3 * 150 * 20
    assert c.counts()["actions"] == 3 * 150


def _older_cache(path, version: int):
    """A cache file as sagan-tui at schema `version` left it (its migrations only), still open."""
    import sqlite_utils

    db = sqlite_utils.Database(path)
    db["meta"].create({"key": str, "value": str}, pk="key")
    db["meta"].insert_all([{"key": "app", "value": schema.APP_ID}, {"key": "schema_version", "value": str(version)}])
    for migration in schema.MIGRATIONS[:version]:
        migration(db)
    return db


def test_a_v1_cache_migrates_forward_keeping_its_pods_and_losses(tmp_path):
    """v2 adds each pod's machine, when it was last seen RUNNING, and the balance history."""
    path = tmp_path / "v1.sqlite"
    db = _older_cache(path, 1)
    db["pods"].insert({"pod_id": "oldpod000001", "account": "team", "desired_status": "RUNNING",
                       "last_seen_at": "2026-05-14T10:50:00.000000Z", "data": "{}"})
    db["losses"].insert({"pod_id": "oldlost00001", "account": "team", "lost_at": "2026-05-14T10:54:54.000000Z",
                         "source": "runpod-poll", "dismissed": 0})
    db.conn.close()
    c = Cache(path)
    assert schema.current_version(c.db) == schema.SCHEMA_VERSION
    assert f"cache migrated from schema v1 to v{schema.SCHEMA_VERSION}" in c.notices
    [s] = c.sightings()
    assert s.pod_id == "oldpod000001" and s.host is None and s.running_seen_at == s.last_seen_at
    assert [x.pod_id for x in c.losses()] == ["oldlost00001"] and c.balance_history() == {}
    c.close()


def test_a_v2_cache_migrates_to_v3_and_reads_each_pods_last_sighting_as_it_was(tmp_path):
    """v3 adds each account's last complete poll, through which a live pod's sighting is read."""
    path = tmp_path / "v2.sqlite"
    db = _older_cache(path, 2)
    seen = "2026-05-14T10:50:00.000000Z"
    db["pods"].insert_all([
        {"pod_id": "livepod00001", "account": "team", "desired_status": "RUNNING", "last_seen_at": seen,
         "running_seen_at": seen, "uptime_s": 600, "data": json.dumps({"id": "livepod00001", "uptimeSeconds": 600})},
        {"pod_id": "gonepod00002", "account": "team", "desired_status": "RUNNING", "last_seen_at": seen,
         "running_seen_at": seen, "gone_at": "2026-05-14T10:51:00.000000Z", "data": json.dumps({"id": "gonepod00002"})}])
    db.conn.close()
    c = Cache(path)
    assert schema.current_version(c.db) == schema.SCHEMA_VERSION
    assert f"cache migrated from schema v2 to v{schema.SCHEMA_VERSION}" in c.notices
    by_id = {s.pod_id: s for s in c.sightings()}
    before = T0.replace(minute=50, second=0)
    assert {s.last_seen_at for s in by_id.values()} == {s.running_seen_at for s in by_id.values()} == {before}
    # The account's next complete poll lists every live pod: the live one reads seen then, uptime grown.
    with c.transaction() as conn:
        c.pod_rows.account_seen(conn, "team", T0)
    live, gone = c.pods(pod_ids=["livepod00001"])[0], {s.pod_id: s for s in c.sightings()}["gonepod00002"]
    assert live.last_seen_at == T0 and live.pod.uptime_seconds == 600 + 234
    assert gone.last_seen_at == gone.running_seen_at == before
    c.close()


def test_a_pod_row_whose_record_cannot_be_read_is_skipped_and_the_next_write_replaces_it(tmp_path):
    """A record this version cannot read as a pod (another tool's, another shape): the panel's
    read and a poll's read of the live pods go on without it (either raising stopped every poll
    of the account), and a write repairs it. (Text that is not JSON at all still stops the
    `pods_seen` view's json_set for a pod its account's last poll listed: not handled yet.)"""
    from sagan_tui.core.models import RunPodPod
    from sagan_tui.core.store.pod_rows import CachedPod

    def pod(pid: str, name: str) -> CachedPod:
        return CachedPod(RunPodPod(id=pid, account="team", name=name, desired_status="RUNNING"),
                         first_seen_at=T0, running_at=T0, last_seen_at=T0, gone_at=None, gone_reason=None)

    c = Cache(tmp_path / "c.sqlite")
    with c.transaction() as conn:
        c.upsert_pods(conn, [pod("aaaaaaaaaaaaaa", "a"), pod("bbbbbbbbbbbbbb", "b")])
    for damage in ('{"id": 5}', '["a", "pod"]'):
        with c.transaction() as conn:
            conn.execute("update pods set data = ? where pod_id = 'bbbbbbbbbbbbbb'", (damage,))
        assert [p.pod_id for p in c.pods()] == ["aaaaaaaaaaaaaa"]
        with c.transaction() as conn:
            assert list(c.pod_rows.live(conn, "team")) == ["aaaaaaaaaaaaaa"]
            c.upsert_pods(conn, [pod("bbbbbbbbbbbbbb", "b again")])
        assert [(p.pod_id, p.pod.name) for p in c.pods()] == [("aaaaaaaaaaaaaa", "a"), ("bbbbbbbbbbbbbb", "b again")]
    c.close()
