"""RunPod over its REST v2 API (httpx): the same interface, errors and guarantees as the GraphQL transport.

Routes and shapes follow RunPod's v2 OpenAPI (runpod/docs, api-reference-v2/openapi.json, and
the reference pages of 2026-11-18 for the balance and the audit log; tests/contracts/SOURCES.md):
`GET /v2/pods` -> `{"pods": [Pod]}` (cursor pages followed should it ever be paged: rest_pages.py),
`GET /v2/billing/balance` -> `{"balanceAmount", "billingMode"}` (scope billing:read),
`GET /v2/billing/pods` -> `{"records": [{podId, startTime, totalAmount, ...}], "metadata"}`,
`GET /v2/audit-logs` -> `{"items": [...], "pagination"}`, `GET /v2/pods/{id}` -> Pod,
`POST /v2/pods/{id}/action` `{"action": "start|stop|restart|terminate"}` -> Pod (204 for
terminate); errors are RFC 9457 problems `{"title", "status", "detail", "errors"?}`; every
authenticated reply carries `RateLimit: "minute";r=..;t=.., "hour";..., "day";...` and a 429
carries `Retry-After` (integer seconds).
"""

from __future__ import annotations

import asyncio
import functools
import json
import math
import time
from datetime import datetime
from typing import Any

import httpx

from sagan_tui.core.models import RunPodPod, parse_records
from sagan_tui.core.sources.bounded import LoopClient, bounded_request, bounded_stream, tls_context
from sagan_tui.core.collector_pause import collector_paused
from sagan_tui.core.sources.errors import (
    BadReply, RateLimited, RequestRejected, SourceError, for_status, parse_retry_after, scrub,
)
from sagan_tui.core.sources.rest_shapes import (  # noqa: F401 - STATUS_MAP and parse_rate_limit are read here by tests
    STATUS_MAP, RateWindow, _spent, flatten_rest_pod, gpu_load, lean_pods_page, map_status, parse_rate_limit,
)
from sagan_tui.core.sources.rest_evidence import BALANCE, Money, read_audit, read_billed, read_money
from sagan_tui.core.sources.rest_pages import read_pages
from sagan_tui.core.sources.runpod_base import AccountSnapshot, KeyedTransport, Unreadable, WaveEvidence, check_pod_id as _check_id, one_per_id

PODS = "/v2/pods"
# RunPod's reference does not say whether a pod's log stream ends after its tail (the simulator's
# does) or stays open to follow: a stream quiet this long has sent what it had.
LOG_QUIET_S = 0.5
# Instant Cluster members are left out of GET /v2/pods unless asked for: GPU pods all the same.
PODS_QUERY = {"includeClusterPods": "true"}
POD = "/v2/pods/{id}"
POD_ACTION = "/v2/pods/{id}/action"
GPU_CATALOG = "/v2/catalog/gpus"
COVERS_S = 60.0  # a prepaid balance covering less than this much of the running pods' spend is run out
# The balance is read at most this often (a read every poll would double REST v2's use of its
# rate window: 60 a minute in RunPod's published policy, a 2 s poll's whole quota), and at once
# whenever a pod RUNNING at the last poll is not RUNNING now: that reading judges the exit.
BALANCE_EVERY_S = 15.0

