"""Incidents of issue 42 for the simulator: grouping by cause, two of each kind, with decoys.

- `two_causes`: a reaper on one account (kill 62-73 s after RUNNING) and, seconds later, the
  other account's PREPAID balance reaching $0 (its pods stopped: terminated without a network
  volume, EXITED with one). One run of the chaining gap, two causes.
- `host_and_stray`: a machine dies with its 4 pods (two experiments, run times of 64 s to 41 min);
  24 s away a pod on another machine, of another age, is lost alone.
- `slow_burn`: one fresh pod killed every ~4 minutes, ~60 s after RUNNING, both accounts; a
  pod failing alone (20 min old) in between is the decoy.
- `spread_kill`: a sweep every 65 s kills pods 46-108 s old on three data centres; pods that
  had run for an hour are spared; three pods stopped together by Sagan (ordinary stops) are the
  decoy.
- `terminating_stop`: a PREPAID account at $0 whose pods have no network volume (or some do):
  they drop out of the list, yet it is an account stop; POSTPAID is the decoy.

Times are scenario seconds; loss times fall at different phases of the 10 s polls.
"""

from __future__ import annotations

import copy
from typing import Any

from .incidents import KS, RO, _pod

TX = "US-TX-3"
CTRL = ("g42ctrlteam001", "g42ctrlpers001")


def _world(name: str, pods: list[dict[str, Any]], accounts: dict[str, Any] | None = None,
           controls: tuple[str, ...] = CTRL, **extra: Any) -> dict[str, Any]:
    ctrl = [_pod(CTRL[0], "team", 900, -3600, "h-ctrl-1", KS, created_at=-3640),
            _pod(CTRL[1], "personal", 901, -3000, "h-ctrl-2", RO, created_at=-3040)]
    ctrl = [p for p in ctrl if p["id"] in controls]
    numbers = sorted({p["experiment"] for p in ctrl + pods})
    return copy.deepcopy({
        "name": name,
        "accounts": accounts or {"team": {"api_key": f"rk-team-{name}", "balance": 300.0},
                                 "personal": {"api_key": f"rk-personal-{name}", "balance": 90.0}},
        "experiments": [{"number": n, "title": f"issue-42 {n}", "status": "running",
                         "runpodAccount": "personal" if n % 2 else "team"} for n in numbers],
        "pods": ctrl + pods,
        **extra,
    })


# --- two causes on one night ---------------------------------------------------------------

REAPED_A = ("g42reapteam001", "g42reapteam002", "g42reapteam003", "g42reapteam004")
BROKE_A = ("g42brokepers01", "g42brokepers02", "g42brokepers03")
REAPED_B = ("g42reappers001", "g42reappers002", "g42reappers003", "g42reappers004", "g42reappers005")
BROKE_B = ("g42broketeam01", "g42broketeam02", "g42broketeam03")


def two_causes(variant: str = "a") -> dict[str, Any]:
    """a: team reaped (62-73 s), personal at $0 40 s later, no volumes (terminated);
    b: personal reaped (58-66 s), team at $0 30 s later, with volumes (EXITED)."""
    reaper_acc, broke_acc = ("team", "personal") if variant == "a" else ("personal", "team")
    reaped, broke = (REAPED_A, BROKE_A) if variant == "a" else (REAPED_B, BROKE_B)
    kills = (62, 66, 70, 73) if variant == "a" else (58, 60, 63, 66, 61)
    odd = 1 if reaper_acc == "personal" else 0
    pods = [_pod(pid, reaper_acc, 300 + 2 * i + odd, 140 + 13 * i, f"h-r{i}", KS if i % 2 else TX,
                 lost=140 + 13 * i + k) for i, (pid, k) in enumerate(zip(reaped, kills))]
    zero = 250.0 if variant == "a" else 230.0
    # Run times at the stop of about 4, 3 and 2 minutes: none near the reaper's kill time.
    pods += [_pod(pid, broke_acc, 321 + 2 * i - odd, zero - 230 + 40 * i, f"h-b{i}", RO,
                  network_volume=variant == "b") for i, pid in enumerate(broke)]
    keep = CTRL[0] if broke_acc == "personal" else CTRL[1]  # the broke account has no control
    money = {reaper_acc: {"api_key": f"rk-{reaper_acc}-2c{variant}", "balance": 300.0},
             broke_acc: {"api_key": f"rk-{broke_acc}-2c{variant}",
                         "balance": [{"at": 0, "balance": 4.0}, {"at": zero, "balance": 0.0}]}}
    return _world(f"two-causes-{variant}", pods, money, controls=(keep,))


# --- a dead machine and a stray --------------------------------------------------------------

DEAD = ("g42deadhost001", "g42deadhost002", "g42deadhost003", "g42deadhost004")
STRAY = "g42strayloss01"


