"""RunPod over its GraphQL API through the `runpod` SDK, one key per account passed per call."""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from types import ModuleType
from typing import Any, Callable

from sagan_tui.core.models import RunPodPod, parse_records
from sagan_tui.core.collector_pause import collector_paused
from sagan_tui.core.sources.errors import AuthError, BadReply, RequestRejected, SourceError, SourceTimeout, scrub
from sagan_tui.core.sources.graphql_errors import PodNotFound
from sagan_tui.core.sources.graphql_shim import StrictRequests, local as _local
from sagan_tui.core.sources.runpod_base import (
    AccountSnapshot, KeyedTransport, Unreadable, check_pod_id as _check_id, float_or_none, one_per_id,
)

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
# The money, for the `auto` transport (pods come over REST v2 there), and each pod's machine and
# last status change: REST v2 names neither, and a shared machine is the evidence of a host
# failure, "Exited by Runpod" that of a pod reaped while still listed.
BALANCE_QUERY = ("query saganTuiBalance { myself { clientBalance currentSpendPerHr spendLimit underBalance"
                 " pods { id lastStatusChange machine { podHostId } } } }")

_executor = ThreadPoolExecutor(max_workers=8, thread_name_prefix="runpod")
_sdk_lock = threading.Lock()
_sdk: Any = None


class _SDKPackage(ModuleType):
    """The `runpod` package without its `__init__` until something asks for more than its parts.

    The SDK's `__init__` imports its serverless worker, its CLI, SSH (paramiko, cryptography) and
    aiohttp: about 550 modules and 40 MB resident in every process that polls, for a GraphQL call
    that needs `requests` alone. It also reads `~/.runpod`'s credentials into the process-wide
    key, which this tool never uses (one key per account, passed per call). So the package
    module stands in with the SDK's own path, `api_key` None, and no code run; the modules used
    (`api.graphql`, `api.mutations.pods`, `error`) import as usual beneath it. Any other name
    asked of it (code that wants the whole SDK in the same process) runs the real `__init__`
    into this module first, so `import runpod; runpod.get_pods` still works."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or self.__dict__.get("_sagan_loaded"):
            raise AttributeError(name)
        if importlib.util.find_spec(f"runpod.{name}") is not None:  # `from runpod import error`
            return importlib.import_module(f"runpod.{name}")
        self.__dict__["_sagan_loaded"] = True
        self.__spec__.loader.exec_module(self)  # type: ignore[union-attr]
        return getattr(self, name)


def _package() -> None:
    """Put the stand-in in place unless the SDK's package is imported already."""
    if "runpod" in sys.modules:
        return
    spec = importlib.util.find_spec("runpod")
    if spec is None or spec.submodule_search_locations is None:
        return  # let the imports below fail as they would
    pkg = _SDKPackage("runpod")
    pkg.__spec__, pkg.__loader__, pkg.__file__ = spec, spec.loader, spec.origin
    pkg.__path__, pkg.__package__ = list(spec.submodule_search_locations), "runpod"
    pkg.api_key = None  # type: ignore[attr-defined]  # what graphql.run_graphql_query falls back to: never used
    sys.modules["runpod"] = pkg


def _load_sdk() -> Any:
    """Import the SDK's parts on first use, off the event loop, and fit the shim once."""
    global _sdk
    with _sdk_lock:
        if _sdk is None:
            import logging

            import requests

            root = logging.getLogger()
            handlers, level = list(root.handlers), root.level
            _package()
            import runpod.api.graphql as gql
            import runpod.api.mutations.pods as mutations
            import runpod.error as rp_error

            # The SDK's `__init__`, if anything runs it, hangs a stderr handler at INFO on the root
            # logger: every httpx request would then be printed over the panel's screen. Undo it.
            root.handlers[:] = handlers
            root.setLevel(level)
            if not isinstance(gql.requests, StrictRequests):
                gql.requests = StrictRequests(requests)
            _sdk = type("SDK", (), {"run": staticmethod(gql.run_graphql_query), "mutations": mutations,
                                    "error": rp_error})
    return _sdk


