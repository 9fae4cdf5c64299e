"""Sagan's HTTP API as DESIGN.md fixes it: one handler per route, JSON in, (status, JSON) out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Mapping

from sagan_tui.core.models import as_utc
from sagan_tui.core.sources import routes

from . import actions
from .actions import ActionError
from .state import SimState

VERSION = "sagan-sim 1"
EVENTS_DEFAULT_LIMIT, EVENTS_MAX_LIMIT = 500, 5000


@dataclass
class Call:
    """One request as a handler sees it."""

    params: Mapping[str, str]
    query: Mapping[str, str]
    body: Any
    t: float


Reply = tuple[int, dict[str, Any]]
Handler = Callable[[SimState, Call], Reply]


def _number(call: Call) -> int:
    try:
        return int(call.params["number"].lstrip("#"))
    except ValueError:
        raise ActionError(404, "not_found", f"Experiment {call.params['number']!r} not found") from None


def _since(call: Call, name: str) -> datetime | None:
    text = call.query.get(name)
    if not text:
        return None
    try:
        value = datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "+"))
    except ValueError:
        raise ActionError(400, "bad_request", f"{name} must be an ISO 8601 time, got {text!r}") from None
    return as_utc(value)  # naive times on the wire are UTC


def _body(call: Call) -> dict[str, Any]:
    if call.body is None:
        return {}
    if not isinstance(call.body, dict):
        raise ActionError(400, "bad_request", "the body must be a JSON object")
    return call.body


def _text(body: dict[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is not None and not isinstance(value, str):
        raise ActionError(400, "bad_request", f"{name} must be text")
    return value


def health(state: SimState, call: Call) -> Reply:
    return 200, {"ok": True, "version": VERSION, "scenario": state.name}


def list_experiments(state: SimState, call: Call) -> Reply:
    since = _since(call, "updatedSince")
    return 200, {"experiments": [state.experiment_dump(e, call.t, full=False)
                                 for e in state.experiments_updated(call.t, since)]}


def view_experiment(state: SimState, call: Call) -> Reply:
    n = _number(call)
    exp = actions.experiment(state, n)
    events = [state.event_dump(e) for e in reversed(state.events_for(n, call.t))]  # newest first
    return 200, {"experiment": state.experiment_dump(exp, call.t), "events": events,
                 "approvalRequests": [state.approval_dump(a) for a in state.approvals_at(call.t, experiment=n)]}


def set_status(state: SimState, call: Call) -> Reply:
    body = _body(call)
    exp = actions.set_status(state, _number(call), body.get("status"), _text(body, "note"), call.t)
    dumped = state.experiment_dump(exp, call.t)
    return 200, {"experiment": {k: dumped[k] for k in ("id", "status", "title", "turn")}, "ok": True}


def post_marker(state: SimState, call: Call) -> Reply:
    body = _body(call)
    metadata = body.get("metadata")
    if body.get("verdict") is not None:  # sagan_state.py's --verdict travels with the marker
        metadata = {**(metadata if isinstance(metadata, dict) else {}), "verdict": body["verdict"]}
    event_id = actions.post_marker(state, _number(call), body.get("marker"), _text(body, "note"), metadata, call.t)
    return 200, {"id": event_id, "ok": True}


def launch_pod(state: SimState, call: Call) -> Reply:
    run_id, _pod = actions.launch_pod(state, _number(call), _text(_body(call), "note"), call.t)
    return 200, {"ok": True, "agentRunId": run_id}


def promote(state: SimState, call: Call) -> Reply:
    _body(call)
    return 200, {"ok": True, "status": actions.promote(state, _number(call), call.t)}


def events(state: SimState, call: Call) -> Reply:
    try:
        limit = int(call.query.get("limit") or EVENTS_DEFAULT_LIMIT)
    except ValueError:
        raise ActionError(400, "bad_request", "limit must be a whole number") from None
    limit = max(1, min(limit, EVENTS_MAX_LIMIT))
    return 200, {"events": state.events_between(call.t, _since(call, "since"), limit)}


def approvals(state: SimState, call: Call) -> Reply:
    found = state.approvals_at(call.t, status=call.query.get("status") or None)
    return 200, {"approvalRequests": [state.approval_dump(a) for a in found]}


def decide(state: SimState, call: Call) -> Reply:
    body = _body(call)
    a = actions.decide(state, call.params["id"], body.get("decision"), body.get("textboxAnswers"),
                       _text(body, "note"), call.t)
    return 200, {"approvalRequest": state.approval_dump(a), "ok": True}


def pods(state: SimState, call: Call) -> Reply:
    return 200, {"pods": state.pod_rows(call.t, _since(call, "updatedSince"))}


ROUTES: list[tuple[str, str, Handler]] = [
    (routes.HEALTH, "GET", health),
    (routes.EXPERIMENTS, "GET", list_experiments),
    (routes.EXPERIMENT, "GET", view_experiment),
    (routes.STATUS, "POST", set_status),
    (routes.MARKERS, "POST", post_marker),
    (routes.LAUNCH_POD, "POST", launch_pod),
    (routes.PROMOTE, "POST", promote),
    (routes.EVENTS, "GET", events),
    (routes.APPROVALS, "GET", approvals),
    (routes.DECISION, "POST", decide),
    (routes.PODS, "GET", pods),
]


def answer(state: SimState, handler: Handler, call: Call) -> Reply:
    """Run a handler under the state lock; refused actions become Sagan's error replies."""
    try:
        with state.lock:
            return handler(state, call)
    except ActionError as exc:
        return exc.status, {"error": exc.code, "message": exc.message}
