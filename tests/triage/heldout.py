"""Incidents of the kinds the review holds out, made for the simulator (none is the demo's numbers).

- `late_redispatch`: a personal-only reaper killing pods 45 s after RUNNING; three losses found a
  wave, then Sagan's recovery loop re-dispatches two of them, and the reaper takes both 2-3
  minutes after the wave's third loss (past the 90 s chaining gap). A team pod that had run for
  an hour is lost later still: another account, another run time, not the wave's.
- `correlated_pair`: two pods of two accounts, data centres and machines, both killed ~70 s after
  RUNNING, 8 s apart: the early warning, and nothing more.
- `unrelated_pair`: two losses 40 s apart that share nothing (accounts, data centres, machines,
  run times of an hour and of 2.5 minutes): no warning, no wave.
- `single_loss`: one pod lost: no warning, no wave.

Loss times fall at different phases of a 5 s poll, as a real night's do. Control pods run through.
"""

from __future__ import annotations

import copy
from typing import Any

from .incidents import KS, RO, _pod

TEAM_CTRL, PERS_CTRL = "hoctrlteam0001", "hoctrlpers0001"
REAPED = ("horeaped000001", "horeaped000002", "horeaped000003")  # personal, RUNNING in the window
REDISPATCHED = ("horedisp000001", "horedisp000002")  # the recovery loop's, reaped too
LATE_DECOY = "hoteamlong0001"  # team, RUNNING for an hour, lost 6.5 min after the wave's third loss
KILL_S = 45.0
# RUNNING times of the reaped pods (lost KILL_S later: 163, 191, 219)
REAPED_RUNNING = (118.0, 146.0, 174.0)
# The loop acts 90 s after a loss and its pod is RUNNING 61 s later: 163 -> 253 -> 314 -> lost 359;
# 191 -> 281 -> 342 -> lost 387: 140 s and 168 s after the third loss at 219.
RECOVERY_AFTER_S, RECOVERY_RUNNING_S = 90.0, 61.0
REDISPATCH_LOST = (359.0, 387.0)
LATE_DECOY_LOST = 611.0

PAIR = ("hopairteam0001", "hopairpers0001")
UNRELATED = ("hounrelteam001", "hounrelpers001")
SINGLE = "hosingle000001"


def _world(name: str, pods: list[dict[str, Any]], experiments: list[int], **extra: Any) -> dict[str, Any]:
    controls = [_pod(TEAM_CTRL, "team", 700, -1200, "h-ctrl-1", KS, created_at=-1230),
                _pod(PERS_CTRL, "personal", 701, -900, "h-ctrl-2", RO, created_at=-930)]
    return copy.deepcopy({
        "name": name,
        "accounts": {"team": {"api_key": f"rk-team-{name}", "balance": 300.0},
                     "personal": {"api_key": f"rk-personal-{name}", "balance": 90.0}},
        "experiments": [{"number": n, "title": f"held-out {n}", "status": "running",
                         "runpodAccount": "personal" if 600 <= n < 650 else "team"}
                        for n in (700, 701, *experiments)],
        "pods": controls + pods,
        **extra,
    })


def late_redispatch() -> dict[str, Any]:
    # No lost_at: the reaper sets it (RUNNING + KILL_S).
    pods = [_pod(pid, "personal", 601 + i, running, f"h-p{i}", RO)
            for i, (pid, running) in enumerate(zip(REAPED, REAPED_RUNNING))]
    pods.append(_pod(LATE_DECOY, "team", 660, LATE_DECOY_LOST - 3600, "h-t9", KS, lost=LATE_DECOY_LOST,
                     created_at=LATE_DECOY_LOST - 3640))
    return _world("late-redispatch", pods, [601, 602, 603, 660],
                  reapers=[{"accounts": ["personal"], "kill_after_s": KILL_S, "from": 100, "to": 900}],
                  recovery={"after_s": RECOVERY_AFTER_S, "running_after_s": RECOVERY_RUNNING_S, "budget": 1,
                            "experiments": [601, 602], "pod_ids": list(REDISPATCHED)})


def correlated_pair() -> dict[str, Any]:
    pods = [_pod(PAIR[0], "team", 661, 203, "h-a", KS, lost=273),
            _pod(PAIR[1], "personal", 611, 211, "h-b", RO, lost=281)]
    return _world("correlated-pair", pods, [661, 611])


def unrelated_pair() -> dict[str, Any]:
    pods = [_pod(UNRELATED[0], "team", 662, 241 - 3600, "h-a", KS, lost=241, created_at=241 - 3640),
            _pod(UNRELATED[1], "personal", 612, 131, "h-b", RO, lost=281)]
    return _world("unrelated-pair", pods, [662, 612])


def single_loss() -> dict[str, Any]:
    return _world("single-loss", [_pod(SINGLE, "team", 663, 203, "h-a", KS, lost=263)], [663])
