"""What Sagan's poll hands the session of the experiments it wrote (ChangeSet.experiments_written)
is what a read of the cache gives: the reply's record merged over the row's by RFC 7396 (what
SQLite's json_patch did in the upsert before), a view's fetched plan kept, one listed twice
merged over its first writing, a row no JSON object can be read from replaced."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from sagan_tui.core.models import ApprovalRequest, Experiment, PodLifecycle, WorkflowEvent
from sagan_tui.core.store.cache import Cache
from sagan_tui.core.store.sagan_rows import experiment_of, merge_patch

T0 = datetime(2026, 5, 14, 10, 53, 54, tzinfo=timezone.utc)


@pytest.fixture
def cache(tmp_path):
    c = Cache(tmp_path / "c.sqlite")
    yield c
    c.close()


def write(cache: Cache, *items: Experiment) -> dict[int, dict]:
    with cache.transaction() as conn:
        return cache.sagan_rows.upsert_experiments(conn, items)


def test_each_record_handed_over_is_the_one_a_read_gives(cache):
    viewed = Experiment(id="a", number=192, title="t", status="running", plan_md="# plan", body="why",
                        plan_json={"steps": [1, 2], "gpu": {"kind": "A100", "count": 2}})
    stored = write(cache, viewed)
    assert experiment_of(stored[192]) == cache.experiment(192) == viewed
    # A list reply: no plan or body, the plan's object partly restated.
    listed = Experiment(id="a", number=192, title="t2", status="blocked", plan_json={"gpu": {"count": 4}})
    stored = write(cache, listed, Experiment(id="b", number=193, title="new"))
    read = cache.experiment(192)
    assert experiment_of(stored[192]) == read and experiment_of(stored[193]) == cache.experiment(193)
    assert (read.plan_md, read.body, read.title, read.status) == ("# plan", "why", "t2", "blocked")
    assert read.plan_json == {"steps": [1, 2], "gpu": {"kind": "A100", "count": 4}}


def test_one_listed_twice_is_merged_over_its_first_writing(cache):
    stored = write(cache, Experiment(id="a", number=7, title="one", plan_md="p"),
                   Experiment(id="a", number=7, title="two"))
    assert experiment_of(stored[7]) == cache.experiment(7)
    assert (cache.experiment(7).title, cache.experiment(7).plan_md) == ("two", "p")


def test_a_row_no_json_object_can_be_read_from_is_replaced(cache):
    with cache.transaction() as conn:
        conn.execute("insert into experiments (number, id, title, status, data) values (8, 'x', 'x', 'x', 'not json')")
    stored = write(cache, Experiment(id="x", number=8, title="fresh"))
    assert experiment_of(stored[8]) == cache.experiment(8) and cache.experiment(8).title == "fresh"


@pytest.mark.parametrize("target, patch", [
    ({"a": 1, "b": {"c": 2, "d": 3}}, {"b": {"c": None, "e": [1]}, "f": "x"}),
    ({"a": [1, 2]}, {"a": {"b": 1}}),
    ({"a": {"b": 1}}, {"a": [3]}),
    ({}, {"a": {"b": None}}),
    ({"a": 1}, {"a": None}),
    ({"a": {"b": {"c": {"d": 1}}}}, {"a": {"b": {"c": {"e": 2}}}}),
])
def test_merge_patch_is_sqlites_json_patch(target, patch):
    """The merge written in Python is the one SQLite's json_patch made of the same two records."""
    with sqlite3.connect(":memory:") as db:
        [(sqlite,)] = db.execute("select json_patch(?, ?)", (json.dumps(target), json.dumps(patch))).fetchall()
    assert merge_patch(target, patch) == json.loads(sqlite)


def test_the_session_takes_a_handed_experiment_unless_it_read_it_since(cache, tmp_path):
    """The model takes the record handed over, not a read of the row (here the two differ on
    purpose); a record older than the model's own read of it (another write came between) is not
    taken over that read."""
    from datetime import datetime, timezone

    from sagan_tui.core.config_model import load_settings
    from sagan_tui.core.session.model import PanelModel
    from sagan_tui.core.sync.changes import SourceResult, StoredExperiment

    settings, _ = load_settings({"SAGAN_TUI_CONFIG": str(tmp_path / "none.toml")}, sagan_tui_cache=str(cache.path))
    now = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
    stored = write(cache, Experiment(id="a", number=5, title="as written"))
    model = PanelModel(settings, cache, clock=lambda: now)
    handed = {5: StoredExperiment(cache.commits + 1, {**stored[5], "title": "as handed"})}
    model.apply(SourceResult(experiments=[5], experiments_written=handed).changes("sagan", now, 0.0, {}))
    assert model.experiments[5].title == "as handed"  # taken, not read back
    model.load()  # a read made after every write of ours so far
    old = {5: StoredExperiment(cache.commits - 1, {**stored[5], "title": "older"})}
    model.apply(SourceResult(experiments=[5], experiments_written=old).changes("sagan", now, 0.0, {}))
    assert model.experiments[5].title == "as written"


@pytest.mark.parametrize("damage", ["not json", "[1, 2]", '{"number": "eight"}'], ids=["text", "array", "no-record"])
def test_a_row_whose_record_cannot_be_read_is_skipped_by_reads_and_replaced_by_the_next_write(cache, damage):
    """Another tool's row, or a damaged file's: reads go on without it (a read that raised would
    stop every poll and the panel's model) and the next write of that experiment replaces it."""
    write(cache, Experiment(id="a", number=7, title="seven"), Experiment(id="b", number=8, title="eight"))
    with cache.transaction() as conn:
        cache.upsert_events(conn, [WorkflowEvent(id=f"e{n}", event_type="note", experiment_number=n,
                                                 created_at=T0 + timedelta(seconds=n)) for n in (7, 8)])
        cache.replace_pending_approvals(conn, [ApprovalRequest(id=f"ap{n}", experiment_number=n, title="t",
                                                               created_at=T0) for n in (7, 8)])
        cache.sagan_rows.upsert_pods(conn, [PodLifecycle(id=f"lc{n}", runpod_pod_id=f"pod{n}", account="team",
                                                         experiment_number=n, status="running") for n in (7, 8)])
    with cache.transaction() as conn:
        conn.execute("update experiments set data = ? where number = 8", (damage,))
        conn.execute("update events set data = ? where id = 'e8'", (damage,))
        conn.execute("update approvals set data = ? where id = 'ap8'", (damage,))
        conn.execute("update sagan_pods set data = ? where runpod_pod_id = 'pod8'", (damage,))
    assert cache.experiment(8) is None and cache.experiment(7).title == "seven"
    assert [e.number for e in cache.experiments()] == [7]
    assert [e.id for e in cache.events()] == ["e7"] and [a.id for a in cache.approvals()] == ["ap7"]
    assert [p.runpod_pod_id for p in cache.sagan_rows.pods()] == ["pod7"]
    stored = write(cache, Experiment(id="b", number=8, title="eight again"))
    assert experiment_of(stored[8]) == cache.experiment(8) and cache.experiment(8).title == "eight again"
