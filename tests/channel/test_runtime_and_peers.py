"""The runtime directory and socket are owner-only, and a hostile peer is told why and closed
while the server goes on answering the panel."""

from __future__ import annotations

import asyncio
import os
import stat

import pytest

from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.frames import HEADER, pack, read_frame
from sagan_tui.wire.channel.messages import TO_PANEL, Refused, Reply, Request, encode, result_of
from sagan_tui.wire.channel.runtime_dir import ChannelRefused, check_private, make_runtime_dir, socket_path
from sagan_tui.wire.channel.server import ChannelServer
from sagan_tui.wire.channel.views import Done


def test_the_runtime_dir_is_ours_and_0700_and_the_socket_0600(tmp_path):
    runtime = make_runtime_dir(tmp_path)
    assert stat.S_IMODE(os.stat(runtime).st_mode) == 0o700
    assert os.stat(runtime).st_uid == os.getuid()
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o755)
    os.chmod(open_dir, 0o755)
    with pytest.raises(ChannelRefused, match="open to others"):
        check_private(open_dir)


async def _answers(intent):
    if isinstance(intent, I.Dismiss):
        return f"dismissed {intent.pod_id}"
    if isinstance(intent, I.HoldNote):
        raise RuntimeError("no model yet")
    return Done()


@pytest.fixture
async def server(tmp_path):
    runtime = make_runtime_dir(tmp_path)
    srv = ChannelServer(socket_path(runtime), _answers)
    await srv.start()
    yield srv
    await srv.aclose()


async def _ask(path, *frames: bytes):
    reader, writer = await asyncio.open_unix_connection(str(path))
    for f in frames:
        writer.write(f)
    await writer.drain()
    got = []
    while (frame := await read_frame(reader)) is not None:
        got.append(TO_PANEL.decode(frame))
        if len(got) == len(frames):
            break
    writer.close()
    return got


async def test_the_socket_is_owner_only_and_answers_a_request(server):
    assert stat.S_IMODE(os.stat(server.path).st_mode) == 0o600
    (answer,) = await _ask(server.path, pack(encode(Request(1, I.Dismiss("pod-9")))))
    assert isinstance(answer, Reply) and answer.id == 1
    assert result_of(I.Dismiss, answer.result) == "dismissed pod-9"


async def test_a_handler_that_fails_is_answered_with_its_error_and_the_server_goes_on(server):
    (answer,) = await _ask(server.path, pack(encode(Request(5, I.HoldNote()))))
    assert answer.error == "RuntimeError: no model yet"
    (answer,) = await _ask(server.path, pack(encode(Request(6, I.Refresh()))))
    assert answer.error is None and result_of(I.Refresh, answer.result) == Done()


@pytest.mark.parametrize("hostile, why", [
    (pack(b"\xff\x00garbage"), "not a message of this channel"),
    (HEADER.pack(2**31), "over the"),
    (pack(encode({"type": "request", "id": 1, "intent": {"type": "Format", "disk": "/"}})), "Format"),
    (pack(encode({"type": "request", "id": "one", "intent": {"type": "Refresh"}})), "Expected `int`"),
])
async def test_a_hostile_peer_is_told_why_and_closed_and_the_panel_still_answered(server, hostile, why):
    (refused,) = await _ask(server.path, hostile)
    assert isinstance(refused, Refused) and why in refused.reason
    assert server.refused and not server.closed.is_set()
    (answer,) = await _ask(server.path, pack(encode(Request(2, I.Dismiss("p")))))
    assert result_of(I.Dismiss, answer.result) == "dismissed p"


async def test_a_peer_of_another_uid_is_refused_by_the_kernels_word(tmp_path):
    runtime = make_runtime_dir(tmp_path)
    srv = ChannelServer(socket_path(runtime), _answers, allowed_uid=os.getuid() + 1)
    await srv.start()
    try:
        (refused,) = await _ask(srv.path, pack(encode(Request(1, I.Refresh()))))
    finally:
        await srv.aclose()
    assert isinstance(refused, Refused)
    assert refused.reason == f"a peer of uid {os.getuid()} was refused: only uid {os.getuid() + 1} may use this session"


async def test_the_panels_connection_closing_is_the_sessions_end(server):
    await _ask(server.path, pack(encode(Request(1, I.Refresh()))))
    await asyncio.wait_for(server.closed.wait(), 10)
    assert server.closed.is_set()
