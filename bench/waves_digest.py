"""The digest of what the `waves` figure times: a change made for speed must leave it unchanged.

`python bench/waves_digest.py [--sizes 200000,1000000] [--fuzz N]` prints one SHA-256 per input:
bench_waves' records at each size (find_waves then build_grid as the bench calls them), the
loss records of docs/reaping-wave-losses.jsonl (with their forming clusters), and N seeded random
inputs made to hit the corners (ties at one instant, naive datetimes, running_at unknown or
after the loss, shared hosts and accounts, an account out of balance, polled and exact times,
every gap and guard, the same losses again as equal copies). Each wave is hashed by its pod ids
in order, start and end, bursts, verdict (cause, confidence, for, against, next step) and
diagnosis (at a million, the verdicts of the first 20,000 waves; for naive datetimes, which the
diagnosis cannot weigh, none); each grid by its rows, columns, counts and marked columns, and a
few cells' losses. Run it before and after a change (also under another TZ, where a naive
datetime read as local time would show) and compare the lines.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]


def wave_text(w, full: bool = True) -> str:
    from sagan_tui.core.triage.verdict import diagnosis_of, verdict_of

    parts = [",".join(w.pod_ids), w.start.isoformat(), w.end.isoformat(),
             "|".join(",".join(b.pod_ids) for b in w.bursts)]
    if full:
        v = verdict_of(w)
        parts += [v.cause, v.confidence, repr(v.for_), repr(v.against), v.next_step,
                  repr([(f.kind, f.statement, tuple(f.evidence)) for f in diagnosis_of(w)])]
    return "\n".join(parts)


def grid_text(g, cells: int = 0) -> str:
    parts = [g.dimension, repr(g.rows), repr([b.isoformat() for b in g.bucket_starts]), repr(g.bucket_s),
             repr(g.counts), repr(g.max_count), repr(sorted(g.wave_columns))]
    rng = random.Random(len(g.rows) * 31 + len(g.bucket_starts))
    for _ in range(cells):
        if g.rows:
            r, c = rng.randrange(len(g.rows)), rng.randrange(len(g.bucket_starts))
            parts.append(repr([x.pod_id for x in g.cell_losses(r, c)]))
    return "\n".join(parts)


def digest(waves, grid, full: bool = True, extra: str = "") -> str:
    h = hashlib.sha256()
    for w in waves:
        h.update(wave_text(w, full).encode())
        h.update(b"\0")
    h.update(grid_text(grid).encode())
    h.update(extra.encode())
    return h.hexdigest()


def bench_input(n: int) -> str:
    from bench_waves import SPAN_S, START, make_losses

    from sagan_tui.core.triage import build_grid, find_waves

    losses = make_losses(n)
    t0 = time.perf_counter()
    waves = find_waves(losses)
    grid = build_grid(losses, "account", START, START + timedelta(seconds=SPAN_S), 120, waves)
    took = time.perf_counter() - t0
    # Every wave's verdict and diagnosis at 200k; at a million the pod ids, bounds and bursts of
    # all (the verdicts of the first 20,000: weighing every one takes minutes).
    full = n <= 200_000
    h = digest(waves, grid, full)
    if not full:
        h = hashlib.sha256((h + digest(waves[:20_000], grid, True)).encode()).hexdigest()
    return f"bench {n}: {len(waves)} waves, analysed in {took:.2f}s: {h}"


def jsonl_input() -> str:
    from sagan_tui.core.triage import build_grid, find_waves
    from sagan_tui.core.triage.forming import find_forming
    from sagan_tui.core.triage.records import parse_loss_lines, waves_to_json

    losses, errors = parse_loss_lines((ROOT / "docs" / "reaping-wave-losses.jsonl").read_text().splitlines())
    waves = find_waves(losses)
    start, end = min(x.lost_at for x in losses), max(x.lost_at for x in losses)
    grid = build_grid(losses, "experiment", start, end, 40, waves)
    extra = repr(waves_to_json(waves, forming=find_forming(losses, waves))) + repr(errors)
    return f"docs/reaping-wave-losses.jsonl: {len(waves)} waves: {digest(waves, grid, extra=extra)}"


T0 = datetime(2026, 5, 14, 10, 0, tzinfo=timezone.utc)


def random_losses(rng: random.Random) -> list:
    from sagan_tui.core.models import Loss

    n = rng.choice((0, 1, 2, 3, 5, 8, 20, 60, 200))
    naive = rng.random() < 0.25
    grain = rng.choice((1.0, 5.0, 0.001))  # whole seconds and 5 s polls make ties
    kill = rng.choice((45.0, 60.0, 600.0))
    hosts = rng.choice(((None,), ("h1",), ("h1", "h2", None)))
    accounts = rng.choice((("team",), ("team", "personal"), ("team", "team", "team", "personal")))
    spread = rng.choice((300, 3600, 86400))
    out = []
    for i in range(n):
        t = round(rng.uniform(0, spread) / grain) * grain
        lost = T0 + timedelta(seconds=t)
        r = rng.random()
        running = None if r < 0.15 else lost + timedelta(seconds=5) if r < 0.2 else \
            lost - timedelta(seconds=rng.choice((kill + rng.uniform(-3, 3), rng.uniform(10, 7200))))
        seen = lost - timedelta(seconds=rng.uniform(0, 10)) if rng.random() < 0.3 else None
        if naive:
            lost, running, seen = (d.replace(tzinfo=None) if d else None for d in (lost, running, seen))
        out.append(Loss.model_construct(
            pod_id=f"p{rng.getrandbits(40):010x}" if rng.random() < 0.95 else "pdup", account=rng.choice(accounts),
            experiment=rng.choice((None, 1, 2, 3)), running_at=running, last_seen_at=seen, lost_at=lost,
            gpu=rng.choice((None, "A100", "H100")), datacenter=rng.choice((None, "US-KS-2", "EU-RO-1")),
            cost_per_hr=rng.choice((None, 1.49)), source="runpod-poll", reason=None, run_id=None,
            host=rng.choice(hosts), dismissed=False, state="confirmed", confirmed_by=None,
            withdrawn_at=None, withdrawn_reason=None))
    return out


def broke_context():
    from sagan_tui.wire.basics import SourceHealth
    from sagan_tui.core.triage import TriageContext

    return TriageContext(health={"team": SourceHealth(source="team", balance=0.0, under_balance=True)},
                         accounts_polled=("team", "personal"))


def fuzz(count: int) -> str:
    from sagan_tui.core.triage import build_grid, find_waves
    from sagan_tui.core.triage.forming import find_forming

    h = hashlib.sha256()
    for seed in range(count):
        rng = random.Random(seed)
        losses = random_losses(rng)
        gap, min_losses = rng.choice((30.0, 90.0, 200.0)), rng.choice((1, 2, 3, 5))
        guard = rng.choice((0.0, 0.5, 5.0, 15.0))
        if rng.random() < 0.3:  # the same losses again, as equal copies: Timeline.of's reuse
            find_waves(losses, gap=gap, min_losses=min_losses, guard_minutes=guard)
            losses = [x.model_copy() for x in losses]
        context = broke_context() if rng.random() < 0.3 else None  # account stops: the account signature
        waves = find_waves(losses, gap=gap, min_losses=min_losses, context=context, guard_minutes=guard)
        forming = find_forming(losses, waves, gap=gap, min_losses=min_losses)
        h.update(repr([(f.pod_ids, f.reason) for f in forming]).encode())
        if losses:
            lo = min(x.lost_at for x in losses) - timedelta(seconds=rng.uniform(-60, 60))
            hi = max(x.lost_at for x in losses) + timedelta(seconds=rng.uniform(-60, 60))
            if lo.tzinfo is None:
                lo, hi = lo.replace(tzinfo=timezone.utc), hi.replace(tzinfo=timezone.utc)
            lo, hi = min(lo, hi), max(lo, hi)
        else:
            lo, hi = T0, T0 + timedelta(hours=1)
        dim = rng.choice(("account", "experiment", "datacenter", "gpu"))
        grid = build_grid(losses, dim, lo, hi, rng.choice((1, 7, 30, 120)), waves)
        h.update(grid_text(grid, cells=5).encode())
        # Naive datetimes (model_construct skips the validator that makes them UTC) are read
        # as UTC by the index; the diagnosis compares them with aware ones and cannot weigh them.
        naive = bool(losses) and losses[0].lost_at.tzinfo is None
        h.update(digest(waves, grid, full=not naive).encode())
    return f"fuzz {count}: {h.hexdigest()}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="200000,1000000")
    ap.add_argument("--fuzz", type=int, default=3000)
    args = ap.parse_args()
    print(jsonl_input(), flush=True)
    print(fuzz(args.fuzz), flush=True)
    for n in filter(None, args.sizes.split(",")):
        print(bench_input(int(n)), flush=True)


if __name__ == "__main__":
    main()
