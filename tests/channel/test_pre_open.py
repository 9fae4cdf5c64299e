"""The pre-open (wire/channel/early.py, core/session/serve.py): the early child gets the settings' layers on
its stdin and opens the session before any client connects, so its first poll does not wait for
the panel's first frame; the panel's Open with the same layers is answered by that session, other
layers close it and open theirs, and a line that is not the layers leaves the Open to open it."""

from __future__ import annotations

import asyncio

import pytest

from sagan_tui.wire.channel import early as early_mod
from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.early import pre_open_line, start_early
from sagan_tui.wire.channel.views import ReadyView
from sagan_tui.wire.config import Draft
from sagan_tui.core.session.serve import SessionHost, pre_open_intent
from tests.actions.conftest import actions_fixture
from tests.harness import wait_until
from tests.channel.test_session_process import WAIT_S, Panel, layers


def pods_asked(sim) -> int:
    return sum(1 for r in sim.requests if r.api in ("rest", "graphql") and r.account is not None)


@pytest.fixture
def pre_opened(monkeypatch, sim_factory, tmp_path):
    """An early child started with the settings' layers, and none left for another test's client."""
    sim = sim_factory(fixture=actions_fixture())
    values, accounts = layers(sim, tmp_path)
    monkeypatch.setattr(early_mod, "_early", None)
    start_early(Draft(values, accounts))
    child = early_mod._early
    yield sim, child, values, accounts
    child.discard()
    monkeypatch.setattr(early_mod, "_early", None)


async def test_the_pre_opened_child_polls_before_any_client_and_answers_the_open(pre_opened):
    sim, child, values, accounts = pre_opened
    wait_until(lambda: pods_asked(sim) >= 1, "the child's first poll, with no client connected", timeout=WAIT_S)
    panel = Panel()
    ready = await panel.client.open(values, accounts)
    assert isinstance(ready, ReadyView), ready
    assert panel.client.pid == child.popen.pid
    await panel.until(lambda: panel.row("pods", "perspod504bbbb") is not None, "the pods, from the pre-opened session")
    await panel.client.close()
    assert child.popen.returncode == 0 and panel.ended == []


def test_the_pre_open_line_is_the_layers_and_anything_else_is_refused_by_name():
    draft = Draft({"sagan_token": "s3cret-token", "poll_interval": 5.0}, {"team": {"api_key": "rk-XYZ"}},
                  origins={"poll_interval": "flag --poll-interval"})
    intent = pre_open_intent(pre_open_line(draft))
    assert intent.values == {"sagan_token": "s3cret-token", "poll_interval": 5.0}
    assert intent.accounts == {"team": {"api_key": "rk-XYZ"}}
    assert intent.origins == {"poll_interval": "flag --poll-interval"}  # a config error names its layer
    for bad in (b"ready\n", b"[1, 2]\n", b'{"values": 3}\n', b"\xff\n"):
        with pytest.raises(ValueError, match="not the settings' layers") as caught:
            pre_open_intent(bad)
        assert "s3cret" not in str(caught.value)


@pytest.fixture
async def host(tmp_path):
    h = SessionHost(tmp_path / "s.sock")
    yield h
    await h.close()


async def _opened(host: SessionHost, intent: I.Open) -> ReadyView:
    answer = await asyncio.wait_for(host.handle(intent), WAIT_S)
    assert isinstance(answer, ReadyView), answer
    return answer


async def test_the_open_with_the_pre_opened_layers_adopts_its_session(host, sim_factory, tmp_path):
    values, accounts = layers(sim_factory(fixture=actions_fixture()), tmp_path)
    host.pre_open(I.Open(values, accounts, poll=False))
    pre = host.session
    assert pre is not None
    await _opened(host, I.Open(values, accounts, poll=False))
    assert host.session is pre


async def test_an_open_with_other_layers_closes_the_pre_opened_session_and_opens_its_own(host, sim_factory, tmp_path):
    values, accounts = layers(sim_factory(fixture=actions_fixture()), tmp_path)
    host.pre_open(I.Open(values, accounts, poll=False))
    pre = host.session
    other = {**values, "poll_interval": 30.0}
    await _opened(host, I.Open(other, accounts, poll=False))
    assert host.session is not pre and host.session.settings.poll_interval == 30.0
    assert pre.closed  # closed, not left polling beside the new one


async def test_a_pre_open_on_layers_that_do_not_validate_gives_way_to_the_panels_open(host, sim_factory, tmp_path, caplog):
    values, accounts = layers(sim_factory(fixture=actions_fixture()), tmp_path)
    bad = {**values, "poll_interval": "s3cret-not-a-number"}
    host.pre_open(I.Open(bad, accounts, poll=False))
    await _opened(host, I.Open(values, accounts, poll=False))
    assert host.session.settings.poll_interval == 60.0
    assert "s3cret" not in caplog.text


async def test_a_pre_open_is_answered_with_the_whole_panel_as_the_open_would_be(host, sim_factory, tmp_path):
    """A panel attaching to a watch reads this answer while it imports Textual: its first frame is
    the session's state, and it sends no Open (one on the same layers gets the same session)."""
    values, accounts = layers(sim_factory(fixture=actions_fixture()), tmp_path)
    answer = await asyncio.wait_for(host.handle(I.PreOpen(values, accounts)), WAIT_S)
    assert isinstance(answer, ReadyView) and answer.first.full and answer.settings.poll_interval == 60.0, answer
    pre = host.session
    assert await _opened(host, I.Open(values, accounts)) == answer and host.session is pre
    # Pre-opened already (the stdin's layers): this PreOpen started nothing, the Open answers.
    assert await asyncio.wait_for(host.handle(I.PreOpen(values, accounts)), WAIT_S) is None


def test_an_earlier_watchs_done_leaves_the_panel_attached_and_anything_else_drops_the_connection(monkeypatch):
    """A watch of an earlier version answers the PreOpen with Done (it opened the session): the
    panel's first frame is the peek's and its Open is answered by that session, on the connection
    kept. An answer that is not one of ours drops it: the panel runs its own session."""
    import socket

    import msgspec

    from sagan_tui.wire.channel.frames import pack
    from sagan_tui.wire.channel.messages import Reply, encode
    from sagan_tui.wire.channel.views import ActionResultView, Done

    ours, theirs = socket.socketpair()
    monkeypatch.setattr(early_mod, "_attached", ours)
    monkeypatch.setattr(early_mod, "_answer_due", True)
    try:
        theirs.sendall(pack(encode(Reply(0, msgspec.Raw(encode(Done()))))))
        assert early_mod.pre_opened(WAIT_S) is None and early_mod.attaching()
        monkeypatch.setattr(early_mod, "_answer_due", True)
        theirs.sendall(pack(encode(Reply(0, msgspec.Raw(encode(ActionResultView(True, "held #3")))))))
        assert early_mod.pre_opened(WAIT_S) is None and not early_mod.attaching()
    finally:
        ours.close()
        theirs.close()
