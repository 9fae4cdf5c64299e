"""`reaping-wave`: the 2026-05-14 incident replayed: r4 (team) then r5 (both accounts).

Scenario time 0 stands for about 10:38:40 UTC. The r4 wave (10:39-10:45, team: four sibling
A100 dispatches of #192, three vanish) is compressed into the first two minutes; Sagan's
recovery loop (sim/recovery.py: it skips blocked experiments) re-dispatches two more, which a
team-only reaper kills ~61 s after RUNNING, then the budget is spent and Sagan stops the
survivor (cascading #192 to blocked). The quiet time before r5 is compressed so r5 lands at t=474..575; from there the
timings are the log's: RUNNING at 10:53:54 is t=514, lost at 10:54:54 is t=574. Control pods
(#365 j18eiux6ccekyj in team, #361 f6n3kd9sa1qz4w in personal) survive the window. After r5
the loop queues #363, #366 and #333 again (r6) unless the owner held them; #192's budget is
spent. A reaper in both accounts kills what reaches RUNNING during r5's window, a canary too.
"""

from __future__ import annotations

import random
from typing import Any

from ._kit import accounts, event, experiment, history, plan_body, pod, status_event

A100, H100 = ("NVIDIA A100 80GB PCIe", 1.49), ("NVIDIA H100 80GB HBM3", 2.99)
R5_RUNNING, R5_LOST = 514.0, 574.0

# (pod id, created, RUNNING, lost) - #192's r4 siblings, team, ~60 s from RUNNING to lost
R4_LOST = [("k3m8qz0v2xw7ta", 5, 38, 98), ("h9d2pj6wq4ne1c", 8, 45, 106), ("t5x0bv8rk2mu7y", 11, 52, 112)]
R4_SURVIVOR = ("w2c6nf3hs9ld0q", 14, 58)
R4_SURVIVOR_STOPPED = 305.0  # Sagan gives up on r4 and stops it: "RunPod pod stopped; volume preserved."
# The recovery loop's r4 re-dispatches of #192 (pod id, created, RUNNING, lost), as it makes them:
# 52 s after the first two losses, RUNNING 40 s later, reaped 61 s after that.
RECOVERY_LOST = [("q8r1zt5mk0pv3e", 150, 190, 251), ("b4y7wn2gx6cj9s", 158, 198, 259)]
REAPERS = [{"accounts": ["team"], "kill_after_s": 61, "from": 60, "to": 300},
           {"accounts": ["team", "personal"], "kill_after_s": 60, "from": 500, "to": 600}]
RECOVERY = {"after_s": 52, "running_after_s": 40, "budget": 2, "experiments": [192, 363, 366, 333],
            "dispatch_experiments": [192], "pod_ids": [p[0] for p in RECOVERY_LOST]}
# (pod id, account, experiment, created, RUNNING, lost, gpu, datacenter) - DOMAIN.md's r5 table
R5 = [
    ("v0c7bx292xqvg4", "team", 192, 474, R5_RUNNING, R5_LOST + 1, A100, "US-KS-2"),
    ("m1ayhl6nsbxw04", "team", 363, 474, R5_RUNNING, R5_LOST, A100, "US-KS-2"),
    ("lqpfpmbytlgded", "team", 366, 80, 113, R5_LOST, H100, "US-KS-2"),  # long-running, same window
    ("j0xvy1q82ryo8m", "personal", 333, 475, R5_RUNNING + 1, R5_LOST, A100, "EU-RO-1"),
    ("cv13x9s487tvwn", "personal", 333, 475, R5_RUNNING + 1, R5_LOST, A100, "EU-RO-1"),
]
CONTROLS = [("j18eiux6ccekyj", "team", 365, -1800, -1770, A100, "US-KS-2"),
            ("f6n3kd9sa1qz4w", "personal", 361, -2400, -2362, A100, "EU-RO-1")]
BLOCKER_ID = "7d9dbcb5-ce21-432e-a669-621e4f7c0e06"
ENV_192 = {"SAGAN_EPS_BRANCH": "exp-192-persona-spread", "SAGAN_EPS_COMMIT_SHA": "22739aabc8694671e631c74f628095c3b6dd09a7"}

