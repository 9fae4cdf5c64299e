"""The `sagan-tui` start: the first frame from a thin read of the cache, the full load after it."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

from sagan_tui.wire import render
from sagan_tui.wire.config import gather
from sagan_tui.core.models import OWNER_TURN_STATUSES, RunPodPod
from sagan_tui.panel.peek import first_frame, peek
from sagan_tui.core.store.cache import Cache, CachedPod
from sagan_tui.panel.app import SaganApp
from sagan_tui.panel.messages import Updated
from sagan_tui.panel.panel_start import PanelStart
from sagan_tui.panel.widgets.status_bar import StatusBar

from . import frozen
from .conftest import fill_cache
from tests.harness import SIZE, polled, printed, sim_settings, wait_for

ROOT = Path(__file__).resolve().parents[2]
# Each costs 0.1-2 s to import and none is needed to draw the cached rows (pydantic and the
# record models a quarter of a second: the first frame reads plain rows and unvalidated settings).
DEFERRED = ("runpod", "httpx", "pydantic", "sagan_tui.core.models", "sagan_tui.core.config_model", "sagan_tui.core.sync.poller",
            "sagan_tui.core.session.model", "sagan_tui.core.actions.runner", "sagan_tui.panel.screens.detail", "sagan_tui.panel.palette",
            "sagan_tui.panel.widgets.loss_area",
            # the owner's dialogs and their results: the panes' screen has their keys, not their code
            "sagan_tui.panel.screens.confirm", "sagan_tui.core.actions.results",
            # the desk itself and its jobs: made at the main screen's first action
            "sagan_tui.panel.desk", "sagan_tui.panel.owner_desk",
            # (not sagan_tui.wire.keymap: every binding takes its keys from it, panel/registry.py, a millisecond)
            # triage's modules, not the package: render formats through triage.fmt (pure, no imports)
            "sagan_tui.core.triage.waves", "sagan_tui.core.triage.diagnosis", "sagan_tui.core.triage.losses")

PROBE = """
import asyncio, json, sys
sys.path.insert(0, {root!r})
from sagan_tui.wire.config import gather
from sagan_tui.panel.app import SaganApp
from sagan_tui.panel.panel_start import PanelStart
from sagan_tui.panel.resources import stylesheet

seen = {{}}

class ProbeStart(PanelStart):
    def start_session(self):
        # Runs once the first frame is out, before the session's load imports anything.
        app = self.app
        seen["rows"] = [app.experiments_table.row_count, app.pods_table.row_count]
        seen["pods"] = app.pods_table.shown_keys()
        return super().start_session()

    def paint_first(self):
        super().paint_first()
        seen["modules"] = [m for m in {deferred!r} if m in sys.modules]  # all the first frame needed
        # The panes the first frame shows as empty frames (mounted before the load starts).
        seen["pending"] = [type(w).__name__ for w in self.app.query("#timeline, #loss-area, #approvals")]
        seen["layouts_first"] = self.app.stylesheet.has_source(str(stylesheet("layouts.tcss")))

class Probe(SaganApp):
    def __init__(self, settings):
        super().__init__(settings)
        self.start = ProbeStart(self, None)  # the start's steps, watched

async def main():
    env = {{"SAGAN_TUI_CONFIG": {config!r}, "SAGAN_BASE_URL": "http://127.0.0.1:9",
           "RUNPOD_API_BASE_URL": "http://127.0.0.1:9"}}
    app = Probe(gather(env, sagan_tui_cache={cache!r}, poll_interval=60.0))  # as `sagan-tui` starts
    async with app.run_test(size=(200, 50)) as pilot:
        while not app.loaded:
            await pilot.pause(0.05)
        seen["loaded_rows"] = [app.experiments_table.row_count, app.pods_table.row_count]
        seen["panes"] = [type(w).__name__ for w in app.query("#timeline, #loss-area, #approvals")]
        seen["later"] = [m for m in {deferred!r} if m in sys.modules]
        seen["layouts_later"] = app.stylesheet.has_source(str(stylesheet("layouts.tcss")))
    print(json.dumps(seen))

