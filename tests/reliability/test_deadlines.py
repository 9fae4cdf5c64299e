"""Every request on all three sources has an overall deadline and a size bound (issue 14 item 9).

A loopback stub trickles a valid reply one byte at a time (httpx's and requests' timeouts are
per read, so only an overall deadline ends it), or makes a reply far larger than the bound
lazily (so a test can count how much of it was ever sent). Nothing here asserts a duration:
each test asserts the kind of failure, and a bound on bytes or connections.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import tracemalloc

import pytest

from sagan_tui.core.sources.errors import ReplyTooLarge, SourceTimeout
from sagan_tui.core.sources.runpod_graphql import GraphQLTransport, _load_sdk
from sagan_tui.core.sources.runpod_rest import RestV2Transport
from sagan_tui.core.sources.sagan import SaganClient

from .processes import EXE, command_env
from .stub_server import EMPTY_MYSELF, Stream

TRICKLE_GAP_S = 0.4  # shorter than the 1 s request timeout below: no single read ever times out
MB = 1024 * 1024
# A guard against a hang, far beyond any deadline under test: reaching it is the failure.
HANG_GUARD_S = 120


class Trickle:
    """A valid JSON body sent one byte per gap; `started` counts the requests it answered."""

    def __init__(self, body: object) -> None:
        self.raw = json.dumps(body).encode() + b" " * 10_000  # long enough to outlast any deadline
        self.started = 0

    async def __call__(self):
        self.started += 1
        for i in range(len(self.raw)):
            yield self.raw[i:i + 1]
            await asyncio.sleep(TRICKLE_GAP_S)


class Huge:
    """A reply of `total` bytes made 1 MB at a time as the client reads it (never held whole here either)."""

    def __init__(self, head: bytes, total: int) -> None:
        self.head, self.total = head, total

    async def __call__(self):
        yield self.head
        sent, block = len(self.head), b"[" + b"0," * (MB // 2 - 1) + b"0]"
        while sent < self.total:
            yield block
            sent += len(block)


@pytest.fixture(scope="module", autouse=True)
def _sdk_loaded():
    _load_sdk()  # ~2 s of import, not inside a request under test


async def test_a_trickling_sagan_ends_in_a_timeout_not_a_hang(stub):
    stub.set("/api/experiments", Stream(Trickle({"experiments": []})))
    async with SaganClient(stub.base_url, "tok", timeout=1.0, retries=1) as client:
        with pytest.raises(SourceTimeout) as err:
            await asyncio.wait_for(client.experiments(), HANG_GUARD_S)
    assert "timed out, no complete reply within 1 s" in err.value.message


async def test_a_trickling_rest_v2_ends_in_a_timeout(stub):
    stub.set("/v2/pods", Stream(Trickle({"pods": []})))
    t = RestV2Transport("team", "rk-team-stub", base_url=stub.base_url, timeout=1.0)
    try:
        with pytest.raises(SourceTimeout):
            await asyncio.wait_for(t.snapshot(), HANG_GUARD_S)
    finally:
        await t.aclose()


async def test_graphql_worker_threads_on_a_trickling_reply_do_not_pile_up(stub):
    trickle = Trickle({"data": {"myself": EMPTY_MYSELF}})
    stub.set("/graphql", Stream(trickle))
    t = GraphQLTransport("team", "rk-team-stub", base_url=stub.base_url, timeout=1.0)
    for _ in range(4):  # four polls in a row, each giving up on the trickle
        with pytest.raises(SourceTimeout) as err:
            await asyncio.wait_for(t.snapshot(), HANG_GUARD_S)
        # The worker thread itself gave up (the shim's deadline), so it had ended when the poll
        # did: not the outer wait abandoning a thread that would read on into the next poll.
        assert "GraphQL reply not complete within 1 s" in err.value.message
        assert t._abandoned == 0  # private on purpose: the transport's count of abandoned threads is this test's rule
    assert trickle.started == 4


@pytest.mark.parametrize("path, head", [
    ("/api/experiments", b'{"experiments": '), ("/v2/pods", b'{"pods": '), ("/graphql", b'{"data": {"x": '),
])
async def test_a_reply_past_the_bound_is_refused_after_reading_about_the_bound(stub, path, head):
    huge = Huge(head, total=100 * MB)
    stub.set(path, Stream(huge))
    bound = 2 * MB
    if path == "/api/experiments":
        client = SaganClient(stub.base_url, "tok", timeout=30.0, retries=0, max_reply_bytes=bound)
        call, close = client.experiments, client.aclose
    elif path == "/v2/pods":
        client = RestV2Transport("team", "rk-team-stub", base_url=stub.base_url, timeout=30.0, max_reply_bytes=bound)
        call, close = client.snapshot, client.aclose
    else:
        client = GraphQLTransport("team", "rk-team-stub", base_url=stub.base_url, timeout=30.0, max_reply_bytes=bound)
        call, close = client.snapshot, client.aclose
    tracemalloc.start()
    try:
        with pytest.raises(ReplyTooLarge) as err:
            await asyncio.wait_for(call(), HANG_GUARD_S)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        await close()
    assert err.value.kind.value == "too-large" and "reply too large" in err.value.message
    # Refused after about the bound, never holding the 100 MB (the stub's 1 MB blocks count here too).
    assert peak < 24 * MB, peak


def test_sync_once_with_a_trickling_sagan_reports_both_accounts_ok_and_sagan_timeout(stub, tmp_path):
    for path in ("/api/experiments", "/api/pods", "/api/approval-requests", "/api/events"):
        stub.set(path, Stream(Trickle({})))
    env = command_env(stub.env(transport="auto"), tmp_path / "cache.sqlite", SAGAN_TUI_REQUEST_TIMEOUT="1")
    proc = subprocess.run([*EXE, "sync", "--once"], capture_output=True, text=True, env=env, timeout=HANG_GUARD_S)
    line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr
    assert "sagan=ERR timeout" in line and "team=ok" in line and "personal=ok" in line, (proc.stdout, proc.stderr)
