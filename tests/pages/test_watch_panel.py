"""A panel on the cache a `watch` pages from says when paging fails (issue 45.3): the guard cannot
reach the owner's phone, and the owner at the panel must know it."""

from __future__ import annotations

from tests.harness import cache_of, panel_on, poll_now, screen_text, sim_settings, wait_for

from .stand_ins import StandIn
from .test_watch import TIMES, _watch


async def test_the_status_line_says_paging_failed_while_watchs_last_page_failed(sim_factory, tmp_path):
    sim = sim_factory(scenario="reaping-wave")
    broken = StandIn("json", status=500).start()
    try:
        lines: list[str] = []
        url = f"json://127.0.0.1:{broken.port}/hooks/s3cr3t-path"
        w, poll_at = await _watch(sim, tmp_path, lines, name="cache", page_urls=url)  # the panel's cache file
        w.pager.backoff_s = 0.01
        for t in TIMES:
            await poll_at(t)
        await w.close(drain_s=20)
    finally:
        broken.stop()
    assert any(line.startswith("paging failed: json 127.0.0.1") for line in lines), lines

    app, cache = panel_on(sim_settings(sim, tmp_path), poll=False)
    async with app.run_test(size=(200, 50)) as pilot:
        status = lambda: screen_text(app).splitlines()[0]  # noqa: E731 - the status line, the top row
        await wait_for(pilot, lambda: "paging failed: json 127.0.0.1" in status(), what="the paging failure")
        assert "s3cr3t" not in screen_text(app)  # what may be shown of a target: scheme and host
        # A page that went through (watch records each target's last outcome): the line goes.
        cache_of(app).page_rows.record_health("json 127.0.0.1", None, sim.clock.at(170))
        await poll_now(pilot, app)
        await wait_for(pilot, lambda: "paging failed" not in status(), what="the line gone")
    cache.close()


async def test_where_the_line_is_short_paging_failed_is_kept_in_its_short_form(sim_factory, tmp_path):
    from sagan_tui.wire.render import status_segments

    now = sim_factory(scenario="reaping-wave").clock.at(0)
    line = "paging failed: ntfy ntfy.sh 403 Forbidden"
    wide = "".join(t for t, _ in status_segments({}, now, poll_interval=30, paused=False, read_only=False,
                                                 paging=(line,)))
    narrow = "".join(t for t, _ in status_segments({}, now, poll_interval=30, paused=False, read_only=False,
                                                   paging=(line,), width=30))
    assert line in wide and "PAGING FAILED" in narrow and len(narrow) <= 30
    none = "".join(t for t, _ in status_segments({}, now, poll_interval=30, paused=False, read_only=False))
    assert "PAGING" not in none.upper()
