"""The real fault named (#46): a reply that does not decode as its Content-Encoding says is "bad
encoding", not "unreachable" (the server answered), over each client: Sagan's and RunPod REST v2's
(httpx) and RunPod GraphQL's (the SDK's requests)."""

from __future__ import annotations

import asyncio

from sagan_tui.core.models import ErrorKind

from .conftest import open_poller

BROKEN_GZIP = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03not a deflate stream at all"


def test_a_body_that_fails_gzip_decoding_reads_bad_encoding_on_every_client(stub, tmp_path):
    for path in ("/api/experiments", "/graphql", "/v2/pods"):
        stub.set(path, BROKEN_GZIP, 200, {"Content-Encoding": "gzip"})
    env = {**stub.env(), "RUNPOD_TRANSPORT_PERSONAL": "rest-v2"}  # team over GraphQL, personal over REST v2
    poller, cache = open_poller(env, tmp_path / "c.sqlite", retries=0)
    try:
        changes = asyncio.run(poller.poll_once(force=True))
    finally:
        asyncio.run(poller.aclose())
        cache.close()
    for source in ("sagan", "team", "personal"):
        h = changes.health[source]
        assert h.error_kind == ErrorKind.BAD_ENCODING, (source, h.error_kind, h.message)
        assert "bad encoding" in (h.message or ""), (source, h.message)
    line = changes.summary_line()
    assert "sagan=ERR bad-encoding" in line and "team=ERR bad-encoding" in line and "unreachable" not in line, line
