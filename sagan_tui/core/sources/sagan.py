"""Sagan's HTTP API over one httpx.AsyncClient: every route of DESIGN.md, typed replies and errors."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Collection
from urllib.parse import quote

import httpx

from sagan_tui.core.models import (
    ApprovalRequest, Experiment, PodLifecycle, WorkflowEvent, iso, parse_records,
)
from sagan_tui.core.sources import routes
from sagan_tui.core.sources.bounded import DEFAULT_MAX_REPLY_BYTES, LoopClient, bounded_request, tls_context
from sagan_tui.core.sources.errors import (
    BadReply, RateLimited, ServerError, SourceError, SourceTimeout, Unreachable, for_status,
    parse_retry_after, scrub,
)

log = logging.getLogger(__name__)
SOURCE = "sagan"


@dataclass
class Listing:
    """Records of one reply that validated, and a reason for each that did not."""

    items: list[Any]
    skipped: list[str] = field(default_factory=list)
    held: int = 0  # records left unread because the caller holds them already (`events(known=...)`)


@dataclass
class ExperimentView:
    experiment: Experiment
    events: list[WorkflowEvent]
    approval_requests: list[ApprovalRequest]
    skipped: list[str] = field(default_factory=list)


class SaganClient:
    """One client per app. GETs retry on timeouts, 5xx and 429; mutations are sent once."""

    def __init__(self, base_url: str, token: str | None, *, timeout: float = 10.0, retries: int = 2,
                 transport: httpx.AsyncBaseTransport | None = None, max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES):
        self._token = token or ""
        self.timeout = timeout  # each try's whole deadline, not only each read's
        self.max_reply_bytes = max_reply_bytes
        headers = {"Accept": "application/json", "User-Agent": "sagan-tui"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        self._client = LoopClient(lambda: httpx.AsyncClient(base_url=base_url.rstrip("/"), headers=headers,
                                                            timeout=httpx.Timeout(timeout), transport=transport,
                                                            verify=tls_context()))
        self.retries = retries

    async def aclose(self) -> None:
        await self._client.aclose()

    async def __aenter__(self) -> "SaganClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- transport ---------------------------------------------------------------------

    async def _request(self, method: str, route: str, *, params: dict | None = None,
                       body: dict | None = None) -> Any:
        attempts = 1 + (self.retries if method == "GET" else 0)
        for attempt in range(attempts):
            try:
                return await self._once(method, route, params, body)
            except (SourceTimeout, ServerError, RateLimited, Unreachable) as exc:
                if attempt + 1 >= attempts:
                    raise
                delay = exc.retry_after if exc.retry_after is not None else 0.25 * 2 ** attempt
                await asyncio.sleep(min(delay, 5.0) + random.uniform(0, 0.1))
        raise AssertionError("unreachable")

    async def _once(self, method: str, route: str, params: dict | None, body: dict | None) -> Any:
        where = f"{method} {route}"
        resp = await bounded_request(self._client.get(), method, route, source=SOURCE, where=where, params=params,
                                     json=body, deadline_s=self.timeout, max_bytes=self.max_reply_bytes)
        try:
            data = resp.json()
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError, RecursionError):
            if resp.status_code >= 400:
                raise for_status(SOURCE, resp.status_code, f"{where}: HTTP {resp.status_code}",
                                 retry_after=parse_retry_after(resp.headers.get("retry-after"))) from None
            raise BadReply(SOURCE, f"{where}: reply is not valid JSON ({len(resp.content)} bytes)") from None
        if resp.status_code >= 400:
            code = data.get("error") if isinstance(data, dict) else None
            msg = data.get("message") if isinstance(data, dict) else None
            text = f"{where}: HTTP {resp.status_code}" + (f" {code}" if code else "") + (f": {msg}" if msg else "")
            raise for_status(SOURCE, resp.status_code, self._scrub(text), code=str(code) if code else None,
                             retry_after=parse_retry_after(resp.headers.get("retry-after")))
        if not isinstance(data, dict):
            raise BadReply(SOURCE, f"{where}: expected a JSON object, got {type(data).__name__}")
        return data

    def _scrub(self, text: str) -> str:
        return scrub(text, [self._token])

    # --- reads -------------------------------------------------------------------------

    async def health(self) -> dict[str, Any]:
        return await self._request("GET", routes.HEALTH)

    async def experiments(self, updated_since: datetime | None = None) -> Listing:
        params = {"updatedSince": iso(updated_since)} if updated_since else None
        data = await self._request("GET", routes.EXPERIMENTS, params=params)
        return Listing(*parse_records(Experiment, data.get("experiments"), "experiments"))

    async def view(self, number: int) -> ExperimentView:
        data = await self._request("GET", routes.EXPERIMENT.format(number=int(number)))
        try:
            exp = Experiment.model_validate(data.get("experiment"))
        except Exception as exc:
            raise BadReply(SOURCE, f"view #{number}: experiment record invalid ({type(exc).__name__})") from None
        events, bad_e = parse_records(WorkflowEvent, data.get("events", []), "events")
        approvals, bad_a = parse_records(ApprovalRequest, data.get("approvalRequests", []), "approvalRequests")
        for e in events:
            e.experiment_number = e.experiment_number or exp.number
        for a in approvals:
            a.experiment_number = a.experiment_number or exp.number
        return ExperimentView(exp, events, approvals, bad_e + bad_a)

    async def events(self, since: datetime | None = None, limit: int = 500,
                     known: Collection[str] = frozenset()) -> Listing:
        """The feed from `since` (inclusive), oldest first. Records whose id is in `known` are
        counted in `held` and not validated: a poll re-reads the events at its cursor's instant
        (thousands when a fleet started at once), and validating them again was most of its CPU."""
        params: dict[str, Any] = {"limit": limit}
        if since:
            params["since"] = iso(since)
        data = await self._request("GET", routes.EVENTS, params=params)
        raw = data.get("events")
        held = 0
        if known and isinstance(raw, list):
            fresh = [r for r in raw if not (isinstance(r, dict) and isinstance(r.get("id"), str) and r["id"] in known)]
            raw, held = fresh, len(raw) - len(fresh)
        return Listing(*parse_records(WorkflowEvent, raw, "events"), held=held)

    async def approvals(self, status: str = "pending") -> Listing:
        data = await self._request("GET", routes.APPROVALS, params={"status": status})
        return Listing(*parse_records(ApprovalRequest, data.get("approvalRequests"), "approvalRequests"))

    async def pods(self, updated_since: datetime | None = None) -> Listing:
        params = {"updatedSince": iso(updated_since)} if updated_since else None
        data = await self._request("GET", routes.PODS, params=params)
        return Listing(*parse_records(PodLifecycle, data.get("pods"), "pods"))

    # --- mutations (sent once, never retried: the owner decides whether to try again) ---

    async def set_status(self, number: int, status: str, note: str = "") -> dict[str, Any]:
        return await self._request("POST", routes.STATUS.format(number=int(number)),
                                   body={"status": status, "note": note})

    async def marker(self, number: int, marker: str, note: str = "", metadata: dict | None = None) -> dict[str, Any]:
        return await self._request("POST", routes.MARKERS.format(number=int(number)),
                                   body={"marker": marker, "note": note, "metadata": metadata or {}})

    async def launch_pod(self, number: int, note: str = "") -> dict[str, Any]:
        return await self._request("POST", routes.LAUNCH_POD.format(number=int(number)), body={"note": note})

    async def promote(self, number: int) -> dict[str, Any]:
        return await self._request("POST", routes.PROMOTE.format(number=int(number)), body={})

    async def decide(self, request_id: str, decision: str, textbox_answers: dict[str, str] | None = None,
                     note: str = "") -> dict[str, Any]:
        if decision not in ("approve", "reject", "defer"):
            raise ValueError(f"decision must be approve, reject or defer, not {decision!r}")
        rid = quote(str(request_id), safe="")  # never let an id rewrite the path
        return await self._request("POST", routes.DECISION.format(id=rid),
                                   body={"decision": decision, "textboxAnswers": textbox_answers or {},
                                         "note": note})


__all__ = ["SaganClient", "Listing", "ExperimentView", "SourceError"]