class RestV2Transport(KeyedTransport):
    """One RunPod account over REST v2. No retries here: the poller's per-source backoff owns that."""

    name = "rest-v2"

    def __init__(self, account: str, api_key: str, *, base_url: str, timeout: float = 10.0,
                 transport: httpx.AsyncBaseTransport | None = None, **bounds: Any):
        super().__init__(account, api_key, base_url=base_url, timeout=timeout, **bounds)
        self._client = LoopClient(lambda: httpx.AsyncClient(
            base_url=self.base_url, timeout=httpx.Timeout(timeout), transport=transport, verify=tls_context(),
            headers={"Authorization": f"Bearer {self._key}", "Accept": "application/json",
                     "User-Agent": "sagan-tui"}))
        # Debug view of the last RateLimit header, e.g. {"minute": RateWindow("minute", 57, 41.0)}.
        self.rate_limit: dict[str, RateWindow] = {}
        self._blocked_until = 0.0  # monotonic; set by an exhausted window or a 429
        self._gpu_names: dict[str, str] | None = None
        self._money: tuple[float, Money] | None = None  # (monotonic read time, the balance read)
        self._running: set[str] = set()  # pods RUNNING at the last snapshot
        self.balance_every_s = BALANCE_EVERY_S

    @property
    def rate_remaining(self) -> int | None:
        """Requests left in the tightest window of the last reply, or None if it sent none."""
        left = [w.remaining for w in self.rate_limit.values() if w.remaining is not None]
        return min(left) if left else None

    async def aclose(self) -> None:
        await self._client.aclose()

    # --- transport ---------------------------------------------------------------------

    async def _request(self, method: str, path: str, *, body: dict | None = None,
                       params: dict | None = None, headers: dict | None = None,
                       quiet_s: float | None = None) -> httpx.Response:
        where = f"{method} {path}"
        wait = self._blocked_until - time.monotonic()
        if wait > 0:
            # The last reply said a window is spent: a request now would only earn another 429.
            raise RateLimited(self.account, f"{where}: rate limit exhausted, not sent; retry in {math.ceil(wait)} s",
                              status=429, retry_after=float(math.ceil(wait)))
        # httpx times each read; this bounds the whole request (a trickling server) and its size.
        # `quiet_s`: a reply that may stay open (a log's event stream) ends when it goes quiet.
        read = bounded_request if quiet_s is None else functools.partial(bounded_stream, quiet_s=quiet_s)
        resp = await read(self._client.get(), method, path, source=self.account, where=f"REST {where}",
                          json=body, params=params, headers=headers, deadline_s=self.timeout,
                          max_bytes=self.max_reply_bytes)
        self._note_rate_limit(resp)
        if resp.status_code >= 400:
            raise self._error(where, resp)
        return resp

    def _note_rate_limit(self, resp: httpx.Response) -> None:
        windows = parse_rate_limit(resp.headers.get("ratelimit"))
        if windows:
            self.rate_limit = windows
        retry = parse_retry_after(resp.headers.get("retry-after")) if resp.status_code == 429 else None
        pause = max(_spent(windows) or 0.0, retry or 0.0)
        if pause > 0:
            self._blocked_until = max(self._blocked_until, time.monotonic() + pause)

    def _error(self, where: str, resp: httpx.Response) -> SourceError:
        status = resp.status_code
        message = f"{where}: HTTP {status}"
        try:
            problem = resp.json()
        except (ValueError, RecursionError):
            problem = None
        code = None
        if isinstance(problem, dict) and ("title" in problem or "detail" in problem):
            # An RFC 9457 problem is RunPod speaking; a bare 404 page is a wrong base URL.
            code = str(problem.get("title") or "problem")[:60]
            detail = problem.get("detail") or problem.get("title")
            if isinstance(detail, str) and detail:
                message += f": {detail[:300]}"
            errors = problem.get("errors")
            if isinstance(errors, list) and errors:
                message += " (" + "; ".join(str(e)[:120] for e in errors[:3]) + ")"
        elif isinstance(problem, dict) and isinstance(problem.get("message"), str):
            message += f": {problem['message'][:300]}"
        message = scrub(message, [self._key])
        if status == 401:
            message = f"RunPod rejected the API key (401): {message}"
        if status == 403:
            # for_status words it "key has no access to <this>": the key works, only not for this.
            message = f"{where} ({message.removeprefix(where + ': ')})"
        retry_after = parse_retry_after(resp.headers.get("retry-after"))
        if status == 429 and retry_after is None:
            retry_after = _spent(self.rate_limit)
        if status == 410:
            message = f"this RunPod API has been retired ({message})"
        return for_status(self.account, status, message, code=code, retry_after=retry_after)

    async def _json(self, method: str, path: str, **kw: Any) -> Any:
        return self._decoded(method, path, await self._request(method, path, **kw))

    def _decoded(self, method: str, path: str, resp: httpx.Response) -> Any:
        if resp.status_code == 204 or not resp.content:
            return None
        try:
            with collector_paused():
                return resp.json()
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError, RecursionError):
            raise BadReply(self.account,
                           f"{method} {path}: reply is not valid JSON ({len(resp.content)} bytes)") from None

    # --- reads -------------------------------------------------------------------------

    async def snapshot(self) -> AccountSnapshot:
        if self._money is None or time.monotonic() - self._money[0] >= self.balance_every_s:
            # The pods and the balance are asked for together: neither waits for the other's reply.
            money_read = asyncio.ensure_future(self._read_money())
            try:
                pods, skipped, incomplete, bad = await self._list_pods()
            except asyncio.CancelledError:
                money_read.cancel()
                raise
            except Exception:
                # No request outlives its snapshot (a spent rate window counts every one): the
                # balance read ends before the list's error is raised. It never raises itself.
                await money_read
                raise
            money = await money_read
        else:
            pods, skipped, incomplete, bad = await self._list_pods()
            now_running = {p.id for p in pods if p.desired_status == "RUNNING"}
            money = await self._read_money() if self._running - now_running else self._money[1]
        self._running = {p.id for p in pods if p.desired_status == "RUNNING"}
        running = [p.cost_per_hr for p in pods if p.desired_status == "RUNNING"]
        # REST v2 has no spend rate beside the pods: the running pods' `cost` is what is billed now.
        spend = round(sum(c for c in running if c is not None), 4) if pods or incomplete is None else None
        under = money.under_balance
        if under is False and money.balance is not None and spend:
            # RunPod stops a prepaid account's pods once its balance covers less than about 10 s
            # of their spend: a balance that covers under a minute is read as run out.
            under = money.balance < spend * COVERS_S / 3600
        pods, duplicates = one_per_id(pods)
        return AccountSnapshot(account=self.account, pods=pods, skipped=skipped, incomplete=incomplete,
                               duplicates=duplicates,
                               unreadable=bad.pods, unnamed=bad.unnamed, balance=money.balance, under_balance=under, spend_per_hr=spend,
                               balance_note=money.note, billing_mode=money.billing_mode)

    async def _list_pods(self) -> tuple[list[RunPodPod], list[str], str | None, Unreadable]:
        async def page(cursor: str | None) -> object:
            resp = await self._request("GET", PODS, params={**PODS_QUERY, **({"cursor": cursor} if cursor else {})})
            with collector_paused():
                lean = lean_pods_page(resp.content) if resp.status_code != 204 and resp.content else None
            return lean if lean is not None else self._decoded("GET", PODS, resp)

        try:
            listed = await read_pages(page, "pods", "GET /v2/pods",
                                      ident=lambda p: p.get("id") if isinstance(p, dict) else None)  # junk ids: rest_pages skips them
        except ValueError:
            # Never read a reply without a pod list as "no pods": that would be a fake wave.
            raise BadReply(self.account, "REST reply has no pods list") from None
        names = await self._catalog_names(listed.records)
        bad = Unreadable()
        with collector_paused():  # the pages' trees read into records (collector_pause.py)
            pods, skipped = parse_records(RunPodPod, [flatten_rest_pod(p, self.account, names)
                                                      for p in listed.records], "pods", bad)
            del listed.records  # the decoded trees go now, whole, by reference counting
        return pods, skipped, listed.incomplete, bad

    async def _read_money(self) -> Money:
        money = await self.money()
        self._money = (time.monotonic(), money)
        return money

    async def money(self) -> Money:
        """The balance and billing mode; never raises (a key without billing:read still lists pods)."""
        try:
            data = await self._json("GET", BALANCE)
        except SourceError as exc:
            return Money.unread(exc)
        return read_money(data)

    async def wave_evidence(self, pod_ids: list[str], start: datetime, end: datetime) -> WaveEvidence:
        """RunPod's billed amounts and audit entries for lost pods over [start, end]: one billing
        read and one audit-log read (its pages), whatever the number of pods. Never raises."""
        billed, billed_note = await read_billed(self._json, pod_ids, start, end)
        audit, audit_note = await read_audit(self._json, pod_ids, start, end)
        return WaveEvidence(billed, billed_note, audit, audit_note)

    async def audit_entries(self, pod_ids: list[str], start: datetime, end: datetime):  # noqa: ANN201
        """The audit log's stops and terminates of these pods, or None when it cannot be read."""
        return (await read_audit(self._json, pod_ids, start, end))[0]

    async def _pod_record(self, pod_id: str) -> Any:
        """The v2 Pod as served, or None once RunPod says it does not know it (a problem 404)."""
        _check_id(pod_id)
        try:
            return await self._json("GET", POD.format(id=pod_id))
        except RequestRejected as exc:
            if exc.status == 404 and exc.code is not None:
                return None
            raise

    async def get_pod(self, pod_id: str) -> RunPodPod | None:
        data = await self._pod_record(pod_id)
        if data is None:
            return None
        if not isinstance(data, dict):
            raise BadReply(self.account, f"GET {POD}: reply is not a pod object")
        names = await self._catalog_names([data])
        return RunPodPod.model_validate(flatten_rest_pod(data, self.account, names))

    async def pod_gpus(self, pod_id: str) -> tuple[tuple[int | None, int | None], ...] | None:
        """(util, memoryUtil) per GPU from the pod record's runtime (empty while it does not run),
        or None once RunPod no longer knows the pod."""
        data = await self._pod_record(pod_id)
        return None if data is None else gpu_load(data)

    async def pod_log(self, pod_id: str, last_event_id: str | None, tail: int, source: str | None = None) -> str:
        """The pod's log since `last_event_id` (else its last `tail` lines), of one `source` when
        given (`system`: the host's lifecycle), as server-sent events text; parsing and cleaning
        are pod_log.py's."""
        _check_id(pod_id)
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = last_event_id
        params: dict[str, Any] = {"tail": tail} if source is None else {"tail": tail, "source": source}
        resp = await self._request("GET", f"{PODS}/{pod_id}/logs", params=params, headers=headers,
                                   quiet_s=LOG_QUIET_S)
        return resp.content.decode("utf-8", "replace")

    async def _catalog_names(self, pods: list[Any]) -> dict[str, str]:
        """GPU type id -> display name, read once from the catalog; best effort.

        GraphQL accounts show "A100 80GB PCIe", v2 pods name "NVIDIA A100 80GB PCIe": without this
        one incident would split into two GPU rows of the heatmap when accounts use both APIs.
        """
        wanted = {p["gpu"]["id"] for p in pods if isinstance(p, dict) and isinstance(p.get("gpu"), dict)
                  and isinstance(p["gpu"].get("id"), str)}
        if not wanted or (self._gpu_names is not None and wanted <= self._gpu_names.keys()):
            return self._gpu_names or {}
        try:
            data = await self._json("GET", GPU_CATALOG)
        except SourceError:
            return self._gpu_names or {}  # names are a nicety; the pods are what matter
        gpus = data.get("gpus") if isinstance(data, dict) else None
        names = dict(self._gpu_names or {})
        for g in gpus if isinstance(gpus, list) else []:
            if isinstance(g, dict) and isinstance(g.get("id"), str) and isinstance(g.get("name"), str):
                names[g["id"]] = g["name"]
        # Remember ids the catalog lacks too, so an unknown GPU costs one catalog read, not one per poll.
        self._gpu_names = {**{i: i for i in wanted}, **names}
        return self._gpu_names

    # --- mutations ---------------------------------------------------------------------
    # Replies keep GraphQL's envelope ({"data": {"podStop": {...}}}): it is what callers of the
    # RunPodTransport interface read, whichever API carried the request.

    async def _action(self, pod_id: str, action: str, mutation: str) -> dict[str, Any]:
        _check_id(pod_id)
        data = await self._json("POST", POD_ACTION.format(id=pod_id), body={"action": action})
        if data is None:
            return {"data": {mutation: None}}
        if not isinstance(data, dict):
            raise BadReply(self.account, f"{action}: reply is not a pod object")
        return {"data": {mutation: {"id": data.get("id", pod_id), "desiredStatus": map_status(data.get("status"))}}}

    async def stop(self, pod_id: str) -> dict[str, Any]:
        return await self._action(pod_id, "stop", "podStop")

    async def resume(self, pod_id: str, gpu_count: int = 1) -> dict[str, Any]:
        # v2 `start` resumes onto the same machine with the pod's own GPU count: nothing to pass.
        return await self._action(pod_id, "start", "podResume")

    async def terminate(self, pod_id: str) -> dict[str, Any]:
        return await self._action(pod_id, "terminate", "podTerminate")
