"""Figure 3 over SSH: the bytes the owner's laptop receives on a real SSH session (asyncssh on 127.0.0.1).

`ssh_output_idle` and `ssh_output_per_poll`: bench_output's two measurements, the panel run
through sshrun.SshPtyProcess instead of a local pty: what crosses the session's channel.
`ssh_reaping_wave_bps`: bytes per second over the first five minutes of `sagan-tui --demo`
(`reaping-wave`, 200x50): both waves, their toasts and the timeline filling. Run at --speed 10
with --poll-interval 0.5, so the panel sees the same 60 polls and the same changes as five
minutes at speed 1 in 30 s; the bytes are divided by the 300 s they stand for. Repaints driven
by the wall clock (the status line's minute, the once-a-minute ages) happen a tenth as often,
so this undercounts them (a few hundred bytes a minute at most, from the idle figure).
"""

from __future__ import annotations

import statistics
import time

from bench_output import SIZE, measure_panel
from common import PY, ROOT, Figure, clean_env, main, quiet_logging, temp_dir
from sshrun import SshPtyProcess

DEMO_S = 300.0  # the first five minutes of the demo, in scenario seconds
SPEED = 10.0
ISSUE_BPS = 4300.0  # 258 KB in one busy minute of the demo, measured over OpenSSH


def measure_demo(scenario_s: float, speed: float) -> dict:
    home = temp_dir("sagan-bench-ssh-")
    argv = [PY, "-m", "sagan_tui", "--demo", "--scenario", "reaping-wave", "--speed", str(speed),
            "--poll-interval", str(5.0 / speed)]
    with SshPtyProcess(argv, clean_env(home), size=SIZE, cwd=str(ROOT)) as p:
        p.wait_for(lambda text: "Experiments" in text, 120)
        t0 = p.stamps[0][0]  # from the first byte: the demo's scenario clock starts with the process
        wall = scenario_s / speed
        p.pump(max(0.0, t0 + wall - time.monotonic()))
        total = p.bytes_between(t0, t0 + wall)
        per_10s = [p.bytes_between(t0 + k * 10 / speed, t0 + (k + 1) * 10 / speed) for k in range(int(scenario_s // 10))]
        saw_wave = b"Reaping wave" in bytes(p.output)
    return {"bytes": total, "scenario_s": scenario_s, "speed": speed, "wall_s": wall, "saw_wave": saw_wave,
            "bytes_per_10_scenario_s": per_10s}


def run(small: bool = False) -> list[Figure]:
    quiet_logging()
    if small:
        panel = measure_panel(idle_s=2, polls=2, pods=50, interval=1.0, runner=SshPtyProcess)
        demo = measure_demo(60.0, 20.0)
    else:
        panel = measure_panel(idle_s=60, polls=6, pods=1000, runner=SshPtyProcess)
        demo = measure_demo(DEMO_S, SPEED)
    idle_bps = panel["idle_bytes"] / panel["idle_s"]
    per_poll = statistics.median(panel["per_poll_bytes"])
    demo_bps = demo["bytes"] / demo["scenario_s"]
    where = {"size": "200x50", "channel": "asyncssh session on 127.0.0.1, payload bytes (before SSH framing)"}
    return [
        Figure("ssh_output_idle", "over SSH: bytes/s, idle (nothing changes but the clock)", idle_bps, 300.0,
               "B/s", "<= 300 B/s", 300, on="value", detail={**panel, **where, "baseline": "the target"}),
        Figure("ssh_output_per_poll", "over SSH: bytes per poll with one pod row changed", per_poll, 2048.0,
               "B", "<= 2048 B", 2048, on="value",
               detail={"per_poll_bytes": panel["per_poll_bytes"], **where, "baseline": "the target"}),
        Figure("ssh_reaping_wave_bps", "over SSH: bytes/s, first 5 min of the reaping-wave demo", demo_bps,
               ISSUE_BPS, "B/s", f"<= {ISSUE_BPS:g} B/s", ISSUE_BPS, on="value",
               detail={**demo, **where, "baseline": "an OpenSSH measurement, one busy minute (258 KB)"}),
    ]


if __name__ == "__main__":
    main(run)
