"""A simulated pod's log as REST v2 serves it (`GET /v2/pods/{id}/logs`, server-sent events).

RunPod's v2 reference names the route, `source=system` for the host's lifecycle, `tail` (at most
5,000 lines) and resumption by `Last-Event-ID`; no stored copy of its schema names the event's
fields, so each event here is `id: <n>` and `data: {"timestamp", "source", "message"}`. The lines
are retold from the pod's RunPod timeline, so they agree with what both APIs served at each
moment: creation, start, and how it ended (the reaper's stop, a host failure, a balance stop, an
owner's stop or terminate). A container line comes every 10 s while it runs. A gone pod's log is
still served (the panel reads it as evidence of how the pod ended); an id never created is 404.
The stream ends after the lines so far with `retry:`; a client resumes with `Last-Event-ID`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Iterator

from starlette.responses import Response

from sagan_tui.core.models import iso

from .balance_stop import EXIT_REASON, zero_from
from .ids import stable_int

if TYPE_CHECKING:
    from .pods import SimPod
    from .state import SimState

MAX_TAIL = 5000  # RunPod's documented limit of `tail`
CONTAINER_EVERY_S = 10  # scenario seconds between made-up container lines
FIXTURE_EVERY_S = 5  # scenario seconds between a fixture's own container lines
RETRY_MS = 2000  # the `retry:` the stream ends with
SOURCES = ("system", "container")

Line = tuple[float, str, str]  # (scenario time, source, message)


def pod_log(pod: "SimPod", state: "SimState", t: float) -> list[Line]:
    """Every line of the pod's log up to t, oldest first: positions are stable as t grows."""
    lines: list[Line] = []
    running_since: float | None = None
    for at, fields in pod.runpod.updates(t):
        if running_since is not None and ("status" in fields or fields.get("gone")):
            lines += _container(pod, running_since, at)
            running_since = None
        lines += _system(pod, state, at, fields)
        if fields.get("status") == "RUNNING":
            running_since = at
    if running_since is not None:
        lines += _container(pod, running_since, t)
    return lines


def _system(pod: "SimPod", state: "SimState", at: float, fields: dict[str, Any]) -> list[Line]:
    s = pod.spec
    status = fields.get("status")
    if status == "CREATED":
        return [(at, "system", f"Pod {s.id} created on host {pod.machine()['podHostId']}"),
                (at, "system", f"Pulling image {s.image_name}")]
    if status == "RUNNING":
        return [(at, "system", "Starting container"), (at, "system", f"Container started ({s.gpu_count} GPU)")]
    if status == "EXITED":
        return [(at, "system", f"Container stopped: {_reason(fields.get('reason'))}")]
    if fields.get("gone"):
        return [(at, "system", _gone(pod, state, at))]
    return []


def _reason(reason: Any) -> str:
    return reason[0] if isinstance(reason, tuple) else str(reason or "stopped")


def _gone(pod: "SimPod", state: "SimState", at: float) -> str:
    """Why a pod left its account, as far as the simulated platform knows it."""
    s = pod.spec
    if s.lost_at is None or abs(at - s.lost_at) > 1e-6:
        return "Pod terminated by request"
    if s.terminated_by is not None:
        return f"Pod terminated by request of {s.terminated_by.actor}"
    zero = zero_from(state.accounts.get(s.account))
    if zero is not None and zero <= at:
        return f"Pod terminated by Runpod: {EXIT_REASON.split(': ', 1)[1]}"
    if s.host is not None and any(p is not pod and p.spec.host == s.host and p.spec.lost_at is not None
                                  and abs(p.spec.lost_at - at) <= 30 for p in state.pods.values()):
        return f"Host {s.host} stopped responding; pod terminated"
    return "Pod terminated by Runpod (not requested by the account)"


def _container(pod: "SimPod", start: float, end: float) -> Iterator[Line]:
    own = pod.spec.log_lines
    step = FIXTURE_EVERY_S if own is not None else CONTAINER_EVERY_S
    n = 1
    while start + n * step <= end and (own is None or n <= len(own)):
        at = start + n * step
        if own is not None:
            yield at, "container", own[n - 1]
        else:
            loss = stable_int(100, 900, "loss", pod.spec.id, n) / 1000
            yield at, "container", f"step {n * 50}: loss {loss:.3f}"
        n += 1


def logs_response(state: "SimState", pod: "SimPod", params: dict[str, str], last_id: str | None,
                  t: float) -> Response | None:
    """The SSE reply, or None when a parameter is wrong (the caller answers 422)."""
    source = params.get("source")
    tail = params.get("tail", "100")
    if (source is not None and source not in SOURCES) or not tail.isdigit() or not 0 < int(tail) <= MAX_TAIL:
        return None
    numbered = list(enumerate(pod_log(pod, state, t), start=1))
    if last_id is not None and last_id.isdigit():
        numbered = [(n, line) for n, line in numbered if n > int(last_id)]
    if source is not None:
        numbered = [(n, line) for n, line in numbered if line[1] == source]
    if last_id is None:
        numbered = numbered[-int(tail):]
    clock = state.clock
    body = "".join(f"id: {n}\ndata: {json.dumps({'timestamp': iso(clock.at(at)), 'source': src, 'message': msg})}\n\n"
                   for n, (at, src, msg) in numbered)
    return Response(body + f"retry: {RETRY_MS}\n\n", media_type="text/event-stream",
                    headers={"Cache-Control": "no-cache"})
