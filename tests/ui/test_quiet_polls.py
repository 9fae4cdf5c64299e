"""Quiet polls send nothing; a poll changing one pod, or a minute passing, redraws only those rows."""

from __future__ import annotations

from datetime import timedelta

from sagan_tui.core.models import Experiment
from sagan_tui.sim.actions import stop_pod
from sagan_tui.core.store.cache import Cache
from sagan_tui.wire import render
from sagan_tui.core.session.model import PanelModel
from sagan_tui.panel.messages import Updated
from sagan_tui.panel.widgets.status_bar import StatusBar

from tests.harness import SIZE, poll_now, polled
from .frozen import LIVE, LOST, NOW, fill, settings

SCRATCH = ("aaaaaaaaaaaa01", "aaaaaaaaaaaa02")


def quiet_fleet() -> dict:
    """Pods running for two hours, none changing by itself; two of them unknown to Sagan."""
    exps = [{"number": 300 + i, "title": f"Quiet study {i}", "status": "running",
             "runpodAccount": "team" if i % 2 else "personal"} for i in range(4)]
    pods = [{"id": f"q{i:07d}fleet", "account": exps[i % 4]["runpodAccount"], "experiment": 300 + i % 4,
             "name": f"exp{300 + i % 4}-fleet", "created_at": -7200, "running_at": -7150} for i in range(24)]
    pods += [{"id": pid, "account": "personal", "tracked": False, "name": "scratch", "created_at": -7200,
              "running_at": -7150} for pid in SCRATCH]
    return {"name": "quiet-fleet", "experiments": exps, "pods": pods}


def rendered_pods(monkeypatch) -> list[str]:
    """The pod ids the panel renders a row for, from now on."""
    rendered: list[str] = []
    pod_row = render.pod_row

    def spy(cp, loss, *args, **kwargs):
        rendered.append(cp.pod_id if cp else loss.pod_id)
        return pod_row(cp, loss, *args, **kwargs)

    monkeypatch.setattr(render, "pod_row", spy)
    return rendered


def count_calls(obj, name: str) -> list:
    """Record each call of `obj.name` (still calling through)."""
    calls: list = []
    original = getattr(obj, name)

    def spy(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    setattr(obj, name, spy)
    return calls


async def test_polls_that_change_nothing_leave_the_status_line_alone(sim_factory, panel):
    sim = sim_factory(fixture=quiet_fleet())
    app = panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await polled(pilot, app)
        await poll_now(pilot, app)  # the first poll's health settles ("…" to "✓")
        bar = app.query_one(StatusBar)
        for _attempt in range(2):  # the line's clock may turn a minute meanwhile: that is an update
            minute, before = app.clock().strftime("%H:%M"), bar.plain
            updates = count_calls(bar, "update")
            for _ in range(3):
                await poll_now(pilot, app)
            app.status_line.tick()  # the 5 s tick between polls
            if app.clock().strftime("%H:%M") == minute:
                break
        # Neither the start nor the end of an ordinary poll rewrites the line.
        assert updates == [] and bar.plain == before
        assert "poll 60s" in before and "polling" not in before


async def test_a_poll_that_changes_one_pod_redraws_that_row_only(sim_factory, panel, monkeypatch):
    sim = sim_factory(fixture=quiet_fleet())
    app = panel(sim)
    finished: list[Updated] = []

    def hook(message):
        if isinstance(message, Updated) and message.update.polls is not None:
            finished.append(message)

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await polled(pilot, app)
        await poll_now(pilot, app)
        table = app.pods_table
        table.select_key(SCRATCH[0])  # in view, wherever the cursor had scrolled the pane to
        await pilot.pause()
        y = table.get_row_index(SCRATCH[0]) + table.header_height - table.scroll_offset.y
        assert table.header_height <= y < table.size.height
        with sim.state.lock:
            stop_pod(sim.state, "personal", SCRATCH[0], sim.clock.now_t())
        rendered = rendered_pods(monkeypatch)
        rows_redrawn = count_calls(table, "refresh_row")
        whole = count_calls(table, "set_rows")
        mark = len(finished)
        await poll_now(pilot, app)
        # The one row the panel holds already goes as a patch (wire/channel/rows.py).
        assert {k for m in finished[mark:] for k in (*m.update.pods, *m.update.pod_patches)} == {SCRATCH[0]}
        # Only that pod was rendered again, and only its line of the table was asked to repaint.
        assert rendered == [SCRATCH[0]]
        assert whole == []
        assert {r for (r,) in rows_redrawn} == {table.get_row_index(SCRATCH[0])}
        status = table.get_cell(SCRATCH[0], "status").cell.text
        assert status == "EXITED"


def test_the_tick_finds_the_rows_time_changed_and_renders_only_those(tmp_path, monkeypatch):
    s = settings(tmp_path, poll_interval=60.0)
    cache = Cache(s.cache_path)
    fill(cache)
    clock = [NOW]
    model = PanelModel(s, cache, clock=lambda: clock[0])
    model.load()
    shown = model.pod_rows()
    rendered = rendered_pods(monkeypatch)

    clock[0] = NOW + timedelta(seconds=5)  # no age crosses a minute: nothing is even rendered
    assert model.due_pod_rows() == ({}, []) and rendered == []

    clock[0] = NOW + timedelta(seconds=61)
    due, hidden = model.due_pod_rows()
    live = {pod for pod, *_ in LIVE}
    lost = {pod for pod, account, *_ in LOST if account == "personal"}
    # Both live pods' uptimes crossed a minute; team's last success is now a minute old, so its
    # rows' "seen" moved on; personal's lost rows (their times are fixed) were not touched.
    assert live <= set(due) and not lost & set(rendered) and hidden == []
    assert due["j18eiux6ccekyj"].cells[4].text == "49m" and shown["j18eiux6ccekyj"].cells[4].text == "48m"
    rendered.clear()
    assert model.due_pod_rows() == ({}, []) and rendered == []  # each row is due once per change
    cache.close()


def drawn(rows):
    return {k: ([(c.text, c.style) for c in r.cells], r.group, r.order) for k, r in rows.items()}


def test_the_tick_renders_only_the_experiments_whose_age_moved(tmp_path):
    s = settings(tmp_path, poll_interval=60.0)
    cache = Cache(s.cache_path)
    fill(cache)  # its experiments are whole hours old
    with cache.transaction() as conn:  # and this one half an hour: its age reads in minutes
        cache.upsert_experiments(conn, [Experiment(id="e-999", number=999, title="young", status="running",
                                                   created_at=NOW - timedelta(minutes=30))])
    clock = [NOW]
    model = PanelModel(s, cache, clock=lambda: clock[0])
    model.load()
    shown = model.experiment_rows()
    sizes = []
    for later in (5, 61, 3600, 2 * 86400, 2 * 86400 + 30):
        clock[0] = NOW + timedelta(seconds=later)
        due = model.due_experiment_rows()
        sizes.append(len(due))
        shown.update(due)
        # What the tick drew reads exactly as every row rendered again (an age's sort value moves
        # each second, and every age by the same amount: the order it sorts in does not).
        assert drawn(shown) == drawn(model.experiment_rows()), later
    assert sizes[0] == 0 and sizes[-1] == 0  # no age reads differently a few seconds on
    assert any(0 < n < len(shown) for n in sizes) and max(sizes) == len(shown), sizes
    cache.close()
