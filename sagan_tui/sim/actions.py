"""What the owner (through Sagan or RunPod) can do to the simulated world, with its errors.

Decisions: approve moves the experiment to the request's approvedState (default `approved`);
reject moves it to `blocked` (the owner's "unblock or revise", so Sagan spends nothing more
until the owner acts); defer leaves the experiment alone and marks the request `deferred`: it
stays the owner's to approve or reject later (deferring it again is refused, 409).
Promote goes to `shared` when the experiment has a clean result, else `completed`.
"""

from __future__ import annotations

from typing import Any

from sagan_tui.core.models import KNOWN_STATUSES, textbox_fields

from .catalog import gpu_name, gpu_price
from .fixture import PodSpec
from .ids import stable_uuid
from .markers import KNOWN_MARKER_TYPES
from .pods import SimPod
from .state import SimApproval, SimExperiment, SimState

LAUNCH_RUNNING_AFTER_S = 10  # a dispatched pod reaches RUNNING this long after creation
DATACENTER_BY_ACCOUNT = {"team": "US-KS-2", "personal": "EU-RO-1"}
DECISIONS = {"approve": "approved", "reject": "rejected", "defer": "deferred"}


class ActionError(Exception):
    """A refused action: HTTP status, Sagan's error code, and a message for the owner."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def experiment(state: SimState, number: int) -> SimExperiment:
    exp = state.experiments.get(number)
    if exp is None:
        raise ActionError(404, "not_found", f"Experiment #{number} not found")
    return exp


def set_status(state: SimState, number: int, status: Any, note: str | None, t: float) -> SimExperiment:
    exp = experiment(state, number)
    if status not in KNOWN_STATUSES:
        raise ActionError(400, "invalid_status", f"Status {status!r} is not one of Sagan's statuses")
    state.record(t, "state_changed", experiment=number, to_status=status, actor_kind="owner", note=note)
    return exp


def post_marker(state: SimState, number: int, marker: Any, note: str | None, metadata: Any, t: float) -> str:
    experiment(state, number)
    if marker not in KNOWN_MARKER_TYPES:
        raise ActionError(400, "unknown_marker_type", f"Marker {_quoted(marker)} is not in KNOWN_MARKER_TYPES. "
                          "Add it to apps/web/src/lib/reviewer-loops.ts and .claude/workflow.yaml before posting.")
    if metadata is not None and not isinstance(metadata, dict):
        raise ActionError(400, "bad_request", "metadata must be a JSON object")
    ev = state.record(t, marker, experiment=number, actor_kind="owner", note=note, metadata=metadata)
    assert ev is not None
    return ev.id


def _quoted(value: Any) -> str:
    return '"' + str(value).replace('"', '\\"') + '"'


def launch_pod(state: SimState, number: int, note: str | None, t: float) -> tuple[str, SimPod]:
    """Sagan's dispatcher: one pod in the experiment's account, RUNNING ~10 s later."""
    exp = experiment(state, number)
    status = exp.status_at(t)
    if status != "approved":
        raise ActionError(409, "not_approved", f"Experiment #{number} is {status}, not approved; nothing launched")
    spec_in = exp.fields.get("podSpec") if isinstance(exp.fields.get("podSpec"), dict) else {}
    gpu = gpu_name(spec_in.get("gpuType"))
    pod_id = state.new_pod_id()
    run_id = stable_uuid("launch", number, pod_id)
    state.record(t, "note", experiment=number, actor_kind="owner", note=note or "Owner requested a pod launch.",
                 metadata={"agentRunId": run_id})
    pod = state.add_pod(PodSpec(
        id=pod_id, account=exp.account, experiment=number, name=spec_in.get("name") or f"exp{number}-run",
        gpu=gpu, gpu_count=int(spec_in.get("gpuCount") or 1), cost_per_hr=gpu_price(gpu),
        datacenter=DATACENTER_BY_ACCOUNT.get(exp.account, "US-KS-2"), agent_run_id=run_id,
        created_at=t, running_at=t + LAUNCH_RUNNING_AFTER_S,
    ))
    return run_id, pod


def promote(state: SimState, number: int, t: float) -> str:
    exp = experiment(state, number)
    status = exp.status_at(t)
    if status != "awaiting_promotion":
        raise ActionError(409, "not_awaiting_promotion", f"Experiment #{number} is {status}, not awaiting_promotion")
    target = "shared" if exp.fields.get("hasCleanResult") else "completed"
    state.record(t, "epm:promoted", experiment=number, actor_kind="owner", note="Owner promoted the clean result.")
    state.record(t, "state_changed", experiment=number, to_status=target, actor_kind="owner",
                 note="Promoted by the owner.")
    return target


def decide(state: SimState, approval_id: str, decision: Any, answers: Any, note: str | None,
           t: float) -> SimApproval:
    a = state.approvals.get(approval_id)
    if a is None or a.created_t > t:
        raise ActionError(404, "not_found", f"Approval request {approval_id} not found")
    if decision not in DECISIONS:
        raise ActionError(400, "invalid_decision", "decision must be approve, reject or defer")
    if answers is not None and not (isinstance(answers, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in answers.items())):
        raise ActionError(400, "bad_request", "textboxAnswers must map field names to text")
    if a.status != "pending" and not (a.status == "deferred" and decision != "defer"):
        raise ActionError(409, "not_pending", f"Approval request {approval_id} is {a.status}, not pending")
    n = a.experiment
    if answers:
        known = textbox_fields(a.fields.get("bodyMd"))
        state.record(t, "epm:textbox-answers", experiment=n, actor_kind="owner", note=note,
                     metadata={"approvalRequestId": a.id, "answers": answers,
                               "unknownFields": sorted(set(answers) - set(known))})
    a.status, a.updated_t, a.version = DECISIONS[decision], t, a.version + 1
    state.record(t, "approval_decided", experiment=n, actor_kind="owner", to_status=a.status, note=note,
                 metadata={"approvalRequestId": a.id, "decision": decision})
    target = {"approve": a.fields.get("approvedState") or "approved", "reject": "blocked"}.get(decision)
    if target and n is not None:
        state.record(t, "state_changed", experiment=n, to_status=target, actor_kind="owner",
                     note=f"Owner {a.status} {a.fields.get('kind') or 'request'}: {a.fields.get('title') or a.id}")
    return a


# --- RunPod mutations (the key picks the account; a pod of another account is not found) ---

def account_pod(state: SimState, account: str, pod_id: str, t: float) -> SimPod:
    pod = state.pods.get(pod_id)
    if pod is None or pod.spec.account != account or pod.runpod_state(t) is None:
        raise ActionError(404, "not_found", f"Pod {pod_id} not found")
    return pod


def stop_pod(state: SimState, account: str, pod_id: str, t: float) -> SimPod:
    pod = account_pod(state, account, pod_id, t)
    state.cancel_after(pod, t)  # a starting pod stopped never reaches RUNNING, nor its reaper
    state.record_intents(pod.stop(t), pod)
    return pod


def resume_pod(state: SimState, account: str, pod_id: str, t: float) -> SimPod:
    pod = account_pod(state, account, pod_id, t)
    if pod.runpod_state(t)["status"] == "RUNNING":  # type: ignore[index]
        raise ActionError(400, "bad_request", f"Pod {pod_id} is already running")
    state.record_intents(pod.run_from(t, note="RunPod pod resumed."), pod)
    return pod


def terminate_pod(state: SimState, account: str, pod_id: str, t: float) -> None:
    pod = account_pod(state, account, pod_id, t)
    state.record_intents(pod.terminate(t), pod)


def deploy_pod(state: SimState, account: str, spec: dict[str, Any], t: float) -> SimPod:
    """podFindAndDeployOnDemand: a pod Sagan knows nothing about, RUNNING ~10 s later."""
    gpu = gpu_name(spec.get("gpuTypeId"))
    env = {e["key"]: e["value"] for e in spec.get("env") or []}
    return state.add_pod(PodSpec(
        id=state.new_pod_id(), account=account, name=spec.get("name"), gpu=gpu,
        gpu_count=spec.get("gpuCount") or 1, cost_per_hr=gpu_price(gpu),
        datacenter=spec.get("dataCenterId") or DATACENTER_BY_ACCOUNT.get(account, "US-KS-2"),
        image_name=spec.get("imageName") or "runpod/base", docker_args=spec.get("dockerArgs") or "", env=env,
        volume_in_gb=spec.get("volumeInGb") or 0, container_disk_in_gb=spec.get("containerDiskInGb") or 10,
        tracked=False, created_at=t, running_at=t + LAUNCH_RUNNING_AFTER_S,
    ))
