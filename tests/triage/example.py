"""Regenerates docs/incident-report-example.md: `python -m tests.triage.example` (about 70 s, real time).

The cache is filled the way the panel fills it during an incident: a Poller against the
reaping-wave simulator, polling every 2 s through r5 and until Sagan has noticed every loss.
The simulator serves wall-clock time, so the clock is jumped once, before the first poll, and
then left to run: polls on both sides of a jump would see the scenario in two different frames.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
EXE = Path(sys.executable).with_name("sagan-tui")
START_T, END_T, EVERY_S = 560.0, 620.0, 2.0  # r5 is RUNNING at t=514, lost at 574-575, noticed by Sagan by 614

PREFACE = """\
# Incident report: examples

Two reports as `sagan-tui` writes them. Times are UTC.

1. **From the panel's cache** (`sagan-tui report --cache PATH`), after a Poller watched the
   simulator's `reaping-wave` scenario through r5, polling every {every:.0f} s. The simulator
   replays DOMAIN.md's two waves on today's clock, so the dates are those of the run.
   r4 happened before the first poll: only Sagan's records of it exist, and the report says
   what that does to its timing.
2. **From loss records** (`sagan-tui waves --input docs/reaping-wave-losses.jsonl --format
   markdown`): DOMAIN.md's r4 and r5 on 2026-05-14, with the control pod and both balances.

Money is GPU time: price x seconds from RUNNING to lost (RunPod bills per second). The run
log's "~$1.50-3 of A100 time for ~90 s" per try is one to two hours at $1.49/h; the dispatch
guard prices one more try as price x (dispatch to RUNNING + the wave's gap) instead.

Regenerate with `.venv/bin/python -m tests.triage.example` (about a minute, real time).

---

"""
SECOND = "\n---\n\n"


async def _fill(path: Path) -> None:
    from sagan_tui.core.config_model import load_settings
    from sagan_tui.sim import SimServer
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    with SimServer(scenario="reaping-wave") as sim:
        settings, _ = load_settings({**sim.env(), "SAGAN_TUI_CONFIG": str(path.parent / "none.toml")},
                                    sagan_tui_cache=str(path), poll_interval=EVERY_S)
        cache = Cache(settings.cache_path)
        poller = Poller(settings, cache)
        try:
            sim.clock.jump_to(START_T)
            while sim.clock.now_t() < END_T:
                began = time.monotonic()
                changes = await poller.poll_once(force=True)
                print(f"t={sim.clock.now_t():5.0f} {changes.summary_line()}", file=sys.stderr)
                await asyncio.sleep(max(0.0, EVERY_S - (time.monotonic() - began)))
        finally:
            await poller.aclose()
            cache.close()


def run(*args: str) -> str:
    out = subprocess.run([str(EXE), *args], capture_output=True, text=True, check=True, timeout=120)
    return out.stdout


def second_example() -> str:
    return run("waves", "--input", str(DOCS / "reaping-wave-losses.jsonl"), "--format", "markdown")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache.sqlite"
        asyncio.run(_fill(cache))
        first = run("report", "--cache", str(cache))
    text = PREFACE.format(every=EVERY_S) + first.rstrip("\n") + "\n" + SECOND + second_example()
    (DOCS / "incident-report-example.md").write_text(text, encoding="utf-8")
    print(f"wrote {DOCS / 'incident-report-example.md'}", file=sys.stderr)


if __name__ == "__main__":
    main()
