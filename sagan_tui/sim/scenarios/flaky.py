"""`flaky`: the calm day over bad links: timeouts, 5xx, 429 and truncated JSON on every source.

Each source gets its own schedule (seeded): good stretches of 20-60 s between bad windows of
10-30 s, cycling through the failure kinds, for the first two hours.
"""

from __future__ import annotations

import random
from typing import Any

from . import calm
from ._kit import accounts

KINDS = ("timeout", "500", "429", "bad-json")
HORIZON_S = 7200.0


def schedule(rng: random.Random, first_good: float) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    t = first_good
    kinds = list(KINDS)
    rng.shuffle(kinds)
    k = 0
    while t < HORIZON_S:
        length = rng.uniform(10, 30)
        out.append({"from": round(t, 1), "to": round(t + length, 1), "kind": kinds[k % len(kinds)]})
        k += 1
        t += length + rng.uniform(20, 60)
    return out


def build(seed: int = 0) -> dict[str, Any]:
    rng = random.Random(f"flaky:{seed}")
    fx = calm.build(seed)
    fx["name"] = "flaky"
    # staggered starts, so one source is usually down while the others answer
    fx["sagan"] = {"token": "sagan-demo-token", "failures": schedule(rng, 15)}
    fx["accounts"] = accounts(team=schedule(rng, 25), personal=schedule(rng, 40))
    return fx
