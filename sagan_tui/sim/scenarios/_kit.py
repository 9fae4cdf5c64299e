"""Building blocks for scenarios: experiments, their event history, pods and long plan bodies."""

from __future__ import annotations

import random
from typing import Any

from ..fixture import default_accounts

# The road an experiment travels; a status off this road (blocked, failed...) branches from `running`.
ROAD = (
    "proposed", "clarifying", "awaiting_clarifications", "clarifying", "planning", "plan_pending",
    "approved", "implementing", "code_reviewing", "testing", "queued", "running", "uploading",
    "verifying", "interpreting", "reviewing", "clean_result_drafting", "awaiting_promotion", "shared",
)
NOTES = {
    "clarifying": "Moved on Pipeline board to clarifying.",
    "awaiting_clarifications": "Claude produced clarifying questions; awaiting owner answers.",
    "planning": "Owner answered; planner drafting the experiment plan.",
    "plan_pending": "Experiment plan is ready for owner approval.",
    "approved": "Approved from Pipeline board.",
    "implementing": "Orchestrator queued to implement and dispatch.",
    "code_reviewing": "Implementation pushed; dispatching reviewer pair.",
    "testing": "Code review pair passed; running the test suite.",
    "queued": "RunPod pod dispatched; waiting for runtime.",
    "running": "RunPod pod is running.",
    "uploading": "Run finished; uploading artifacts.",
    "verifying": "Artifacts uploaded; verifying checksums.",
    "interpreting": "Verification passed; interpreting results.",
    "reviewing": "Interpretation ready for owner review.",
    "clean_result_drafting": "Owner accepted the interpretation; drafting the clean result.",
    "awaiting_promotion": "Clean result drafted and linted; awaiting promotion.",
    "shared": "Promoted by the owner.",
    "blocked": "RunPod pod stopped; volume preserved.",
    "completed": "Run complete; no clean result to share.",
    "failed": "Run failed after 3 retries.",
    "cancelled": "Cancelled by the owner.",
    "archived": "Archived.",
}
MARKERS = {"plan_pending": "epm:plan", "code_reviewing": "epm:code-review", "testing": "epm:test-verdict",
           "queued": "epm:launch", "running": "epm:progress", "uploading": "epm:results",
           "interpreting": "epm:interpretation", "awaiting_promotion": "epm:awaiting-promotion"}


def accounts(**failures: list[dict[str, Any]]) -> dict[str, Any]:
    """The demo accounts (team: 412.5 with a spend limit of 80; personal: 35.0), with failure schedules."""
    out = {name: acc.model_dump(exclude_none=True) for name, acc in default_accounts().items()}
    for name, windows in failures.items():
        out[name]["failures"] = windows
    return out


def road_to(status: str) -> list[str]:
    """The statuses an experiment passed through to reach `status`, in order."""
    if status in ROAD:
        return list(ROAD[: len(ROAD) - ROAD[::-1].index(status)])
    return [*ROAD[: ROAD.index("running") + 1], status]


def experiment(number: int, title: str, status: str, account: str = "team", **extra: Any) -> dict[str, Any]:
    return {"number": number, "title": title, "status": status, "runpodAccount": account,
            "kind": "experiment", "priority": extra.pop("priority", 2), "assigneeKind": "agent", **extra}


def event(at: float, number: int | None, event_type: str, note: str | None = None, **kw: Any) -> dict[str, Any]:
    return {"at": at, "experiment": number, "eventType": event_type, "note": note, **kw}


def status_event(at: float, number: int, frm: str | None, to: str, note: str | None = None,
                 actor: str = "system") -> dict[str, Any]:
    return event(at, number, "state_changed", note or NOTES.get(to, ""), fromStatus=frm, toStatus=to,
                 actorKind=actor)


def history(number: int, status: str, end: float, rng: random.Random, span: float = 86400.0,
            extra_notes: int = 0) -> list[dict[str, Any]]:
    """Past events (t <= end <= 0) that walk an experiment to `status`, with markers and notes."""
    road = road_to(status)
    steps = len(road) + extra_notes
    times = sorted(end - rng.uniform(0, span) for _ in range(steps))
    out: list[dict[str, Any]] = []
    prev: str | None = None
    ti = iter(times)
    for st in road:
        at = next(ti)
        if prev is not None:
            out.append(status_event(at, number, prev, st))
        if st in MARKERS:
            out.append(event(at + 0.4, number, MARKERS[st], f"{MARKERS[st]} for #{number}", actorKind="agent"))
        prev = st
    for k, at in enumerate(ti):
        out.append(event(at, number, "note", f"Progress check {k + 1}: step {rng.randint(100, 9000)} "
                         f"loss={rng.uniform(0.4, 2.5):.3f}", actorKind="agent"))
    return out


def pod(pod_id: str, account: str, number: int | None, created: float, running: float | None = None,
        **kw: Any) -> dict[str, Any]:
    spec = {"id": pod_id, "account": account, "experiment": number, "created_at": created, "running_at": running}
    if number is not None:
        spec["name"] = f"exp{number}-{kw.pop('slug', 'run')}"
    return {**spec, **kw}


def plan_body(number: int, title: str, target_kb: int, textboxes: list[str], rng: random.Random) -> str:
    """A long markdown plan (Sagan's are 10-60 KB) with the given [TEXTBOX:name] fields."""
    head = [f"# Plan for #{number}: {title}", "", "## Goal", "",
            f"Decide whether {title.lower()} holds beyond noise, at a compute cost the owner accepts.", "",
            "## Hypothesis", "", "H1: the effect survives a change of system prompt; H0: it does not.", "",
            "## Owner inputs", ""]
    head += [f"**{name.replace('-', ' ')}**\n\n[TEXTBOX:{name}]\n" for name in textboxes]
    head += ["## Evaluation grid", "", "| arm | seed | frame | metric | threshold | budget (GPU-h) |",
             "|---|---|---|---|---|---|"]
    rows: list[str] = []
    size = sum(len(line) + 1 for line in head)
    arms = ("fact", "cipher", "control", "baseline")
    frames = ("default-assistant", "no-system", "persona-a", "persona-b", "persona-c", "adversarial")
    while size < target_kb * 1024:
        row = (f"| {rng.choice(arms)} | {rng.choice((42, 137, 256))} | {rng.choice(frames)} | "
               f"accuracy@{rng.choice((1, 5))} | >= {rng.uniform(0.2, 0.6):.2f} | {rng.uniform(0.5, 4):.1f} |")
        rows.append(row)
        size += len(row) + 1
    tail = ["", "## Risks", "", "- Pods may be reclaimed mid-run: every step checkpoints to the volume.",
            "- Judge drift: the judge prompt is pre-registered.", "", "## Kill criterion", "",
            "Stop if two consecutive dispatches are lost before the first checkpoint."]
    return "\n".join(head + rows + tail)
