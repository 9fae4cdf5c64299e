"""The session runs on one asyncio loop (its owner's) with one thread for SQLite: no second loop
anywhere in the core, and no thread of its own beyond the SQLite one while it polls and answers."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import sagan_tui
from sagan_tui.core.session.loopback import InProcessSession
from sagan_tui.core.store.cache import Cache
from tests.actions.conftest import actions_fixture, sim_settings

ROOT = Path(sagan_tui.__file__).parent


def test_no_second_event_loop_in_the_core():
    core = sorted((ROOT / "core").rglob("*.py"))
    assert len(core) > 50, "the core's modules were not found"  # the check reads them, or it proves nothing
    found = [str(p.relative_to(ROOT)) for p in core if "new_event_loop" in p.read_text()]
    assert found == []


async def test_the_session_polls_and_answers_on_the_callers_loop_with_one_sqlite_thread(sim_factory, tmp_path):
    sim = sim_factory(fixture=actions_fixture())
    settings = sim_settings(sim, tmp_path)
    cache = Cache(settings.cache_path)
    before = {t.ident for t in threading.enumerate()}
    updates = []
    session = InProcessSession(settings, cache, poll=True)
    session.open_now(updates.append)
    session.start()
    try:
        async with asyncio.timeout(30):
            for rounds in (1, 2):  # two whole rounds: every source polled and written twice
                while session.core.polls < rounds:
                    await asyncio.sleep(0.05)
                session.refresh()
            assert await session.audit_log(10) == []  # a read answered over the channel
        # Everything the session made runs on this loop: its tasks are this loop's.
        assert all(t.get_loop() is asyncio.get_running_loop() for t in asyncio.all_tasks())
        new = sorted(t.name for t in threading.enumerate() if t.ident not in before)
        # The RunPod SDK is blocking: its calls run in its own pool (core/sources/runpod_graphql.py),
        # made once per process on the first call, whoever calls. Every other thread is SQLite's.
        ours = [n for n in new if not n.startswith("runpod")]
        assert ours == ["sagan-db_0"], new
    finally:
        await session.close()
        cache.close()