asyncio.run(main())
"""


def _probe(tmp: Path, cache: Path) -> dict:
    code = PROBE.format(root=str(ROOT), deferred=DEFERRED, config=str(tmp / "no-config.toml"), cache=str(cache))
    # As `sagan-tui` starts: the session is a child process, so the load's imports never arrive
    # in this one, neither before the first frame nor after the whole panel is loaded.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_first_frame_shows_cached_rows_without_the_loads_imports(tmp_path):
    s = frozen.settings(tmp_path)
    cache = Cache(s.cache_path)
    frozen.fill(cache)
    live = sorted(p.pod_id for p in cache.pods() if p.gone_at is None)
    cache.close()
    seen = _probe(tmp_path, s.cache_path)
    assert seen["modules"] == []
    assert seen["rows"][0] == 11 and seen["rows"][1] == len(live) > 0
    assert seen["pods"] == live  # the pane's own order: live pods by account, then id
    assert seen["loaded_rows"][0] == 11 and seen["loaded_rows"][1] >= len(live)
    # The later panes' own modules arrive after the first frame (so the probe sees imports then);
    # none of the load's: the whole panel (loaded_rows above) came from the child.
    assert seen["later"] == ["sagan_tui.panel.widgets.loss_area"]
    assert seen["pending"] == ["PendingPane"] * 2  # the approvals pane, hidden, comes with the panes
    assert seen["panes"] == ["TimelineTable", "LossArea", "ApprovalsTable"]  # in their place in the grid
    # The incident's, zoom's and filter bar's rules are not parsed for the first frame, and are read after it.
    assert (seen["layouts_first"], seen["layouts_later"]) == (False, True)


def test_a_cold_start_paints_empty_panes_then_loads(tmp_path):
    seen = _probe(tmp_path, tmp_path / "first-run" / "cache.sqlite")
    assert seen["rows"] == [0, 0] and seen["loaded_rows"] == [0, 0]
    assert (tmp_path / "first-run" / "cache.sqlite").is_file()  # the load created it


async def test_cached_rows_are_on_screen_before_the_first_poll_ends(sim_factory, tmp_path):
    sim = sim_factory(scenario="calm")
    counts = await fill_cache(sim, tmp_path)
    sim.latency = 3.0  # every reply of the first poll is slow
    app = SaganApp(sim_settings(sim, tmp_path))  # no cache given: the `sagan-tui` start
    shown_at_poll_end: list[int] = []

    def hook(message):
        if isinstance(message, Updated) and message.update.polls is not None and not shown_at_poll_end:
            shown_at_poll_end.append(app.experiments_table.row_count)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        # The load's message and the first poll's "in flight" are two messages: wait for both
        # (asserting the second right after the first failed once, under two suites at once).
        await wait_for(pilot, lambda: app.loaded and app.polling, what="the load, and the first poll under way")
        assert app.polls == 0
        assert app.experiments_table.row_count == counts["experiments"] > 0
        assert app.pods_table.row_count > 0
        assert "sagan" in app.query_one(StatusBar).plain
        await polled(pilot, app)
        assert shown_at_poll_end == [counts["experiments"]]


async def test_cursor_stays_on_its_row_when_the_load_replaces_the_first_rows(tmp_path, monkeypatch):
    s = frozen.settings(tmp_path)
    cache = Cache(s.cache_path)
    frozen.fill(cache)
    cache.close()
    # The load waits until the owner has moved in the first frame: the session starts when the
    # test says, in either transport (the session process's open cannot be held from here).
    start_session = PanelStart.start_session
    held: list[SaganApp] = []
    monkeypatch.setattr(PanelStart, "start_session", lambda self: held.append(self.app))
    app = SaganApp(s, clock=lambda: frozen.NOW, poll=False)
    async with app.run_test(size=SIZE) as pilot:
        table = app.experiments_table
        await pilot.pause()
        assert not app.loaded and table.row_count == 11
        assert "loading" in str(table.border_title)
        first_status = app.query_one(StatusBar).plain  # the health the cache recorded, before any poll
        assert "sagan ✓" in first_status and "personal ✗401 since 10:50 UNDER BALANCE" in first_status, first_status
        await pilot.press("down", "down", "down")
        key = table.cursor_key
        assert held == [app]  # the first frame asked for the session, and it waited
        start_session(app.start)
        await wait_for(pilot, lambda: app.loaded, what="the load")
        assert table.cursor_key == key and table.cursor_row == 3
        assert table.row_count == 11
        assert "loading" not in str(table.border_title)
        # No poll: the load changed no health; it adds the active wave the cache holds (the first
        # frame computes no waves).
        loaded_status = app.query_one(StatusBar).plain
        assert "WAVE 5 lost" not in first_status and "WAVE 5 lost" in loaded_status, loaded_status
        assert re.sub(r" WAVE 5 lost · guard until \d\d:\d\d", "", loaded_status) == first_status


async def test_a_corrupt_cache_is_moved_aside_and_the_panel_runs(tmp_path):
    s = frozen.settings(tmp_path)
    s.cache_path.write_bytes(b"not a database at all" * 200)
    app = SaganApp(s, poll=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.loaded, what="the load")
        assert app.experiments_table.row_count == 0
        assert any(s.cache_path.name + ".bad-" in p.name for p in tmp_path.iterdir())


def test_peek_reads_only_a_cache_of_ours(tmp_path):
    missing = tmp_path / "missing.sqlite"
    assert peek(missing, {"blocked"}, {"EXITED"}, 10) is None
    assert not missing.exists()  # read-only: nothing created
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("create table meta (key text, value text)")
        db.execute("insert into meta values ('app', 'someone-else')")
    assert peek(foreign, {"blocked"}, {"EXITED"}, 10) is None
    older = tmp_path / "older.sqlite"
    with sqlite3.connect(older) as db:  # ours, but without the tables the thin read needs
        db.execute("create table meta (key text, value text)")
        db.execute("insert into meta values ('app', 'sagan-tui')")
    assert peek(older, {"blocked"}, {"EXITED"}, 10) is None
    corrupt = tmp_path / "corrupt.sqlite"
    corrupt.write_bytes(b"SQLite format 3\x00" + b"\xff" * 4000)
    assert peek(corrupt, {"blocked"}, {"EXITED"}, 10) is None


def test_peek_orders_and_counts_as_the_panes_do(tmp_path):
    s = frozen.settings(tmp_path)
    cache = Cache(s.cache_path)
    frozen.fill(cache)
    exps = cache.experiments()
    pods = cache.pods()
    cache.close()

    seen = peek(s.cache_path, OWNER_TURN_STATUSES, render.STOPPED_STATES, 5)
    assert seen is not None
    want = sorted(exps, key=lambda e: (not e.owner_turn, -e.number))[:5]
    assert [e.number for e in seen.experiments] == [e.number for e in want]
    assert seen.live_counts == {k: v for k, v in render.live_pod_counts(pods).items()}


def test_the_first_frame_draws_the_rows_the_session_draws_from_the_same_cache(tmp_path):
    """The peek's plain lines (an ExperimentView, a PodLine) render as the session's records do:
    a cluster member, a flagged exit, a missing pod, an adjusted price and a stale account alike."""
    s = frozen.settings(tmp_path)
    cache = Cache(s.cache_path)
    frozen.fill(cache)
    running = frozen.at(10, 20)
    extra = [
        CachedPod(RunPodPod(id="c1usterm3mber1", account="team", experiment=365, name="exp365-cluster",
                            cost_per_hr=2.0, adjusted_cost_per_hr=1.75, gpu="NVIDIA H100 80GB HBM3", cluster_id="ic-77"),
                  first_seen_at=running, running_at=running, last_seen_at=frozen.NOW, gone_at=None, gone_reason=None),
        CachedPod(RunPodPod(id="ex1tedp0d00001", account="team", experiment=363, desired_status="EXITED",
                            last_status_change="Exited by user: 2026-05-14", cost_per_hr=1.49),
                  first_seen_at=running, running_at=running, last_seen_at=frozen.NOW, gone_at=None, gone_reason=None),
        CachedPod(RunPodPod(id="m1ss1ngp0d0001", account="personal", experiment=361, cost_per_hr=1.49),
                  first_seen_at=running, running_at=running, last_seen_at=frozen.at(10, 49), gone_at=None,
                  gone_reason=None, missing_since=frozen.at(10, 50)),
    ]
    with cache.transaction() as conn:
        cache.upsert_pods(conn, extra)
        cache.pod_rows.flag(conn, {"ex1tedp0d00001": "exited, cause unknown"})
    exps, live, health = cache.experiments(), cache.pods(include_gone=False), cache.health()
    cache.close()
    counts = render.live_pod_counts(live)
    first = first_frame(s.cache_path, frozen.NOW, s.poll_interval, ["sagan", "team", "personal"], limit=50)
    assert first is not None and first.health == health
    assert health["personal"].stale(frozen.NOW, s.poll_interval)  # the stale rows are drawn too
    assert first.experiments == {str(e.number): render.experiment_row(e, counts.get(e.number, 0), frozen.NOW)
                                 for e in sorted(exps, key=lambda e: (not e.owner_turn, -e.number))}
    assert list(first.pods) == [p.pod_id for p in live]
    assert first.pods == {p.pod_id: render.pod_row(p, None, frozen.NOW,
                                                   stale=health[p.account].stale(frozen.NOW, s.poll_interval))
                          for p in live}
    notes = {key: row.cells[7].text for key, row in first.pods.items()}
    assert notes["c1usterm3mber1"] == "cluster ic-77" and first.pods["c1usterm3mber1"].cells[6].text == "1.75"
    assert notes["ex1tedp0d00001"] == "exited, cause unknown"
    assert notes["m1ss1ngp0d0001"].startswith("MISSING? since 10:50:00")


async def test_a_bad_setting_stops_the_panel_after_its_first_frame(tmp_path, capsys):
    """`sagan-tui` validates its settings in the load: a bad one is an exit naming it, code 2."""
    s = frozen.settings(tmp_path)
    cache = Cache(s.cache_path)
    frozen.fill(cache)
    cache.close()
    env = {"SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"), "SAGAN_TUI_REQUEST_TIMEOUT": "soon",
           "SAGAN_API_TOKEN": "tok-never-shown", "RUNPOD_API_KEY_TEAM": "rk-never-shown"}
    app = SaganApp(gather(env, sagan_tui_cache=str(s.cache_path)), clock=lambda: frozen.NOW)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.return_code is not None, what="the exit")
        assert app.experiments_table.row_count == 11  # the first frame was drawn from the cache
    message = printed(capsys)  # what is printed once the screen is gone
    # The session process refused the settings before it opened anything: the cache is as it was.
    assert app.return_code == 2 and not app.loaded and app.session.opened == 0
    assert "request_timeout" in message and "never-shown" not in message



def test_the_pre_open_line_and_the_peek_need_no_json_module(tmp_path):
    """The start's two JSON texts, the child's pre-open line and the peek's pod records, are
    msgspec's: Python's json module is an import of its own before the first frame (it is not
    Textual's). The line still reads as the child reads it (core/session/serve.py)."""
    s = frozen.settings(tmp_path)
    cache = Cache(s.cache_path)
    frozen.fill(cache)
    cache.close()
    code = ("import sys\n"
            "from sagan_tui.wire.config import gather\n"
            "from sagan_tui.wire.channel.early import pre_open_line\n"
            "from sagan_tui.panel.peek import peek\n"
            f"draft = gather({{'SAGAN_API_TOKEN': 'tok', 'SAGAN_TUI_CONFIG': {str(tmp_path / 'none.toml')!r}}},"
            f" sagan_tui_cache={str(s.cache_path)!r})\n"
            "line = pre_open_line(draft)\n"
            f"seen = peek({str(s.cache_path)!r}, ['plan_pending'], ['EXITED'], 50)\n"
            "sys.stdout.buffer.write(line)\n"
            "print(len(seen.pods), 'json' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    line, last = out.stdout.strip().splitlines()[-2:]
    assert last.split()[1] == "False" and int(last.split()[0]) > 0
    from sagan_tui.core.session.serve import pre_open_intent

    opened = pre_open_intent(line.encode())
    assert opened.values["sagan_api_token"] == "tok" and opened.values["sagan_tui_cache"] == str(s.cache_path)
