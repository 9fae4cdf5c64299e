"""The in-process transport (core/session/loopback.py): the real SessionHost over a socketpair, so what
it hands the panel is what the socket carries: view data made whole, answers decoded as their
intent's type, a wrong answer an error."""

from __future__ import annotations

import asyncio

import pytest

from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.client import SessionError
from sagan_tui.wire.channel.views import ActionResultView, ReadyView, RowView, UpdateView
from sagan_tui.core.session import answers
from sagan_tui.core.session.loopback import InProcessSession
from sagan_tui.core.store.cache import Cache
from tests.ui import frozen


@pytest.fixture
async def session(tmp_path):
    s = frozen.settings(tmp_path, read_only=True)
    cache = Cache(s.cache_path)
    frozen.fill(cache)
    updates: list[UpdateView] = []
    loop = InProcessSession(s, cache, clock=lambda: frozen.NOW, poll=False)
    ready = loop.open_now(updates.append)
    yield loop, ready, updates
    await loop.close()
    cache.close()


async def test_the_whole_panel_comes_as_the_channels_view_data(session):
    _, ready, _ = session
    assert isinstance(ready, ReadyView) and isinstance(ready.first, UpdateView)
    rows = ready.first.pods
    assert "v0c7bx292xqvg4" in rows and all(type(r) is RowView for r in rows.values())
    assert not ready.first.pod_patches  # the first panel is whole


async def test_an_answer_is_decoded_as_its_intents_type(session):
    loop, _, _ = session
    loop.start()
    result = await loop.hold([192], "wave")
    assert type(result) is ActionResultView and result.refused  # read-only: refused, audited
    assert "read-only" in result.message


async def test_an_answer_that_is_not_its_intents_type_is_the_sessions_error(session, monkeypatch):
    loop, _, _ = session
    loop.start()

    async def wrong(s, i):
        return {"not": "a string"}

    monkeypatch.setitem(answers.HANDLERS, I.HoldNote, wrong)
    with pytest.raises(SessionError, match="ValidationError"):
        await loop.hold_note()


async def test_a_later_update_of_rows_the_panel_holds_comes_as_patches_of_those_rows(session):
    loop, ready, updates = session
    loop.start()
    loop.refresh()  # no poll (the sources are closed ports): the session sends what changed with time
    deadline = asyncio.get_running_loop().time() + 30
    while not any(u.pod_patches for u in updates):
        assert asyncio.get_running_loop().time() < deadline, "no update patching a pod row"
        await asyncio.sleep(0.05)
    u = next(u for u in updates if u.pod_patches)
    for key, patch in u.pod_patches.items():
        assert key in ready.first.pods  # a row the panel was sent whole
        assert all(0 <= i < len(ready.first.pods[key].cells) for i in patch.at)

