"""RunPod over its GraphQL API through the `runpod` SDK, one key per account passed per call."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

from sagan_tui.models import RunPodPod, parse_records
from sagan_tui.sources.errors import (
    ApiRetired, AuthError, BadReply, RequestRejected, SourceError, SourceTimeout, Unreachable,
    for_status, parse_retry_after, scrub,
)
from sagan_tui.sources.runpod_base import AccountSnapshot, KeyedTransport, check_pod_id as _check_id, float_or_none

# The SDK's default pod query lacks what triage needs (data center, runtime uptime, adjusted
# cost), and the balance lives on `myself`: one query reads both in one round trip.
POD_FIELDS = """
            id name desiredStatus lastStatusChange uptimeSeconds costPerHr adjustedCostPerHr
            gpuCount podType imageName machineId
            machine { gpuDisplayName dataCenterId podHostId }
            runtime { uptimeInSeconds }
"""
ACCOUNT_QUERY = "query saganTuiAccount { myself { clientBalance currentSpendPerHr spendLimit underBalance pods {%s} } }" % POD_FIELDS
POD_QUERY = 'query saganTuiPod { pod(input: {podId: "%s"}) {%s} }'

_executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="runpod")
_local = threading.local()
_sdk_lock = threading.Lock()
_sdk: Any = None


class _StrictRequests:
    """Stands in for `requests` inside runpod.api.graphql.

    The SDK hard-codes a 30 s timeout and reads every reply as JSON without looking at the
    status, so a 429, a 5xx, a 410 or a truncated body would surface as a confusing
    JSONDecodeError. This shim applies our timeout and raises a typed error per status
    before the SDK parses anything; a 2xx reply goes through untouched.
    """

    def __init__(self, real: Any):
        self._real = real
        self._session = real.Session()

    def post(self, url: str, headers: dict, data: str, timeout: float = 30) -> Any:
        source = getattr(_local, "source", None)
        if source is None:
            # Not one of our calls (another user of the SDK in this process): plain requests.
            return self._real.post(url, headers=headers, data=data, timeout=timeout)
        our_timeout = getattr(_local, "timeout", timeout)
        # The SDK builds the URL from a process-wide environment variable: two accounts polled
        # at once from two threads could each read the other's. The transport's own base wins.
        url = f"{_local.base_url}/graphql"
        try:
            resp = self._session.post(url, headers=headers, data=data, timeout=our_timeout)
        except self._real.Timeout:
            raise SourceTimeout(source, f"GraphQL request timed out after {our_timeout:g} s") from None
        except self._real.RequestException as exc:
            raise Unreachable(source, f"GraphQL request failed: {type(exc).__name__}") from None
        if resp.status_code >= 400:
            message = f"GraphQL HTTP {resp.status_code}"
            try:
                errors = resp.json().get("errors") or []
                if errors and isinstance(errors[0], dict) and errors[0].get("message"):
                    # A server may quote the credentials back: mask them before they are in any text.
                    message += f": {scrub(str(errors[0]['message']), [headers.get('Authorization', '')[7:]])}"
            except (ValueError, AttributeError, RecursionError):
                pass
            if resp.status_code == 410:
                raise ApiRetired(source, f"this RunPod API has been retired; switch account {source} to rest-v2 ({message})",
                                 status=410)
            raise for_status(source, resp.status_code, message,
                             retry_after=parse_retry_after(resp.headers.get("retry-after")))
        try:
            body = resp.json()
        except (ValueError, RecursionError):
            raise BadReply(source, f"GraphQL reply is not valid JSON ({len(resp.content)} bytes)") from None
        # The SDK indexes into the reply without looking (`"errors" in body`, `errors[0]["message"]`):
        # anything but an object, or errors not shaped as GraphQL's, would escape as a TypeError.
        if not isinstance(body, dict):
            raise BadReply(source, f"GraphQL reply is not a JSON object ({type(body).__name__})")
        errors = body.get("errors", [{"message": ""}])
        if not (isinstance(errors, list) and errors and isinstance(errors[0], dict)
                and isinstance(errors[0].get("message"), str)):
            raise BadReply(source, "GraphQL reply has a malformed errors list")
        # The SDK calls resp.json() twice more (once to look for errors, once to return it):
        # decoding a 1,000-pod reply three times was a tenth of a poll cycle's CPU.
        resp.json = lambda **_: body
        return resp


def _load_sdk() -> Any:
    """Import the SDK (about 2 s) on first use, off the event loop, and fit the shim once."""
    global _sdk
    with _sdk_lock:
        if _sdk is None:
            import logging

            import requests

            root = logging.getLogger()
            handlers, level = list(root.handlers), root.level
            import runpod.api.graphql as gql
            import runpod.api.mutations.pods as mutations
            import runpod.error as rp_error

            # `import runpod` hangs a stderr handler at INFO on the root logger: every httpx
            # request would then be printed over the panel's screen. Undo it.
            root.handlers[:] = handlers
            root.setLevel(level)
            if not isinstance(gql.requests, _StrictRequests):
                gql.requests = _StrictRequests(requests)
            _sdk = type("SDK", (), {"run": staticmethod(gql.run_graphql_query), "mutations": mutations,
                                    "error": rp_error})
    return _sdk


class GraphQLTransport(KeyedTransport):
    """One RunPod account over GraphQL. Every call runs in a worker thread (the SDK blocks)."""

    name = "graphql"

    async def aclose(self) -> None:
        return None

    def _call(self, query: str) -> dict[str, Any]:
        sdk = _load_sdk()
        _local.source, _local.timeout, _local.base_url = self.account, self.timeout, self.base_url
        try:
            return sdk.run(query, api_key=self._key)
        except SourceError as exc:
            exc.message = scrub(exc.message, [self._key])
            raise
        except sdk.error.AuthenticationError:
            raise AuthError(self.account, "RunPod rejected the API key (401)", status=401) from None
        except sdk.error.QueryError as exc:
            raise RequestRejected(self.account, f"GraphQL error: {scrub(str(exc.args[0] if exc.args else exc), [self._key])}") from None
        except (json.JSONDecodeError, ValueError) as exc:
            raise BadReply(self.account, f"GraphQL reply unreadable: {type(exc).__name__}") from None
        finally:
            _local.source = None

    async def _run(self, fn: Callable[[], Any]) -> Any:
        loop = asyncio.get_running_loop()
        try:
            # The shim times the request out; this bound catches a stuck thread as well.
            return await asyncio.wait_for(loop.run_in_executor(_executor, fn), self.timeout + 5)
        except asyncio.TimeoutError:
            raise SourceTimeout(self.account, f"no reply within {self.timeout:g} s") from None

    async def snapshot(self) -> AccountSnapshot:
        data = await self._run(lambda: self._call(ACCOUNT_QUERY))
        myself = _field(_field(data, "data"), "myself")
        if not isinstance(myself, dict) or not isinstance(myself.get("pods"), list):
            # Never read a reply without a pod list as "no pods": that would be a fake wave.
            raise BadReply(self.account, "GraphQL reply has no myself.pods list")
        pods, skipped = parse_records(RunPodPod, [flatten_pod(p, self.account) for p in myself["pods"]], "pods")
        return AccountSnapshot(
            account=self.account, pods=pods, skipped=skipped,
            balance=float_or_none(myself.get("clientBalance")),
            spend_per_hr=float_or_none(myself.get("currentSpendPerHr")),
            spend_limit=float_or_none(myself.get("spendLimit")),
            under_balance=myself.get("underBalance") if isinstance(myself.get("underBalance"), bool) else None,
        )

    async def get_pod(self, pod_id: str) -> RunPodPod | None:
        _check_id(pod_id)
        data = await self._run(lambda: self._call(POD_QUERY % (pod_id, POD_FIELDS)))
        pod = _field(_field(data, "data"), "pod")
        if pod is None:
            return None
        try:
            return RunPodPod.model_validate(flatten_pod(pod, self.account))
        except ValueError:  # pydantic's ValidationError: the pod is there, its record unreadable
            raise BadReply(self.account, f"GraphQL pod {pod_id}: record unreadable") from None

    async def stop(self, pod_id: str) -> dict[str, Any]:
        _check_id(pod_id)
        return await self._run(lambda: self._call(_load_sdk().mutations.generate_pod_stop_mutation(pod_id)))

    async def resume(self, pod_id: str, gpu_count: int = 1) -> dict[str, Any]:
        _check_id(pod_id)
        n = int(gpu_count)
        return await self._run(lambda: self._call(_load_sdk().mutations.generate_pod_resume_mutation(pod_id, n)))

    async def terminate(self, pod_id: str) -> dict[str, Any]:
        _check_id(pod_id)
        return await self._run(lambda: self._call(_load_sdk().mutations.generate_pod_terminate_mutation(pod_id)))


def _field(obj: Any, name: str) -> Any:
    """obj[name] when obj is an object; None for anything else a hostile reply may hold there."""
    return obj.get(name) if isinstance(obj, dict) else None


def flatten_pod(raw: Any, account: str) -> Any:
    """GraphQL's nested pod into RunPodPod's flat fields; anything not a dict is left to fail validation."""
    if not isinstance(raw, dict):
        return raw
    machine = raw.get("machine") if isinstance(raw.get("machine"), dict) else {}
    runtime = raw.get("runtime") if isinstance(raw.get("runtime"), dict) else None
    return {
        "id": raw.get("id"), "account": account, "name": raw.get("name"),
        "desiredStatus": raw.get("desiredStatus") or "RUNNING",
        "lastStatusChange": raw.get("lastStatusChange"),
        "uptimeSeconds": (runtime or {}).get("uptimeInSeconds"),
        "costPerHr": raw.get("costPerHr"), "adjustedCostPerHr": raw.get("adjustedCostPerHr"),
        "gpuCount": raw.get("gpuCount"), "gpu": machine.get("gpuDisplayName"),
        "datacenter": machine.get("dataCenterId"), "podType": raw.get("podType"),
        "imageName": raw.get("imageName"), "machineId": raw.get("machineId"),
        "host": machine.get("podHostId") if isinstance(machine.get("podHostId"), str) else None,
        "hasRuntime": runtime is not None,
    }