def host_and_stray(variant: str = "a") -> dict[str, Any]:
    """a: h-dead dies at ~300 with 4 team pods (64 s to 41 min old), a stray 24 s later on h-x;
    b: the stray (personal) comes 30 s before a 3-pod machine failure."""
    ages = (64, 300, 1100, 2460) if variant == "a" else (90, 700, 1900)
    dies = 300
    pods = [_pod(pid, "team", 310 + 2 * (i % 2), dies - age, "h-dead", KS, lost=dies + 2 * i,
                 created_at=dies - age - 30) for i, (pid, age) in enumerate(zip(DEAD, ages))]
    if variant == "a":
        pods.append(_pod(STRAY, "team", 314, 160, "h-x", TX, lost=dies + 24))
    else:
        pods.append(_pod(STRAY, "personal", 315, 150, "h-y", RO, lost=dies - 30))
    live = _pod("g42livesameks1", "team", 316, -1800, "h-live-ks", KS, created_at=-1830)  # same DC, lived
    return _world(f"host-and-stray-{variant}", [*pods, live])


# --- a slow burn -----------------------------------------------------------------------------

def slow_burn(variant: str = "a") -> tuple[dict[str, Any], list[str], list[float]]:
    """(fixture, pod ids in order, their loss times): a: every 240 s, killed 59-62 s after
    RUNNING, alternating accounts; b: every 200 s, killed ~45 s after, with the decoy."""
    every, kills = (240, (59, 62, 60, 61, 59)) if variant == "a" else (200, (45, 46, 44, 45, 46))
    ids, lost, pods = [], [], []
    for i, k in enumerate(kills):
        pid = f"g42slow{variant}{i:06d}"
        acc = "team" if i % 2 == 0 else "personal"
        run = 100 + every * i + 3 * i
        pods.append(_pod(pid, acc, 330 + i, run, f"h-s{i}", KS if i % 2 == 0 else RO, lost=run + k))
        ids.append(pid)
        lost.append(run + k)
    if variant == "b":  # a pod failing alone between the first two losses
        pods.append(_pod("g42alonefail01", "team", 340, lost[0] + 90 - 1200, "h-z", TX, lost=lost[0] + 90,
                         created_at=lost[0] + 90 - 1230))
    return _world(f"slow-burn-{variant}", pods), ids, lost


# --- kill times that spread ----------------------------------------------------------------

def spread_kill(variant: str = "a") -> tuple[dict[str, Any], list[str]]:
    """A sweep every 65 s from t=300 kills each pod of the swept accounts at the first sweep
    when it has run 45 s: run times 46-108 s. a: team only, 6 pods on 3 data centres; b: both
    accounts, 5 pods. Long-running pods (the controls) are spared; three pods stopped together
    by Sagan at t=420 are not losses."""
    runs = (230, 192, 306, 342, 380, 408) if variant == "a" else (250, 297, 330, 372, 401)
    sweeps = [300 + 65 * k for k in range(10)]
    pods, ids = [], []
    for i, r in enumerate(runs):
        kill = next(s for s in sweeps if s - r >= 45)
        acc = "team" if variant == "a" or i % 2 == 0 else "personal"
        pid = f"g42spread{variant}{i:05d}"
        pods.append(_pod(pid, acc, 350 + 2 * i + (acc == "personal"), r, f"h-w{i}", (KS, RO, TX)[i % 3], lost=kill))
        ids.append(pid)
    for i in range(3):  # the decoy: an ordinary stop of three pods at one moment
        pods.append(_pod(f"g42swstop{variant}{i:04d}", "team", 370 + 2 * i, 60 + 10 * i, f"h-st{i}", KS,
                         stopped_at=420))
    return _world(f"spread-kill-{variant}", pods), ids


# --- a balance stop that terminates ------------------------------------------------------------

BROKE_T = ("g42termpers001", "g42termpers002", "g42termpers003", "g42termpers004")


def terminating_stop(variant: str = "a", mode: str = "PREPAID") -> dict[str, Any]:
    """personal's balance reaches $0 at t=300; its pods (run times of 1 to 9 minutes) end then.
    a: none has a network volume (all terminated); b: two have one (EXITED), two not. Under
    POSTPAID (the decoy) nothing stops them: they are lost by a script at the same moments."""
    pods = []
    for i, pid in enumerate(BROKE_T):
        run = 240 - 120 * i  # 1, 3, 5 and 7 minutes of running at the stop
        p = _pod(pid, "personal", 381 + 2 * i, run, f"h-t{i}", RO, created_at=run - 30,
                 network_volume=variant == "b" and i % 2 == 0)
        if mode == "POSTPAID":
            del p["network_volume"]
            p["lost_at"] = 303 + 2 * i
        pods.append(p)
    money = {"team": {"api_key": "rk-team-term", "balance": 300.0},
             "personal": {"api_key": "rk-personal-term", "billing_mode": mode,
                          "balance": [{"at": 0, "balance": 3.0}, {"at": 300, "balance": 0.0}]}}
    return _world(f"terminating-stop-{variant}-{mode.lower()}", pods, money, controls=(CTRL[0],))
