"""`large-fleet`: 2,000 experiments, 1,000 pods and 100,000 events, generated from a seed.

For benchmarks and for the panel's behaviour at scale: most history lies before the start,
about a tenth of the events arrive over the first hour, and a few pods are lost, reaped or
stopped along the way.
"""

from __future__ import annotations

import random
from typing import Any

from ..ids import new_pod_id
from ._kit import event, experiment, history, pod, status_event

N_EXPERIMENTS, N_PODS, N_EVENTS = 2000, 1000, 100_000
FIRST_NUMBER = 1000
HOUR = 3600.0
STATUSES = {  # status: weight
    "running": 25, "queued": 3, "implementing": 5, "code_reviewing": 3, "testing": 2, "plan_pending": 4,
    "awaiting_clarifications": 3, "reviewing": 3, "awaiting_promotion": 2, "blocked": 3, "planning": 3,
    "proposed": 5, "completed": 15, "shared": 8, "failed": 4, "cancelled": 4, "archived": 8,
}
WORDS = ("persona", "refusal", "probe", "steering", "judge", "cipher", "drift", "reward", "debate", "sparse",
         "retrieval", "calibration", "jailbreak", "honesty", "sycophancy", "tokenizer", "transfer", "ablation")
GPUS = (("NVIDIA A100 80GB PCIe", 1.49), ("NVIDIA H100 80GB HBM3", 2.99), ("NVIDIA A100-SXM4-80GB", 1.49))
DCS = ("US-KS-2", "US-TX-3", "EU-RO-1", "EU-SE-1", "CA-MTL-1")


def _pod_timeline(rng: random.Random) -> dict[str, Any]:
    created = rng.uniform(-3 * 86400, 0.8 * HOUR)
    running = created + rng.uniform(25, 60)
    roll = rng.random()
    if roll < 0.02:
        return {"created": created, "running": running, "lost_at": max(running, 0) + rng.uniform(50, HOUR)}
    if roll < 0.03:
        return {"created": created, "running": running, "exited_at": max(running, 0) + rng.uniform(50, HOUR)}
    if roll < 0.06:
        return {"created": created, "running": running, "stopped_at": running + rng.uniform(300, 2 * HOUR)}
    return {"created": created, "running": running}


def build(seed: int = 0) -> dict[str, Any]:
    rng = random.Random(f"large-fleet:{seed}")
    statuses, weights = list(STATUSES), list(STATUSES.values())
    experiments, events = [], []
    running: list[tuple[int, str]] = []
    for n in range(FIRST_NUMBER, FIRST_NUMBER + N_EXPERIMENTS):
        status = rng.choices(statuses, weights)[0]
        account = "team" if rng.random() < 0.6 else "personal"
        title = " ".join(rng.sample(WORDS, 3)).capitalize() + f" study {n}"
        experiments.append(experiment(n, title, status, account, tags=rng.sample(WORDS, 2),
                                      hasCleanResult=status in ("awaiting_promotion", "shared")))
        events += history(n, status, -rng.uniform(60, 86400), rng, span=30 * 86400, extra_notes=28)
        if status in ("running", "queued", "implementing"):
            running.append((n, account))
    taken: set[str] = set()
    pods = []
    for _ in range(N_PODS):
        n, account = rng.choice(running)
        pid = new_pod_id(rng, taken)
        taken.add(pid)
        gpu, price = rng.choice(GPUS)
        tl = _pod_timeline(rng)
        pods.append(pod(pid, account, n, tl.pop("created"), tl.pop("running"), gpu=gpu, costPerHr=price,
                        datacenter=rng.choice(DCS), slug="fleet", **tl))
    live = [n for n, _ in running]
    while len(events) < N_EVENTS:  # the rest arrive while the panel watches
        n = rng.choice(live)
        at = rng.uniform(0, HOUR)
        if rng.random() < 0.02:
            events.append(status_event(at, n, None, rng.choice(("uploading", "blocked", "verifying"))))
        else:
            events.append(event(at, n, "epm:progress", f"step {rng.randint(1, 90000)}", actorKind="agent"))
    del events[N_EVENTS:]
    return {"name": "large-fleet", "experiments": experiments, "events": events, "pods": pods}
