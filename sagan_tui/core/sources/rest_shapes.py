"""REST v2 replies read into the panel's terms: pod status and fields, and the RateLimit header.

Status mapping onto the GraphQL `desiredStatus` vocabulary the rest of the panel speaks:

    REST v2       -> panel        why
    RUNNING       -> RUNNING
    PROVISIONING  -> CREATED      allocated, no container yet: not "running", so never a loss
    STARTING      -> CREATED      the container is not healthy yet; RUNNING comes with runtime
    EXITED        -> EXITED
    ERROR         -> DEAD         GraphQL's word for a container that will not come back
    TERMINATED    -> TERMINATED
    anything else -> kept as sent (shown, never read as running)

What REST v2 gives elsewhere: the balance and billing mode (rest_evidence.py; the spend is the
running pods' `cost`, under balance is read from the two). What it does not give that GraphQL
does: the spend limit; `lastStatusChange` (so a pod RunPod exits but still lists cannot be told
from an ordinary stop by the poll alone: under `auto` GraphQL supplies it while it answers, and
core/sync/exits.py judges the exit from the balance and the audit log); `podType`,
`adjustedCostPerHr` and `machineId`. `cost` is the current rate and reads 0.0 once EXITED.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from sagan_tui.core.sources.runpod_base import float_or_none

STATUS_MAP = {
    "RUNNING": "RUNNING",
    "PROVISIONING": "CREATED",
    "STARTING": "CREATED",
    "EXITED": "EXITED",
    "ERROR": "DEAD",
    "TERMINATED": "TERMINATED",
}


@dataclass(frozen=True)
class RateWindow:
    """One window of the `RateLimit` header: requests left and seconds until it resets."""

    name: str
    remaining: int | None
    reset_s: float | None


def parse_rate_limit(value: str | None) -> dict[str, RateWindow]:
    """`"minute";r=0;t=12, "hour";r=2800;t=1812` -> {"minute": RateWindow(...), ...}; junk is skipped."""
    out: dict[str, RateWindow] = {}
    for member in (value or "").split(","):
        parts = [p.strip() for p in member.split(";")]
        name = parts[0].strip('"') if parts and parts[0] else ""
        if not name:
            continue
        params: dict[str, str] = {}
        for p in parts[1:]:
            k, _, v = p.partition("=")
            params[k.strip()] = v.strip()
        out[name] = RateWindow(name, _int_or_none(params.get("r")), float_or_none(params.get("t")))
    return out


def _int_or_none(v: str | None) -> int | None:
    try:
        return None if v is None else int(v)
    except ValueError:
        return None


def _spent(windows: dict[str, RateWindow]) -> float | None:
    """Seconds until every exhausted window has reset, or None when none is exhausted."""
    waits = [w.reset_s for w in windows.values() if w.remaining == 0 and w.reset_s]
    return max(waits) if waits else None


def map_status(status: Any) -> str:
    if not isinstance(status, str) or not status:
        # Mirrors GraphQL: a listed pod must never read as gone or stopped for lack of a field.
        return "RUNNING"
    return STATUS_MAP.get(status.upper(), status.upper())


def flatten_rest_pod(raw: Any, account: str, gpu_names: dict[str, str] | None = None) -> Any:
    """A REST v2 Pod into RunPodPod's flat fields.

    Only named fields are copied: the v2 Pod carries `env` (often secrets) and `ssh`, which must
    never reach the cache through RunPodPod's tolerated extras.
    """
    if not isinstance(raw, dict):
        return raw
    gpu = raw.get("gpu") if isinstance(raw.get("gpu"), dict) else {}
    runtime = raw.get("runtime") if isinstance(raw.get("runtime"), dict) else None
    uptime = (runtime or {}).get("uptime")
    gpu_id = gpu.get("id")
    cluster = raw.get("cluster") if isinstance(raw.get("cluster"), dict) else {}
    return {
        "id": raw.get("id"), "account": account, "name": raw.get("name"),
        "desiredStatus": map_status(raw.get("status")),
        "lastStatusChange": None,
        "uptimeSeconds": uptime,
        "costPerHr": raw.get("cost"), "adjustedCostPerHr": None,
        "gpuCount": gpu.get("count"),
        # GraphQL shows the catalog's display name ("A100 80GB PCIe"); v2 gives the type id.
        "gpu": (gpu_names or {}).get(gpu_id, gpu_id) if isinstance(gpu_id, str) else None,
        "datacenter": raw.get("dataCenterId"), "podType": None,
        "imageName": raw.get("image"), "machineId": None,
        # The create reply shows `runtime: {}` while provisioning: a runtime without uptime is none.
        "hasRuntime": runtime is not None and uptime is not None,
        # An Instant Cluster member (listed only with includeClusterPods=true): a pod like any other.
        "clusterId": cluster.get("id") if isinstance(cluster.get("id"), str) else None,
    }


def _percent(value: Any) -> int | None:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 100
    return round(value) if ok else None


def gpu_load(pod: Any) -> tuple[tuple[int | None, int | None], ...]:
    """(util, memoryUtil) per GPU of a v2 Pod's `runtime.gpus` (PodGpuUtilization); a figure that
    is not a percentage reads None rather than a lie on screen."""
    runtime = pod.get("runtime") if isinstance(pod, dict) else None
    gpus = runtime.get("gpus") if isinstance(runtime, dict) else None
    if not isinstance(gpus, list):
        return ()
    return tuple((_percent(g.get("util")), _percent(g.get("memoryUtil"))) for g in gpus[:16] if isinstance(g, dict))


# --- a pod list's page, read for the fields flatten_rest_pod copies ----------------------------
# A v2 Pod carries about forty values (env, ports, mounts, ssh, ...) of which a poll copies nine:
# decoding the whole tree of 10,000 pods made ~400,000 objects per account per poll, most of them
# dropped at once, and a long-running `watch` kept the fragments. These Structs read the copied
# fields only (every other is skipped unread); a page they cannot read (a record that is not an
# object, a field of another shape, not UTF-8 JSON) is decoded whole as before, so a strange reply
# meets the same checks either way.


class _LeanRuntime(msgspec.Struct):
    uptime: Any = None


class _LeanGpu(msgspec.Struct):
    id: Any = None
    count: Any = None


class _LeanCluster(msgspec.Struct):
    id: Any = None


class _LeanPod(msgspec.Struct):
    id: Any = None
    name: Any = None
    status: Any = None
    runtime: _LeanRuntime | None = None
    cost: Any = None
    gpu: _LeanGpu | None = None
    dataCenterId: Any = None  # noqa: N815 - v2's name
    image: Any = None
    cluster: _LeanCluster | None = None


class _LeanPage(msgspec.Struct):
    pods: list[_LeanPod] | None = None
    items: list[_LeanPod] | None = None
    pagination: Any = None
    nextCursor: Any = None  # noqa: N815 - v2's name
    truncated: Any = None


_LEAN = msgspec.json.Decoder(_LeanPage)


def lean_pods_page(content: bytes) -> dict[str, Any] | None:
    """A `GET /v2/pods` reply as the dict json would give, holding only what the poll reads of
    each pod; None when it must be decoded whole (see above)."""
    try:
        page = _LEAN.decode(content)
    except (msgspec.DecodeError, RecursionError):
        return None
    out: dict[str, Any] = {}
    one: dict[Any, Any] = {}  # equal texts as one string: a poll keeps each pod's until the next
    for key in ("pods", "items"):
        pods = getattr(page, key)
        if pods is not None:
            out[key] = [_lean_dict(p, one) for p in pods]
    for key in ("pagination", "nextCursor", "truncated"):
        if getattr(page, key) is not None:
            out[key] = getattr(page, key)
    return out


def _lean_dict(p: _LeanPod, one: dict[Any, Any]) -> dict[str, Any]:
    def shared(v: Any) -> Any:
        return one.setdefault(v, v) if type(v) is str else v

    out = {"id": p.id, "name": p.name, "status": shared(p.status), "cost": p.cost,
           "dataCenterId": shared(p.dataCenterId), "image": shared(p.image)}
    if p.runtime is not None:
        out["runtime"] = {"uptime": p.runtime.uptime}
    if p.gpu is not None:
        out["gpu"] = {"id": shared(p.gpu.id), "count": p.gpu.count}
    if p.cluster is not None:
        out["cluster"] = {"id": shared(p.cluster.id)}
    return out
