"""`reaper-recovery`: a reaper on `team` and Sagan's recovery loop feeding it (issue #41's fixture).

A reaper kills every `team` pod 60 s after it reaches RUNNING. Experiments #10, #11 and #12 are
dispatched at the start (RUNNING at t=40..44, lost at t=100..104, the first wave's three losses);
Sagan's recovery loop re-dispatches each one 20 s after each loss (RUNNING 40 s after creation),
so at any moment one of them has a pod starting or doomed, unless it is `blocked`: a hold that
does not stop the pod already starting is overridden when it reaches RUNNING. Control pods
survive: #20 on team (RUNNING since well before the reaper) and #21 on personal.
"""

from __future__ import annotations

import random
from typing import Any

from ._kit import accounts, event, experiment, history, pod

A100 = {"gpu": "NVIDIA A100 80GB PCIe", "costPerHr": 1.49, "datacenter": "US-KS-2"}
KILL_AFTER_S = 60.0
RECOVERY_AFTER_S = 20.0
RUNNING_AFTER_S = 40.0
WAVE = (10, 11, 12)  # the experiments the recovery loop keeps re-dispatching into the reaper
# (pod id, experiment, created, RUNNING) - the first dispatches; the reaper sets their losses
FIRST = [("rr10a0k2m4p6q8", 10, 0, 40), ("rr11b1k3m5p7q9", 11, 2, 42), ("rr12c2k4m6p8r0", 12, 4, 44)]
REAPERS = [{"accounts": ["team"], "kill_after_s": KILL_AFTER_S, "from": 30, "to": 7200}]
RECOVERY = {"after_s": RECOVERY_AFTER_S, "running_after_s": RUNNING_AFTER_S, "budget": 50,
            "experiments": list(WAVE)}
EXPERIMENTS = [
    (10, "Persona-tagged SFT: retrieval across system prompts", "running", "team"),
    (11, "Refusal-direction ablation sweep", "running", "team"),
    (12, "Long-context retrieval probe (128k)", "running", "team"),
    (20, "Tokenizer drift audit (control)", "running", "team"),
    (21, "Judge-ensemble calibration (control)", "running", "personal"),
    (30, "Sparse autoencoder features for persona vectors", "plan_pending", "team"),
]


def build(seed: int = 0) -> dict[str, Any]:
    rng = random.Random(f"reaper-recovery:{seed}")
    experiments = [experiment(n, title, status, acc, podSpec={"gpuType": "A100", "gpuCount": 1,
                                                               "name": f"exp{n}-run"})
                   for n, title, status, acc in EXPERIMENTS]
    events: list[dict[str, Any]] = []
    for n, _title, status, _acc in EXPERIMENTS:
        events += history(n, status, -rng.uniform(300, 3600), rng, extra_notes=2)
    for k in range(1, 60):  # the controls keep reporting through the wave
        events.append(event(k * 60.0, 20, "epm:progress", f"step {k * 300}: drift {0.01 * k:.2f}", actorKind="agent"))
    pods = [pod(pid, "team", n, c, r, slug="run", **A100) for pid, n, c, r in FIRST]
    pods += [pod("rr20d3k5m7p9s1", "team", 20, -1800, -1760, slug="control", **A100),
             pod("rr21e4k6m8q0s2", "personal", 21, -2400, -2360, slug="control",
                 **{**A100, "datacenter": "EU-RO-1"})]
    return {"name": "reaper-recovery", "accounts": accounts(), "experiments": experiments, "events": events,
            "pods": pods, "reapers": REAPERS, "recovery": RECOVERY}
