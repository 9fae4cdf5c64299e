"""Figure 3: bytes the panel writes to the terminal, through a pty at 200x50, against the simulator.

Idle: a fleet where nothing changes but the clock (1,000 running pods), default poll interval;
bytes per second over a minute, so the once-a-minute age/uptime refresh is counted once.
Baseline: a bare Textual app showing a clock that ticks every second.
Per poll: after each poll the bench stops one more untracked pod at the top of the pods table
(one row changes per poll, nothing else); the bytes between two poll starts, median over polls.
Baseline: Textual's stock DataTable with 1,000 rows in which one visible cell changes.
"""

from __future__ import annotations

import statistics
import time

from common import PY, ROOT, Figure, clean_env, main, panel_argv, quiet_logging, temp_dir
from ptyrun import PtyProcess
from baseline_apps import MARKER

SIZE = (200, 50)
CHANGERS = [f"aaaaaaaaaaaa{k:02d}" for k in range(20)]  # sort first among `personal`, the first account


def fixture(pods: int, experiments: int) -> dict:
    exps = [{"number": 3000 + i, "title": f"Quiet fleet study {3000 + i}", "status": "running",
             "runpodAccount": "team" if i % 3 else "personal"} for i in range(experiments)]
    fleet = []
    for i in range(pods):
        n = 3000 + i % experiments
        fleet.append({"id": f"q{i:07d}fleet{i % 10}", "account": exps[i % experiments]["runpodAccount"],
                      "experiment": n, "name": f"exp{n}-fleet", "created_at": -7200, "running_at": -7150})
    # Untracked by Sagan: stopping one changes its RunPod row and nothing else (no events, no status).
    fleet += [{"id": pid, "account": "personal", "tracked": False, "name": "scratch", "created_at": -7200,
               "running_at": -7150} for pid in CHANGERS]
    # Balances that outlast the fleet's spend: a "Runway short" warning (a toast, then its removal)
    # is a change, and this figure is of a panel where nothing changes.
    accounts = {"team": {"api_key": "rk-team-demo", "balance": 1e7},
                "personal": {"api_key": "rk-personal-demo", "balance": 1e7}}
    return {"name": "quiet-fleet", "accounts": accounts, "experiments": exps, "pods": fleet}


class PollWatch:
    """Poll starts as the simulator sees them: one `approval-requests` GET per panel poll."""

    def __init__(self, sim) -> None:
        self.sim, self.seen = sim, 0

    def new_polls(self) -> int:
        n = sum(1 for r in list(self.sim.requests) if r.path.endswith("/approval-requests"))
        fresh, self.seen = n - self.seen, n
        return fresh


def pump_until(p: PtyProcess, cond, timeout: float) -> None:
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise TimeoutError("panel did not get there")
        p.pump(0.05)


def measure_panel(idle_s: float, polls: int, pods: int, interval: float | None = None, runner=PtyProcess) -> dict:
    """`runner`: PtyProcess (a local pty) or sshrun.SshPtyProcess (the same over an SSH session)."""
    from sagan_tui.sim import SimServer
    from sagan_tui.sim.actions import stop_pod

    home = temp_dir("sagan-bench-output-")
    with SimServer(fixture=fixture(pods, max(pods // 4, 5))) as sim:
        watch = PollWatch(sim)
        env = clean_env(home, **sim.env())
        argv = panel_argv("--cache", str(home / "cache.sqlite"), "--no-bell")
        if interval:
            argv += ["--poll-interval", str(interval)]
        with runner(argv, env, size=SIZE, cwd=str(ROOT)) as p:
            p.wait_for(lambda text: CHANGERS[0] in text, 120)
            starts: list[float] = []

            def polled(n: int):
                def cond() -> bool:
                    if watch.new_polls():
                        starts.append(time.monotonic())
                    return len(starts) >= n
                return cond

            pump_until(p, polled(2), 120)
            p.pump(3.0)  # the second poll's repaint
            t0 = time.monotonic()
            p.pump(idle_s)
            idle = p.bytes_between(t0, time.monotonic())
            idle_polls = sum(1 for t in starts if t >= t0) + watch.new_polls()
            if not interval:  # faster polls for the second phase: "-" steps the interval down (5 -> 3 -> 2 s)
                p.send("--")
            starts.clear()
            pump_until(p, polled(1), 30)
            for k in range(polls + 1):
                with sim.state.lock:
                    stop_pod(sim.state, "personal", CHANGERS[k], sim.clock.now_t())
                pump_until(p, polled(k + 2), 30)
            per_poll = [p.bytes_between(a, b) for a, b in zip(starts[1:], starts[2:])]
    return {"idle_bytes": idle, "idle_s": idle_s, "idle_polls": idle_polls, "per_poll_bytes": per_poll}


def measure_clock(seconds: float) -> float:
    home = temp_dir("sagan-bench-clock-")
    with PtyProcess([PY, str(ROOT / "bench" / "baseline_apps.py"), "clock"], clean_env(home), size=SIZE) as p:
        p.wait_for(lambda text: MARKER in text, 60)
        p.pump(1.5)
        t0 = time.monotonic()
        p.pump(seconds)
        return p.bytes_between(t0, time.monotonic()) / seconds


def measure_datatable(changes: int) -> list[int]:
    home = temp_dir("sagan-bench-table-")
    argv = [PY, str(ROOT / "bench" / "baseline_apps.py"), "datatable", "--rows", "1000", "--every", "1"]
    with PtyProcess(argv, clean_env(home), size=SIZE) as p:
        p.wait_for(lambda text: "pod0000000009" in text, 60)
        p.pump(2.5)
        out = []
        for _ in range(changes):
            t0 = time.monotonic()
            p.pump(1.0)
            out.append(p.bytes_between(t0, time.monotonic()))
        return out


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    if small:
        panel = measure_panel(idle_s=2, polls=2, pods=50, interval=1.0)
    else:
        panel = measure_panel(idle_s=60, polls=6, pods=1000)
    clock_bps = measure_clock(2 if small else 10)
    table = measure_datatable(2 if small else 6)
    idle_bps = panel["idle_bytes"] / panel["idle_s"]
    per_poll = statistics.median(panel["per_poll_bytes"])
    return [
        Figure("output_idle", "terminal bytes/s, idle (nothing changes but the clock)", idle_bps, clock_bps,
               "B/s", "<= 300 B/s", 300, on="value",
               detail={**panel, "baseline": "bare Textual app with a 1 s clock", "size": "200x50"}),
        Figure("output_per_poll", "terminal bytes per poll with one pod row changed", per_poll,
               statistics.median(table), "B", "<= 2048 B", 2048, on="value",
               detail={"per_poll_bytes": panel["per_poll_bytes"], "datatable_bytes": table,
                       "baseline": "stock DataTable, 1,000 rows, one visible cell updated", "size": "200x50"}),
    ]


if __name__ == "__main__":
    main(run)
