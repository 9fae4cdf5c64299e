"""`make bench`: every figure against its same-run baseline; one table, bench/results.json, bench/README.md.

`python bench/run_all.py [--only NAME,...] [--small]`. The warm `large-fleet` cache is built once
and shared (BENCH_WARM_CACHE). A benchmark that fails is reported as such; the others still run.
"""

from __future__ import annotations

import gc
import importlib
import os
import re
import sys
import time
import traceback
from datetime import datetime, timezone

from common import BENCH, FIXES, Figure, save, settle_disk, table, warm_cache, temp_dir

# Cheapest first; the two that build a million objects or poll a hundred times last.
MODULES = ("bench_start", "bench_cold", "bench_tables", "bench_channel", "bench_output", "bench_ssh", "bench_keys",
           "bench_lock", "bench_contain", "bench_poll", "bench_ingest", "bench_fleet", "bench_fleet_keys", "bench_watch",
           "bench_attach", "bench_memory", "bench_waves")
README = BENCH / "README.md"
BEGIN, END = "<!-- bench:table -->", "<!-- /bench:table -->"


def update_readme(text: str) -> None:
    """Replace the table between the markers of bench/README.md."""
    doc = README.read_text(encoding="utf-8")
    if BEGIN not in doc or END not in doc:
        return
    doc = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _m: f"{BEGIN}\n{text}\n{END}", doc, flags=re.S)
    README.write_text(doc, encoding="utf-8")


def main() -> int:
    args = sys.argv[1:]
    small = "--small" in args
    only = next((a.split("=", 1)[1] for a in args if a.startswith("--only=")), None)
    names = [m for m in MODULES if not only or m.removeprefix("bench_") in only.split(",")]
    t0 = time.monotonic()
    if not small:
        os.environ.setdefault("BENCH_WARM_CACHE", str(temp_dir("sagan-bench-") / "large-fleet.sqlite"))
        print("building the warm large-fleet cache...", file=sys.stderr, flush=True)
        warm_cache()
    figures: list[Figure] = []
    failed: list[str] = []
    for name in names:
        settle_disk()  # the bench before's writes (and the warm cache's) are not flushed on this one's time
        started = time.monotonic()
        print(f"{name}...", file=sys.stderr, flush=True)
        try:
            got = importlib.import_module(name).run(small=small)
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        finally:
            gc.collect()
        figures += got
        print(f"  {time.monotonic() - started:.0f} s: " + ", ".join(f"{f.name} {'ok' if f.ok else 'MISS'}" for f in got),
              file=sys.stderr, flush=True)
    text = table(figures)
    print(table(figures, markdown=False))
    if failed:
        print(f"failed: {', '.join(failed)}")
    print(f"({time.monotonic() - t0:.0f} s)")
    if FIXES:
        print("(bench/candidate_fixes.py applied: results.json and README left alone)")
    elif not small:
        save(figures, whole=not only and not failed)
        if not only:
            stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
            update_readme(f"`make bench`, {stamp}, {os.cpu_count()} cores, load average "
                          f"{os.getloadavg()[0]:.1f} at the end:\n\n{text}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
