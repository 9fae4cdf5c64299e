"""A session process that stops answering (frozen by SIGSTOP: alive, its socket open, silent) is
named as such on the status line and in Sagan's panes, not only as every source going stale; the
name goes once it answers again. Through the real channel, against the simulator on loopback."""

from __future__ import annotations

import os
import re
import signal

from sagan_tui.panel.widgets.status_bar import StatusBar
from tests.actions.conftest import actions_fixture
from tests.process.test_panel_on_the_process import WAIT_S, process_panel  # noqa: F401 - a fixture
from tests.harness import SIZE, wait_for


async def test_a_frozen_session_is_named_not_answering_and_the_name_goes_when_it_answers(
        sim_factory, process_panel):  # noqa: F811 - the fixture imported above
    sim = sim_factory(fixture=actions_fixture())
    app = process_panel(sim)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.loaded, "the session process's whole panel", timeout=WAIT_S)
        bar = app.query_one(StatusBar)
        assert "NOT ANSWERING" not in bar.plain
        app.session.client.silent_after_s = 0.5  # the test's own bound: the status line ticks every second
        child = app.session.pid
        os.kill(child, signal.SIGSTOP)
        try:
            await wait_for(pilot, lambda: "SESSION NOT ANSWERING SINCE" in bar.plain, "the status line naming the silent session", timeout=WAIT_S)
            assert re.search(r"SESSION NOT ANSWERING SINCE \d\d:\d\d:\d\d", bar.plain), bar.plain
            assert app.experiments_table.note.startswith("session not answering since ")
            assert app.session.restarts == 0  # silent is not dead: nothing restarted behind the owner's back
        finally:
            os.kill(child, signal.SIGCONT)
        await wait_for(pilot, lambda: "NOT ANSWERING" not in bar.plain, "the name gone once it answers", timeout=WAIT_S)
        assert "not answering" not in app.experiments_table.note