class GraphQLTransport(KeyedTransport):
    """One RunPod account over GraphQL. Every call runs in a worker thread (the SDK blocks)."""

    name = "graphql"

    def __init__(self, *args: Any, **kw: Any):
        super().__init__(*args, **kw)
        # Calls whose waiter gave up while their worker thread still runs: while one is stuck,
        # no other is sent, so a trickling server holds one thread, not one more every poll.
        self._abandoned = 0
        self._guard = threading.Lock()

    async def aclose(self) -> None:
        return None

    def _call(self, query: str, skipped: list[str] | None = None) -> dict[str, Any]:
        sdk = _load_sdk()
        _local.source, _local.timeout, _local.base_url = self.account, self.timeout, self.base_url
        _local.max_bytes, _local.skipped = self.max_reply_bytes, []
        try:
            reply = sdk.run(query, api_key=self._key)
            if skipped is not None:
                skipped += _local.skipped
            return reply
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
        with self._guard:
            if self._abandoned:
                raise SourceTimeout(self.account, "an earlier GraphQL request is still stuck; none sent until it ends")
        state = {"abandoned": False}

        def work() -> Any:
            try:
                return fn()
            finally:
                with self._guard:
                    if state["abandoned"]:
                        self._abandoned -= 1
                    state["done"] = True

        loop = asyncio.get_running_loop()
        try:
            # The shim bounds the request and its reply; this bound catches a stuck thread as well.
            return await asyncio.wait_for(loop.run_in_executor(_executor, work), self.timeout + 5)
        except asyncio.TimeoutError:
            with self._guard:
                if not state.get("done"):
                    state["abandoned"] = True
                    self._abandoned += 1
            raise SourceTimeout(self.account, f"no reply within {self.timeout:g} s") from None

    async def _myself(self, query: str, skipped: list[str] | None = None) -> dict[str, Any]:
        data = _field(await self._run(lambda: self._call(query, skipped)), "data")
        myself = _field(data, "myself")
        if isinstance(data, dict) and "myself" in data and myself is None:
            # What RunPod has answered for a key it does not know: no error, no user.
            raise AuthError(self.account, "RunPod GraphQL answered myself: null: the key is not accepted")
        if not isinstance(myself, dict):
            raise BadReply(self.account, "GraphQL reply has no myself object")
        return myself

    async def snapshot(self) -> AccountSnapshot:
        nulled: list[str] = []
        myself = await self._myself(ACCOUNT_QUERY, nulled)
        if not isinstance(myself.get("pods"), list):
            # Never read a reply without a pod list as "no pods": that would be a fake wave.
            raise BadReply(self.account, "GraphQL reply has no myself.pods list")
        # An entry RunPod nulled (a field broke its non-null rule) is skipped with RunPod's reason;
        # the skip makes the poll partial, so no pod is read as gone for want of it.
        listed = [p for p in myself["pods"] if p is not None]
        bad = Unreadable()
        with collector_paused():  # the reply's tree read into records (collector_pause.py)
            pods, skipped = parse_records(RunPodPod, [flatten_pod(p, self.account) for p in listed], "pods", bad)
        nulls = len(myself["pods"]) - len(listed)
        money = _money(myself)
        del myself, listed
        # One skip per entry, as every other unreadable record is counted (and logged) one by one.
        nulled += ["pods: a null entry without a reason"] * max(0, nulls - len(nulled))
        pods, duplicates = one_per_id(pods)
        return AccountSnapshot(account=self.account, pods=pods, skipped=nulled + skipped, unreadable=bad.pods,
                               unnamed=bad.unnamed + nulls, duplicates=duplicates, **money)

    async def money(self) -> AccountSnapshot:
        """The balance, spend and under-balance flag, and each pod's machine (no pod records): what
        `auto` asks GraphQL for."""
        myself = await self._myself(BALANCE_QUERY)
        pods = myself.get("pods")
        hosts, changes = _texts(pods, ("machine", "podHostId")), _texts(pods, ("lastStatusChange",))
        listed = frozenset(_texts(pods, ("id",)))  # the pods this API lists: none is missing
        money = _money(myself)
        del myself, pods
        return AccountSnapshot(account=self.account, pods=[], hosts=hosts, status_changes=changes,
                               also_listed=listed, **money)

    async def get_pod(self, pod_id: str) -> RunPodPod | None:
        _check_id(pod_id)
        try:
            data = await self._run(lambda: self._call(POD_QUERY % (pod_id, POD_FIELDS)))
        except PodNotFound:
            return None
        answer = _field(data, "data")
        if not isinstance(answer, dict) or "pod" not in answer:
            # Only `pod: null` says the pod does not exist: a reply without the field says nothing.
            raise BadReply(self.account, f"GraphQL pod {pod_id}: reply has no pod field")
        pod = answer["pod"]
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


def _money(myself: dict[str, Any]) -> dict[str, Any]:
    under = myself.get("underBalance")
    return {"balance": float_or_none(myself.get("clientBalance")),
            "spend_per_hr": float_or_none(myself.get("currentSpendPerHr")),
            "spend_limit": float_or_none(myself.get("spendLimit")),
            "under_balance": under if isinstance(under, bool) else None}


def _texts(pods: Any, path: tuple[str, ...]) -> dict[str, str]:
    """pod id -> the text at `path` in each entry (("machine", "podHostId")), for the entries that
    hold both as text (a hostile reply: none). Equal texts are kept as one string (a host's id is
    every one of its pods'; the map is kept until the next reply)."""
    out: dict[str, str] = {}
    one: dict[str, str] = {}
    for p in pods if isinstance(pods, list) else ():
        value = p
        for name in path:
            value = _field(value, name)
        if isinstance(_field(p, "id"), str) and isinstance(value, str) and value:
            out[p["id"]] = one.setdefault(value, value)
    return out


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
