"""SVG snapshots of the main and incident layouts, over the frozen cache (fixed clock, no polling)."""

from __future__ import annotations

from .frozen import frozen_app


def test_main_layout(snap_compare, tmp_path):
    assert snap_compare(frozen_app(tmp_path), terminal_size=(200, 50))


def test_incident_layout(snap_compare, tmp_path):
    assert snap_compare(frozen_app(tmp_path), press=["I"], terminal_size=(200, 50))


def test_main_layout_at_80x24_read_only(snap_compare, tmp_path):
    assert snap_compare(frozen_app(tmp_path, read_only=True), terminal_size=(80, 24))


def test_a_table_border_shows_its_filter_sort_and_marks(snap_compare, tmp_path):
    async def mark_filter_sort(pilot) -> None:
        await pilot.pause()  # the MainScreen's panes mounted
        table = pilot.app.pods_table
        table.focus()
        await pilot.pause()
        table.move_cursor(row=0)
        await pilot.press("space", "j", "space", "j", "space", "j")  # three marks, one of them a personal pod's below
        table.set_filter("team")  # hides at least one marked row: "(1 hidden)"
        await pilot.press("o", "O")  # sort by the first column, descending
        await pilot.pause()

    assert snap_compare(frozen_app(tmp_path), terminal_size=(200, 50), run_before=mark_filter_sort)


def test_incident_layout_at_80x24_leads_the_wave_panel_with_the_verdict(snap_compare, tmp_path):
    assert snap_compare(frozen_app(tmp_path), press=["I"], terminal_size=(80, 24))


def test_wave_response_dialog(snap_compare, tmp_path):
    assert snap_compare(frozen_app(tmp_path), press=["W"], terminal_size=(200, 50))


def test_wave_response_dialog_at_80x24(snap_compare, tmp_path):
    assert snap_compare(frozen_app(tmp_path), press=["W"], terminal_size=(80, 24))


async def _guard_on_192(pilot) -> None:
    from sagan_tui.panel.screens.guard import GuardedDispatchScreen

    await pilot.pause()
    pilot.app.experiments_table.select_key("192")  # held during the wave: C goes through the guard
    await pilot.press("C")
    while not isinstance(pilot.app.screen, GuardedDispatchScreen):
        await pilot.pause(0.05)
    await pilot.pause()


def test_guard_dialog_under_no_color_labels_every_button(snap_compare, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(frozen_app(tmp_path), terminal_size=(80, 24), run_before=_guard_on_192)


def test_wave_response_dialog_under_no_color_labels_every_button(snap_compare, tmp_path, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(frozen_app(tmp_path), press=["W"], terminal_size=(80, 24))


async def _wave_news_and_W(pilot) -> None:
    """The wave's news in the notification area, `W` open, and its growth said while the dialog is up."""
    from sagan_tui.panel.screens.wave_response import WaveResponseScreen

    app = pilot.app
    await pilot.pause()
    app.notify("5 pods lost 10:54-10:55 UTC in team, personal. PLATFORM REAPER, medium", title="Reaping wave",
               severity="error", timeout=30, markup=False)
    app.notify("#367 Sparse autoencoder features for persona vectors: review plan", title="Your turn", markup=False)
    app.notify("#369 Reward hacking probes in code RL: answer", title="Your turn", markup=False)
    await pilot.press("W")
    while not isinstance(app.screen, WaveResponseScreen):
        await pilot.pause(0.05)
    app.notify("Wave 10:54-10:55 UTC grew: 5 -> 6 pods", title="Reaping wave grew", severity="error", markup=False)
    await pilot.pause()


def test_wave_news_on_its_own_lines_with_the_W_dialog_open(snap_compare, tmp_path):
    """#44: the status line, the verdict and the dialog's text all readable; the news under the
    panes (one line for the wave, one for the inbox) and in the dialog on its own line."""
    assert snap_compare(frozen_app(tmp_path), terminal_size=(200, 50), run_before=_wave_news_and_W)


def test_wave_news_on_its_own_lines_with_the_W_dialog_open_at_80x24(snap_compare, tmp_path):
    assert snap_compare(frozen_app(tmp_path), terminal_size=(80, 24), run_before=_wave_news_and_W)


async def _approval_on_367(pilot) -> None:
    from sagan_tui.panel.screens.approval import ApprovalScreen

    await pilot.pause()
    pilot.app.notify("5 pods lost 10:54-10:55 UTC in team, personal. PLATFORM REAPER, medium", title="Reaping wave",
                     severity="error", timeout=30, markup=False)
    pilot.app.experiments_table.select_key("367")  # its plan waits for the owner
    await pilot.press("a")
    while not isinstance(pilot.app.screen, ApprovalScreen):
        await pilot.pause(0.05)
    pilot.app.notify("Wave 10:54-10:55 UTC grew: 5 -> 6 pods", title="Reaping wave grew", severity="error",
                     markup=False)
    await pilot.pause()


def test_approval_dialog_at_80x24_during_a_wave_keeps_the_status_line(snap_compare, tmp_path):
    """#44: the approval dialog sits under the status line (`WAVE 5 · guard`, then the verdict at 80
    columns), its own news line holding the wave's growth, the wave's news from before it opened on
    the line under it; it covered the status line and the verdict before."""
    assert snap_compare(frozen_app(tmp_path), terminal_size=(80, 24), run_before=_approval_on_367)
