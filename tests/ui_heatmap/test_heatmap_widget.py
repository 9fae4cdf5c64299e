"""LossHeatmap and WavePanel mounted in a tiny app with the DOMAIN.md incident (r4 and r5 waves)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from datetime import timedelta

from .heatmap_demo import HeatmapDemo
from .heatmap_incident import A100, A100_SXM, H100, LOSSES, NOW, R5, at, loss, waves

from sagan_tui.core.session.incident_view import shown_of
from sagan_tui.panel import heatmap_render as R
from sagan_tui.panel.widgets.heatmap import LossHeatmap
from sagan_tui.panel.widgets.wave_panel import WavePanel

R5_TEAM = {"v0c7bx292xqvg4", "m1ayhl6nsbxw04", "lqpfpmbytlgded"}
R5_PERSONAL = {"j0xvy1q82ryo8m", "cv13x9s487tvwn"}


@asynccontextmanager
async def mounted(size=(120, 30), losses=None, messages=None):
    """The demo app running with the incident (or `losses`); yields (app, pilot, heatmap)."""
    app = HeatmapDemo(losses=losses)
    hook = messages.append if messages is not None else None
    async with app.run_test(size=size, message_hook=hook) as pilot:
        await pilot.pause()
        yield app, pilot, app.query_one(LossHeatmap)


def lines(widget) -> list[str]:
    return widget.render().plain.split("\n")


def selections(messages) -> list[LossHeatmap.CellSelected]:
    """Each CellSelected once (the hook sees it again at every hop as it bubbles up)."""
    return list({id(m): m for m in messages if isinstance(m, LossHeatmap.CellSelected)}.values())


def wave_line(heatmap: LossHeatmap) -> str:
    return next(x for x in lines(heatmap) if x.startswith("wave"))


async def test_the_r5_wave_column_is_marked_and_hottest():
    async with mounted((120, 30)) as (app, pilot, hm):
        g = hm.grid
        col = g.column_of(at("10:54:54"))
        assert col in g.wave_columns and g.column_of(at("10:42:07")) in g.wave_columns
        assert g.rows == ("team", "personal")
        assert g.counts[0][col] == 3 and g.counts[1][col] == 2 and g.max_count == 3
        # the marker line has a ▲ under the r5 column (label + separator, then cell_w per column)
        shown = lines(hm)
        lay = R.layout(g.rows, hm.content_size.width, len(g.bucket_starts))
        offset, cell_w = lay.label_w + 1, lay.cell_w
        assert cell_w == 2  # 120 columns: each bucket two characters wide
        assert wave_line(hm)[offset + col * cell_w] == "▲"
        # nothing marked where no wave was
        quiet = g.column_of(at("10:30:00"))
        assert wave_line(hm)[offset + quiet * cell_w] == " "
        assert any("10:54" in x and x.startswith("UTC") for x in shown)


async def test_cursor_starts_on_the_hot_cell_and_enter_posts_its_losses():
    messages = []
    async with mounted((120, 30), messages=messages) as (app, pilot, hm):
        assert hm.has_focus
        col = hm.grid.column_of(at("10:54:55"))
        assert hm.cursor == (0, col)
        await pilot.press("enter")
        await pilot.pause()
        sel = selections(messages)
        assert len(sel) == 1
        assert sel[0].row_label == "team" and sel[0].bucket_start == hm.grid.bucket_starts[col]
        assert {x.pod_id for x in sel[0].losses} == R5_TEAM
        assert sel[0].control is hm
        shown = "\n".join(lines(hm))
        assert all(p in shown for p in R5_TEAM) and "3 losses" in shown

        await pilot.press("down", "enter")
        await pilot.pause()
        sel = selections(messages)
        assert sel[-1].row_label == "personal" and {x.pod_id for x in sel[-1].losses} == R5_PERSONAL


async def test_arrows_move_and_stop_at_the_edges():
    async with mounted((120, 30)) as (app, pilot, hm):
        r, c = hm.cursor
        await pilot.press("left", "left")
        assert hm.cursor == (r, c - 2)
        await pilot.press("up", "up", "up")
        assert hm.cursor == (0, c - 2)
        await pilot.press(*["right"] * (len(hm.grid.bucket_starts) - c + 5))
        assert hm.cursor == (0, len(hm.grid.bucket_starts) - 1)
        await pilot.press("enter")
        await pilot.pause()
        assert "0 losses" in "\n".join(lines(hm))


async def test_d_cycles_the_rows_account_experiment_datacenter_gpu():
    async with mounted((120, 30)) as (app, pilot, hm):
        seen = []
        for _ in range(5):
            await pilot.pause()
            seen.append((hm.dimension, set(hm.grid.rows), lines(hm)[0]))
            await pilot.press("d")
        assert [d for d, _, _ in seen] == ["account", "experiment", "datacenter", "gpu", "account"]
        assert seen[0][1] == {"team", "personal"}
        assert seen[1][1] == {"#358", "#192", "#333", "#363", "#366"}
        assert seen[2][1] == {"US-KS-2", "EU-RO-1"}
        assert seen[3][1] == {A100, A100_SXM, H100}
        assert "Losses by experiment" in seen[1][2] and "Losses by GPU type" in seen[3][2]
        # the rows are drawn, one line each (five presses: back to experiment)
        await pilot.pause()
        assert [x.split("│")[0].strip() for x in lines(hm)[1:6]] == ["#358", "#333", "#192", "#363", "#366"]


async def test_w_cycles_the_window():
    async with mounted((120, 30)) as (app, pilot, hm):
        assert hm.window is None and hm.grid.start <= NOW - timedelta(minutes=30)
        got = []
        for _ in range(4):
            await pilot.press("w")
            await pilot.pause()
            got.append((hm.window_name, hm.grid.end - hm.grid.start))
        assert got[:3] == [("30m", timedelta(minutes=30)), ("2h", timedelta(hours=2)), ("12h", timedelta(hours=12))]
        assert got[3][0] == "all"
        assert "window 12h" not in lines(hm)[0] and "window all" in lines(hm)[0]


async def test_the_same_grid_again_is_no_redraw_and_a_resize_asks_for_another():
    messages = []
    async with mounted((120, 30), messages=messages) as (app, pilot, hm):
        before = hm.grid
        app.feed(list(LOSSES), waves(), NOW)
        await pilot.pause()
        assert hm.grid is before  # an equal grid: the one drawn stays
        asked = {id(m): m.scope for m in messages if isinstance(m, LossHeatmap.ScopeChanged)}
        assert list(asked.values()) == [("account", None, hm.content_size.width)]  # asked once
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert hm.grid is not before and hm.grid.start != before.start
        assert hm.grid.column_of(at("10:54:54")) in hm.grid.wave_columns
        assert all(len(x) <= hm.content_size.width for x in lines(hm))


async def test_new_losses_keep_the_cursor_where_the_owner_put_it():
    async with mounted((120, 30)) as (app, pilot, hm):
        await pilot.press("down", "left")
        label, when = hm.grid.rows[hm.cursor[0]], hm.grid.bucket_starts[hm.cursor[1]]
        later = NOW + timedelta(minutes=3)
        more = [*LOSSES, loss("zz9zz9zz9zz9zz", "team", 192, "10:55:10", "10:56:10")]
        app.feed(more, waves(more), later)
        await pilot.pause()
        assert hm.grid.rows[hm.cursor[0]] == label
        assert hm.grid.bucket_starts[hm.cursor[1]] == when


async def test_markup_in_pod_ids_accounts_and_labels_is_shown_literally():
    nasty_acc, nasty_pod = "[@click=app.quit]x[/]", "[/]"
    bad = [loss(nasty_pod, nasty_acc, 7, "10:53:54", "10:54:54"),
           loss("p2x[b]oldx[/b]", nasty_acc, 7, "10:53:54", "10:54:55", dc="[/]"),
           loss("p3\x1b[2Jclear", "team", 8, "10:53:55", "10:54:56", gpu="[red]gpu[/red]")]
    messages = []
    async with mounted(losses=bad, messages=messages) as (app, pilot, hm):
        assert hm.grid.rows[0] == nasty_acc
        assert lines(hm)[1].startswith("[@click=app.qui…│")  # cut to the label column, not parsed
        await pilot.press("enter")
        await pilot.pause()
        shown = "\n".join(lines(hm))
        assert "[/]" in shown and "p2x[b]oldx[/b]" in shown and "[@click=app.quit]x[/]  10:54" in shown
        for key in "ddd":
            await pilot.press(key)
            await pilot.pause()
            assert hm.render()  # each dimension renders its labels without a markup error
        assert "[red]gpu[/red]" in "\n".join(lines(hm))
        panel = app.query_one(WavePanel)
        assert panel.wave is not None and nasty_acc in panel.wave.accounts
        assert app.is_running  # no [@click=app.quit] was ever clicked or parsed
        assert selections(messages)[0].row_label == nasty_acc


async def test_wave_panel_shouts_while_active_and_calms_down_after_the_guard():
    async with mounted((120, 40)) as (app, pilot, _):
        panel = app.query_one(WavePanel)
        assert panel.active and panel.wave.start == at("10:54:54")
        assert panel.has_class("-active")
        ws = waves()
        later = NOW + timedelta(minutes=30)
        panel.set_waves(ws, later, shown_of(ws, later, 15.0), R5[0])
        await pilot.pause()
        assert not panel.active and not panel.has_class("-active") and panel.wave is ws[-1]
        # The session's choice as it stood at NOW (the wave active until 15 min after its last
        # loss), read 30 min later: the panel calms down by the clock alone, with no new choice.
        panel.set_waves(ws, NOW, shown_of(ws, NOW, 15.0), R5[0])
        assert panel.active
        panel.set_waves(ws, later, shown_of(ws, NOW, 15.0), R5[0])
        assert not panel.active and panel.wave is ws[-1]
        panel.set_waves([], NOW, (-1, None), R5[0])
        await pilot.pause()
        assert panel.wave is None
