"""Fixtures of the four causes for the simulator, and a rig that polls them on a stepped clock.

The simulator's clock is held at each poll's scenario time and the poller's clock is stepped to
the same served time, so a wave's minutes stay minutes (a jump would squeeze them into the
milliseconds a test takes, and every loss would chain into one wave).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any, Iterable

KS, RO = "US-KS-2", "EU-RO-1"
CONTROLS = ("ctrlteam01", "ctrlteam02", "ctrlpers01")
DEAD_HOST = ("deadhost01", "deadhost02", "deadhost03")
BROKE = ("broke00001", "broke00002", "broke00003")
REAPED = ("reaped0001", "reaped0002", "reaped0003", "reaped0004")


def _pod(pid: str, account: str, exp: int, running: float, host: str, dc: str, lost: float | None = None,
         **kw: Any) -> dict[str, Any]:
    out = {"id": pid, "account": account, "experiment": exp, "name": f"exp{exp}-{pid}", "created_at": max(0, running - 5),
           "running_at": running, "host": host, "datacenter": dc, **kw}
    if lost is not None:
        out["lost_at"] = lost
    return out


def three_causes() -> dict[str, Any]:
    """A dead host (t~200), a balance stop (t~400) and a one-account reaper (t~600), minutes apart.

    The dead host's and the balance stop's pods had run for very different times; the reaper's
    are killed 60 s after RUNNING while two team pods on other machines live through it all.
    """
    pods = [
        _pod("ctrlteam01", "team", 365, 5, "h-live-1", KS),
        _pod("ctrlteam02", "team", 361, 8, "h-live-2", KS),
        # a dead host: three team pods on h-dead, RUNNING for 3 min, 1.5 min and 40 s when it went
        _pod("deadhost01", "team", 201, 20, "h-dead", KS, lost=200),
        _pod("deadhost02", "team", 202, 100, "h-dead", KS, lost=203),
        _pod("deadhost03", "team", 203, 160, "h-dead", KS, lost=206),
        # personal's balance hits $0.00 at t=400: its three pods (6 min, 2.5 min and 1 min old) stop
        _pod("broke00001", "personal", 301, 30, "h-p1", RO, lost=402),
        _pod("broke00002", "personal", 302, 250, "h-p2", RO, lost=405),
        _pod("broke00003", "personal", 303, 350, "h-p3", RO, lost=409),
        # the reaper: four team pods, each killed ~60 s after RUNNING
        *(_pod(pid, "team", 400 + i, 540 + 5 * i, f"h-r{i}", KS, lost=600 + 5 * i) for i, pid in enumerate(REAPED)),
    ]
    experiments = [{"number": n, "title": f"experiment {n}", "status": "running", "runpodAccount": acc}
                   for n, acc in ((365, "team"), (361, "team"), (201, "team"), (202, "team"), (203, "team"),
                                  (301, "personal"), (302, "personal"), (303, "personal"),
                                  (400, "team"), (401, "team"), (402, "team"), (403, "team"))]
    return copy.deepcopy({
        "name": "three-causes",
        "accounts": {"team": {"api_key": "rk-team-causes", "balance": 400.0, "spend_limit": 80},
                     "personal": {"api_key": "rk-personal-causes",
                                  "balance": [{"at": 0, "balance": 3.1}, {"at": 400, "balance": 0.0}]}},
        "experiments": experiments,
        "pods": pods,
    })


def unrelated() -> dict[str, Any]:
    """Three unrelated losses, 80 s apart, that the 90 s gap rule chains into one wave: two
    accounts, three data centres, three machines, run times of 90 s, 30 s and 4 min, controls alive."""
    pods = [
        _pod("ctrlteam01", "team", 365, 5, "h-live-1", KS),
        _pod("ctrlpers01", "personal", 361, 5, "h-live-3", RO),
        _pod("unrelat001", "team", 501, 10, "h-a", KS, lost=100),
        _pod("unrelat002", "personal", 502, 150, "h-b", RO, lost=180),
        _pod("unrelat003", "team", 503, 20, "h-c", "US-TX-3", lost=260),
    ]
    return copy.deepcopy({"name": "unrelated",
                          "accounts": {"team": {"api_key": "rk-team-unrel", "balance": 400.0},
                                       "personal": {"api_key": "rk-personal-unrel", "balance": 35.0}},
                          "experiments": [{"number": n, "title": f"experiment {n}", "status": "running"}
                                          for n in (365, 361, 501, 502, 503)],
                          "pods": pods})


class SteppedPolls:
    """A Poller over a simulator whose clock is held at each poll's scenario time."""

    def __init__(self, sim: Any, settings: Any, monkeypatch: Any):
        from sagan_tui.core.store.cache import Cache
        from sagan_tui.core.sync.poller import Poller

        self.sim, self.settings = sim, settings
        self.t = 0.0
        sim.clock.hold(0.0)
        # The poller dates what it sees by its own clock: here, the simulator's served time.
        monkeypatch.setattr("sagan_tui.core.sync.poller.utcnow", self.now)
        self.cache = Cache(settings.cache_path)
        self.poller = Poller(settings, self.cache)

    def now(self):
        return self.sim.clock.at(self.t)

    async def poll_at(self, times: Iterable[float]):
        changes = None
        for t in times:
            self.t = float(t)
            self.sim.clock.hold(self.t)
            changes = await self.poller.poll_once(force=True)
            assert all(h.state.value == "ok" for h in changes.health.values()), changes.summary_line()
        return changes

    async def close(self) -> None:
        await self.poller.aclose()
        self.cache.close()


def settings_for(sim: Any, tmp: Path, **flags: Any):
    from sagan_tui.core.config_model import load_settings

    s, _ = load_settings({**sim.env(), "SAGAN_TUI_CONFIG": str(tmp / "none.toml")},
                         sagan_tui_cache=str(tmp / "cache.sqlite"), **{"poll_interval": 10.0, **flags})
    return s
