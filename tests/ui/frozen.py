"""A cache filled with fixed records and timestamps (the 2026-05-14 r5 wave), for snapshots and unit tests."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from sagan_tui.core.config_model import Settings, load_settings
from sagan_tui.core.models import (
    ApprovalRequest, ErrorKind, Experiment, HealthState, Loss, RunPodPod, SourceHealth, WorkflowEvent,
)
from sagan_tui.core.store.cache import Cache, CachedPod

NOW = datetime(2026, 5, 14, 10, 56, 0, tzinfo=timezone.utc)
INJECTED = "[@click=app.quit]boom[/]"


def at(h: int, m: int, s: int = 0) -> datetime:
    return NOW.replace(hour=h, minute=m, second=s)


EXPERIMENTS = [
    (192, "Persona-tagged SFT: is taught content retrievable across system prompts?", "blocked", "team"),
    (363, "Refusal-direction ablation sweep on Qwen2.5-7B", "running", "team"),
    (366, "Long-context retrieval probe (128k) on Llama-3.1-8B", "running", "team"),
    (333, "Cipher transfer under persona prompts", "implementing", "personal"),
    (365, "Tokenizer drift audit across checkpoints", "running", "team"),
    (361, "Judge-ensemble calibration on refusal data", "running", "personal"),
    (367, "Sparse autoencoder features for persona vectors", "plan_pending", "team"),
    (369, "Reward hacking probes in code RL", "awaiting_clarifications", "team"),
    (358, "Emergent misalignment replication", "awaiting_promotion", "team"),
    (340, "Activation steering for honesty", "completed", "team"),
    (374, INJECTED, "quantum_pending", "personal"),
]
LOST = [  # pod, account, experiment, RUNNING, lost, gpu, datacenter, cost
    ("v0c7bx292xqvg4", "team", 192, at(10, 53, 54), at(10, 54, 55), "NVIDIA A100 80GB PCIe", "US-KS-2", 1.49),
    ("m1ayhl6nsbxw04", "team", 363, at(10, 53, 54), at(10, 54, 54), "NVIDIA A100 80GB PCIe", "US-KS-2", 1.49),
    ("lqpfpmbytlgded", "team", 366, at(10, 44, 53), at(10, 54, 54), "NVIDIA H100 80GB HBM3", "US-KS-2", 2.99),
    ("j0xvy1q82ryo8m", "personal", 333, at(10, 53, 55), at(10, 54, 54), "NVIDIA A100 80GB PCIe", "EU-RO-1", 1.49),
    ("cv13x9s487tvwn", "personal", 333, at(10, 53, 55), at(10, 54, 54), "NVIDIA A100 80GB PCIe", "EU-RO-1", 1.49),
]
LIVE = [
    ("j18eiux6ccekyj", "team", 365, at(10, 8), "NVIDIA A100 80GB PCIe", "US-KS-2", 1.49, "exp365-control"),
    ("f6n3kd9sa1qz4w", "personal", 361, at(9, 58), "NVIDIA A100 80GB PCIe", "EU-RO-1", 1.49, "exp361-control"),
]


SEEN = {"team": NOW - timedelta(seconds=4), "personal": at(10, 50)}  # personal's key answers 401 since


def settings(tmp: Path, **flags) -> Settings:
    env = {"SAGAN_TUI_CONFIG": str(tmp / "no-config.toml"), "SAGAN_BASE_URL": "http://127.0.0.1:9",
           "SAGAN_API_TOKEN": "frozen-token", "RUNPOD_API_BASE_URL": "http://127.0.0.1:9",
           "RUNPOD_API_KEY_TEAM": "rk-frozen-team", "RUNPOD_API_KEY_PERSONAL": "rk-frozen-personal"}
    s, _ = load_settings(env, sagan_tui_cache=str(tmp / "cache.sqlite"), **flags)
    return s


def fill(cache: Cache) -> None:
    exps = [Experiment(id=f"e{n}", number=n, title=t, status=st, runpod_account=acc,
                       created_at=NOW - timedelta(hours=n % 7 + 1), updated_at=NOW - timedelta(minutes=n % 13))
            for n, t, st, acc in EXPERIMENTS]
    pods = [CachedPod(RunPodPod(id=pid, account=acc, experiment=n, name=name, desired_status="RUNNING",
                                cost_per_hr=cost, gpu=gpu, datacenter=dc, gpu_count=1, has_runtime=True),
                      first_seen_at=running, running_at=running, last_seen_at=SEEN[acc], gone_at=None, gone_reason=None)
            for pid, acc, n, running, gpu, dc, cost, name in LIVE]
    pods += [CachedPod(RunPodPod(id=pid, account=acc, experiment=n, name=f"exp{n}-r5", desired_status="RUNNING",
                                 cost_per_hr=cost, gpu=gpu, datacenter=dc, gpu_count=1),
                       first_seen_at=running, running_at=running, last_seen_at=lost - timedelta(seconds=5),
                       gone_at=lost, gone_reason="vanished while RUNNING")
             for pid, acc, n, running, lost, gpu, dc, cost in LOST]
    losses = [Loss(pod_id=pid, account=acc, experiment=n, running_at=running, last_seen_at=lost - timedelta(seconds=5),
                   lost_at=lost, gpu=gpu, datacenter=dc, cost_per_hr=cost, reason=f"Pod {pid} not found in account={acc}")
              for pid, acc, n, running, lost, gpu, dc, cost in LOST]
    events = [
        WorkflowEvent(id="ev1", experiment_number=192, event_type="state_changed", from_status="running",
                      to_status="blocked", note="r5 lost in a wave spanning both accounts; no re-dispatch.",
                      actor_kind="system", created_at=at(10, 55, 40)),
        WorkflowEvent(id="ev2", experiment_number=363, event_type="epm:recovery", actor_kind="agent",
                      note="Auto-recovery r6 queued after pod loss.", created_at=at(10, 55, 30)),
        WorkflowEvent(id="ev3", experiment_number=365, event_type="epm:progress", actor_kind="agent",
                      note="step 4400: drift 0.22", created_at=at(10, 55, 0)),
        WorkflowEvent(id="ev4", experiment_number=374, event_type="note", actor_kind="agent",
                      note=f"{INJECTED} [bold red]x \x1b]52;c;ZXZpbA==\x07 [/]", created_at=at(10, 50, 0)),
    ]
    approvals = [
        ApprovalRequest(id="ap1", experiment_number=367, kind="experiment_plan", title="Plan: SAE persona features",
                        body_md="Budget? [TEXTBOX:budget]", created_at=at(10, 30)),
        ApprovalRequest(id="ap2", experiment_number=369, kind="clarification", title="Clarify: reward hacking",
                        body_md="Which envs? [TEXTBOX:envs] [TEXTBOX:seeds]", created_at=at(10, 40)),
    ]
    health = [
        SourceHealth(source="sagan", state=HealthState.OK, last_success=NOW - timedelta(seconds=4)),
        SourceHealth(source="team", state=HealthState.OK, last_success=NOW - timedelta(seconds=4), balance=412.5,
                     spend_per_hr=1.49, spend_limit=80.0, under_balance=False),
        SourceHealth(source="personal", state=HealthState.ERROR, error_kind=ErrorKind.AUTH,
                     message="401 Unauthorized", last_success=at(10, 50), balance=3.1, spend_per_hr=1.49,
                     under_balance=True, consecutive_failures=4),
    ]
    with cache.transaction() as conn:
        cache.upsert_experiments(conn, exps)
        cache.upsert_pods(conn, pods)
        cache.upsert_losses(conn, losses)
        cache.upsert_events(conn, events)
        cache.replace_pending_approvals(conn, approvals)
        for h in health:
            cache.set_health(conn, h)


def frozen_app(tmp: Path, **flags):
    """The panel over the frozen cache, its clock stopped at NOW and polling off."""
    from tests.harness import panel_on

    s = settings(tmp, **flags)
    cache = Cache(s.cache_path)
    fill(cache)
    return panel_on(s, cache=cache, clock=lambda: NOW, poll=False)[0]
