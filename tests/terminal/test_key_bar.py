"""The key bar at every width: abbreviated rather than cut, and W ? I q never dropped."""

from __future__ import annotations

import pytest

from sagan_tui.panel.widgets.key_bar import KEEP, fit_keys

from ..ui import frozen
from tests.harness import wait_for
from sagan_tui.panel.widgets.key_bar import KeyBar

MAIN = [("space", "Mark", "toggle_mark"), ("/", "Filter", "filter"), ("a", "Approval", "review_approval"),
        ("h", "Hold", "hold"), ("r", "Re-dispatch", "redispatch"), ("W", "Wave response", "wave_response"),
        ("?", "Help", "help"), ("I", "Incident", "incident"), ("P", "Pause/resume", "pause"), ("q", "Quit", "quit")]


def shown(pairs) -> str:
    return " " + "  ".join(f"{k} {w}" if w else k for k, w in pairs) + "  "


def test_what_fits_is_shown_whole():
    assert fit_keys(MAIN, 200) == [(k, w) for k, w, _ in MAIN]


@pytest.mark.parametrize("width", [30, 40, 60, 80, 100])
def test_a_narrow_line_abbreviates_and_drops_never_the_kept_keys_nor_cuts_a_word(width):
    pairs = fit_keys(MAIN, width)
    assert len(shown(pairs)) <= width + 2  # the last two spaces are padding
    keys = [k for k, _ in pairs]
    for k, _w, action in MAIN:
        if action in KEEP:
            assert k in keys
    words = {w for _k, w, _a in MAIN} | {"Appr", "Redisp", "Wave", "Incid", "Pause", "Mark", "Filter", "", "…"}
    assert all(w in words for _k, w in pairs)


async def test_every_binding_of_the_main_screen_shows_at_200_columns_and_w_help_incident_quit_at_80(tmp_path):
    app = frozen.frozen_app(tmp_path)
    async with app.run_test(size=(200, 50)) as pilot:
        bar = app.main_screen.query_one(KeyBar)
        await wait_for(pilot, lambda: "q" in bar.keys, what="the key bar")
        wanted = {b.action for _n, b, enabled, _t in app.screen.active_bindings.values() if b.show and enabled}
        assert len(wanted) > 25 and "…" not in bar.keys
        assert len(bar.keys) == len(wanted) + 1  # and ^p, the palette
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: "…" in bar.keys, what="the narrow key bar")
        assert {"W", "?", "I", "q"} <= set(bar.keys)
