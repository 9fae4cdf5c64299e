"""The session process started before the UI imports Textual (wire/channel/early.py): the first client
takes it over and opens it, one never taken is ended with its directory, and one that said
`ready` and died before the client connected is named as a death (its line waits in the pipe)."""

from __future__ import annotations

import os
import select
import signal

import pytest

from sagan_tui.wire.channel import early as early_mod
from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.client import SessionClient, SessionEnded
from sagan_tui.wire.channel.early import start_early
from sagan_tui.wire.channel.views import Done, ReadyView
from tests.actions.conftest import actions_fixture
from tests.channel.test_session_process import WAIT_S, Panel, layers


@pytest.fixture
def early(monkeypatch):
    """An early child, and none left for another test's client to take."""
    monkeypatch.setattr(early_mod, "_early", None)
    start_early()
    child = early_mod._early
    yield child
    child.discard()
    monkeypatch.setattr(early_mod, "_early", None)


async def test_the_first_client_takes_the_early_child_over_and_opens_it(sim_factory, tmp_path, early):
    sim = sim_factory(fixture=actions_fixture())
    panel = Panel()
    ready = await panel.client.open(*layers(sim, tmp_path), poll=False)
    assert isinstance(ready, ReadyView), ready
    assert panel.client.pid == early.popen.pid and panel.client.path == early.path
    assert await panel.client.ask(I.Refresh()) == Done()
    await panel.until(lambda: panel.polls() >= 1, "the first poll's update")
    assert panel.row("pods", "perspod504bbbb") is not None
    other = SessionClient(lambda u: None)  # a second client (a restart) starts its own child
    await other.start()
    assert other.pid != early.popen.pid
    await other.close()
    await panel.client.close()
    assert early.popen.returncode == 0 and not early.runtime.exists() and panel.ended == []


def test_an_early_child_never_taken_is_ended_with_its_directory(early):
    assert early.runtime.is_dir()
    early.discard()  # what the exit does
    assert early.popen.returncode == 0 and not early.runtime.exists()


async def test_a_child_that_said_ready_and_died_before_the_connection_is_named(early):
    readable, _, _ = select.select([early.popen.stdout], [], [], WAIT_S)  # its `ready` line, not consumed
    assert readable
    os.kill(early.popen.pid, signal.SIGKILL)
    early.popen.wait()
    client = SessionClient(lambda u: None)
    with pytest.raises(SessionEnded, match="killed by SIGKILL"):
        await client.start()
    await client.close()
    assert not early.runtime.exists()
