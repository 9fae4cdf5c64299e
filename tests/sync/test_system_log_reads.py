"""The system-log reads of lost pods against a loopback stub: a stalled stream, a refusal, a 404 and the bound.

The real REST v2 transport reads; nothing here asserts a duration, only what is stored for each pod.
"""

from __future__ import annotations

import asyncio
import json

from sagan_tui.core.sources.runpod_rest import RestV2Transport
from sagan_tui.core.sync.system_log import GONE, READ, UNREAD, read_system_logs
from tests.reliability.stub_server import Reply, Stream, StubServer
from tests.reliability.test_deadlines import HANG_GUARD_S, Trickle

PROMPT, STALLED, REFUSED, GONE_POD, LATE = "promptpod001", "stalledpod01", "refusedpod01", "gonepod00001", "latepod00001"


def _sse(*lines: tuple[str, str]) -> bytes:
    return "".join(f"id: {n}\ndata: {json.dumps({'timestamp': '2026-12-07T10:54:55Z', 'source': src, 'message': m})}\n\n"
                   for n, (src, m) in enumerate(lines, 1)).encode() + b"retry: 2000\n\n"


async def test_each_lost_pods_log_is_read_or_stored_as_not_read_with_why():
    queries = []

    def prompt(req, body):
        queries.append(dict(req.query_params))
        return Reply(_sse(("system", "Container started (1 GPU)"), ("container", "step 50: loss 0.4"),
                          ("system", "Pod terminated by Runpod (not requested by the account)")))

    with StubServer() as stub:
        stub.set(f"/v2/pods/{PROMPT}/logs", prompt)
        stub.set(f"/v2/pods/{STALLED}/logs", Stream(Trickle({})))  # never ends, never goes quiet
        stub.set(f"/v2/pods/{REFUSED}/logs", {"title": "Forbidden", "detail": "no logs for this key"}, 403)
        stub.set(f"/v2/pods/{GONE_POD}/logs", {"title": "Not Found", "detail": "pod not found"}, 404)
        t = RestV2Transport("team", "rk-team-stub", base_url=stub.base_url, timeout=60.0)
        try:
            got = await asyncio.wait_for(read_system_logs(t, [PROMPT, STALLED, REFUSED, GONE_POD, LATE], most=4,
                                                          budget_s=1.0), HANG_GUARD_S)
        finally:
            await t.aclose()
        asked = {path for _m, path, _k in stub.requests}
    by = {pod: (state, note, lines) for pod, state, note, lines in got}
    assert by[PROMPT] == (READ, None, [("2026-12-07T10:54:55Z", "Container started (1 GPU)"),
                                       ("2026-12-07T10:54:55Z", "Pod terminated by Runpod (not requested by the account)")])
    assert by[STALLED] == (UNREAD, "no answer within 1 s", [])
    assert by[REFUSED][0] == UNREAD and "no logs for this key" in by[REFUSED][1] and "403" in by[REFUSED][1]
    assert by[GONE_POD] == (GONE, "RunPod no longer serves its log (404)", [])
    assert by[LATE] == (UNREAD, "one poll reads at most 4 logs (a bound, and the account's rate limit)", [])
    assert f"/v2/pods/{LATE}/logs" not in asked  # past the bound: never asked
    assert queries == [{"tail": "20", "source": "system"}]  # a short tail of the host's lines only
