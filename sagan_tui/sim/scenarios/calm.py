"""`calm`: a quiet day: experiments in varied statuses, a few healthy pods, one pending approval."""

from __future__ import annotations

import random
from typing import Any

from ._kit import event, experiment, history, plan_body, pod

EXPERIMENTS = [
    (201, "Persona drift under long chat histories", "running", "team"),
    (202, "Judge-ensemble calibration on refusal data", "running", "personal"),
    (203, "Sparse probes for sycophancy direction", "plan_pending", "team"),
    (204, "Reward-model overoptimisation sweep", "awaiting_promotion", "team"),
    (205, "Tokenizer drift audit across checkpoints", "reviewing", "personal"),
    (206, "Cipher transfer under persona prompts", "blocked", "team"),
    (207, "Emergent misalignment replication", "completed", "team"),
    (208, "Activation steering for honesty", "proposed", "team"),
    (209, "Long-context retrieval probe (128k)", "running", "team"),
]


def build(seed: int = 0) -> dict[str, Any]:
    rng = random.Random(f"calm:{seed}")
    experiments = [experiment(n, title, status, account, hasCleanResult=(status == "awaiting_promotion"),
                              podSpec={"gpuType": "A100", "gpuCount": 1, "name": f"exp{n}-run"})
                   for n, title, status, account in EXPERIMENTS]
    events: list[dict[str, Any]] = []
    for n, _title, status, _acc in EXPERIMENTS:
        events += history(n, status, -rng.uniform(600, 7200), rng, extra_notes=3)
    pods = [
        pod("r7c2m9xk4q0wza", "team", 201, -5400, -5360, slug="persona-drift", costPerHr=1.49),
        pod("h1b8x6tz3kq5ve", "team", 209, -3000, -2950, slug="long-context", gpu="NVIDIA H100 80GB HBM3",
            costPerHr=2.99, datacenter="US-TX-3"),
        pod("q3z8w1nd6ym2ap", "team", 201, -900, -860, slug="persona-drift-eval", costPerHr=1.49),
        pod("p9r2s5jc0ku8tl", "personal", 202, -4000, -3955, slug="judge-calibration", datacenter="EU-RO-1"),
        pod("s0k7d3gv1xe4nb", "personal", None, -20000, -19950, name="scratch-notebook", tracked=False,
            gpu="NVIDIA RTX A6000", costPerHr=0.49, datacenter="EU-RO-1"),
    ]
    # progress keeps coming while the panel watches
    for k in range(1, 40):
        n = rng.choice((201, 202, 209))
        events.append(event(k * 90.0 + rng.uniform(0, 30), n, "epm:progress",
                            f"step {k * 250}: loss {2.4 / (1 + k / 10):.3f}", actorKind="agent"))
    approvals = [{
        "id": "a9c1e0d2-5b7f-4c33-9a10-203000000001", "experiment": 203, "kind": "experiment_plan",
        "title": "Plan: sparse probes for sycophancy direction", "at": -1800,
        "bodyMd": plan_body(203, "Sparse probes for sycophancy direction", 24,
                            ["budget-cap-usd", "owner-notes"], rng),
        "status": "pending", "approvedState": "approved", "agentRunId": "5a2b0c1d-9e8f-4a7b-8c6d-203000000002",
    }]
    return {"name": "calm", "experiments": experiments, "events": events, "pods": pods,
            "approvalRequests": approvals}