EXPERIMENTS = [
    (192, "Persona-tagged SFT: is taught content retrievable across system prompts?", "approved", "team"),
    (363, "Refusal-direction ablation sweep on Qwen2.5-7B", "approved", "team"),
    (366, "Long-context retrieval probe (128k) on Llama-3.1-8B", "approved", "team"),
    (333, "Cipher transfer under persona prompts", "implementing", "personal"),
    (365, "Tokenizer drift audit across checkpoints", "running", "team"),
    (361, "Judge-ensemble calibration on refusal data", "running", "personal"),
    (367, "Sparse autoencoder features for persona vectors", "plan_pending", "team"),
    (369, "Reward hacking probes in code RL", "awaiting_clarifications", "team"),
    (358, "Emergent misalignment replication", "awaiting_promotion", "team"),
    (350, "Sycophancy under long chat histories", "reviewing", "personal"),
    (340, "Activation steering for honesty", "completed", "team"),
    (355, "Multilingual jailbreak transfer", "blocked", "team"),
    (371, "Persona vectors in vision-language models", "proposed", "team"),
    (372, "Debate protocols with weak judges", "planning", "personal"),
]


def _lost(pid: str, account: str) -> str:
    return f"Pod {pid} not found in account={account}"


def gpu_kw(gpu: tuple[str, float], datacenter: str) -> dict[str, Any]:
    return {"gpu": gpu[0], "costPerHr": gpu[1], "datacenter": datacenter}


def _pods() -> list[dict[str, Any]]:
    out = [pod(pid, "team", 192, c, r, lost_at=lost, slug="persona-spread", env=ENV_192, **gpu_kw(A100, "US-KS-2"))
           for pid, c, r, lost in R4_LOST]
    pid, c, r = R4_SURVIVOR
    out.append(pod(pid, "team", 192, c, r, stopped_at=R4_SURVIVOR_STOPPED, slug="persona-spread", env=ENV_192,
                   **gpu_kw(A100, "US-KS-2")))
    out += [pod(pid, acc, n, c, r, lost_at=lost, slug=f"r5-{n}", **gpu_kw(g, dc))
            for pid, acc, n, c, r, lost, g, dc in R5]
    out += [pod(pid, acc, n, c, r, slug="control", **gpu_kw(g, dc)) for pid, acc, n, c, r, g, dc in CONTROLS]
    # the H100 pod of the night before, stopped by hand: still listed as EXITED, not a loss
    out.append(pod("be565kq7x4sybb", "team", 192, -46000, -45960, stopped_at=-44000, slug="persona-spread",
                   env=ENV_192, **gpu_kw(H100, "US-TX-3")))
    return out


def _incident_events() -> list[dict[str, Any]]:
    r4_ids = ", ".join(p[0] for p in R4_LOST)
    ev = [
        event(135, 192, "epm:recovery", f"Auto-recovery r4: 3 of 4 sibling dispatches lost ({r4_ids}); "
              "re-dispatching 2 replacements.", actorKind="agent"),
        event(300, 192, "note", "Recovery budget exhausted after 2 more losses; stopping the remaining sibling "
              f"{R4_SURVIVOR[0]}.", actorKind="agent"),
        event(340, 192, "epm:blocker", "r4 diagnosis: losses are team-only; suspect a billing cap or key rotation "
              "on account=team. Recommend no re-dispatch.", actorKind="agent"),
        status_event(420, 192, "blocked", "approved", "Owner: restore to approved after pod-stop cascade; "
                     "dispatch r5 on A100.", actor="owner"),
        event(470, 333, "note", "Recovery r5: switching to account=personal after r1-r4 failed on team.",
              actorKind="agent"),
    ]
    ev += [
        status_event(640, 192, "running", "blocked", f"r5 lost ({_lost('v0c7bx292xqvg4', 'team')}) in a wave "
                     "spanning both accounts; blocker raised, no re-dispatch."),
        event(660, None, "note", "Four recovery runs in flight: #192 (held), #363, #366, #333.", actorKind="system"),
    ]
    for k in range(1, 12):  # the control experiments keep reporting progress through the window
        ev.append(event(k * 110.0, 365, "epm:progress", f"step {k * 400}: drift {0.02 * k:.2f}", actorKind="agent"))
        ev.append(event(k * 110.0 + 37, 361, "epm:progress", f"batch {k * 64}: ECE {0.11 - 0.004 * k:.3f}",
                        actorKind="agent"))
    return ev


def _blocker_body() -> str:
    rows = "\n".join(f"| #{n} | `{pid}` | {acc} | t+{r:.0f}s | t+{lost:.0f}s | ~{lost - r:.0f}s |"
                     for pid, acc, n, _c, r, lost, _g, _dc in R5)
    return (
        "## Diagnosis\n\nPods are being terminated by an out-of-band actor (RunPod-side reclaim, billing/auth "
        "event affecting the API key, or manual sweep) within ~60-90 seconds of reporting `RUNNING`, across "
        "multiple experiments and across **both** team and personal accounts.\n\n"
        "| exp | pod | account | RUNNING | lost | gap |\n|---|---|---|---|---|---|\n" + rows + "\n\n"
        "Control: exp #365 pod `j18eiux6ccekyj` (team) kept running through the window.\n\n"
        "## Exact next manual action (owner)\n\n1. Open the RunPod console for the team account, Events/Audit "
        "log for the window; look for grouped podTerminate events.\n2. Same for the personal account.\n"
        "3. Check billing/usage caps on both accounts.\n4. Once cleared, re-approve #192 as-is.\n\n"
        "[TEXTBOX:runpod-team-audit-summary]\n\n[TEXTBOX:runpod-personal-audit-summary]\n\n"
        "[TEXTBOX:owner-decision-redispatch-or-hold]\n"
    )


def build(seed: int = 0) -> dict[str, Any]:
    rng = random.Random(f"reaping-wave:{seed}")
    experiments = []
    for n, title, status, acc in EXPERIMENTS:
        extra: dict[str, Any] = {"hasCleanResult": n == 358}
        if n == 192:
            extra.update(planMd=plan_body(192, title, 12, [], rng), hypothesis="Retrieval is system-prompt-invariant.",
                         podSpec={"name": "exp192-persona-spread", "gpuType": "A100", "gpuCount": 1,
                                  "cloudType": "SECURE", "volumeGb": 100, "containerDiskGb": 100, "env": ENV_192,
                                  "estimatedMinutes": 240})
        experiments.append(experiment(n, title, status, acc, **extra))
    events: list[dict[str, Any]] = []
    for n, _title, status, _acc in EXPERIMENTS:
        events += history(n, status, -rng.uniform(300, 3600), rng, span=2 * 86400, extra_notes=4)
    events += _incident_events()
    approvals = [
        {"id": BLOCKER_ID, "experiment": 192, "kind": "blocker", "at": 645, "approvedState": "approved",
         "title": "Hold re-dispatch of #192: pods reaped ~60 s after RUNNING in both accounts",
         "bodyMd": _blocker_body(), "agentRunId": "58291b70-edd6-4c2b-922f-4f45f3f23f69"},
        {"id": "252bf40a-5512-45ea-a8f4-9db84af6112b", "experiment": 367, "kind": "experiment_plan", "at": -5400,
         "title": "Plan: sparse autoencoder features for persona vectors", "approvedState": "approved",
         "bodyMd": plan_body(367, EXPERIMENTS[6][1], 40, ["budget-cap-usd", "preferred-account"], rng)},
        {"id": "75be8c27-253d-426d-b638-854734b72a9d", "experiment": 369, "kind": "clarification", "at": -7200,
         "title": "Clarify: reward hacking probes in code RL", "approvedState": "planning",
         "bodyMd": plan_body(369, EXPERIMENTS[7][1], 3, ["dataset-choice", "eval-frames", "owner-notes"], rng)},
    ]
    return {
        "name": "reaping-wave",
        "accounts": accounts(),
        "experiments": experiments, "events": events, "pods": _pods(), "approvalRequests": approvals,
        "reapers": REAPERS, "recovery": RECOVERY,
    }
