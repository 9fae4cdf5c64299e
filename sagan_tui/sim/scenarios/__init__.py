"""The built-in scenarios: each a function of a seed returning a fixture dict (DESIGN.md's format)."""

from __future__ import annotations

from typing import Any, Callable

from . import auth_revoked, calm, flaky, large_fleet, reaper_recovery, reaping_wave

SCENARIOS: dict[str, Callable[[int], dict[str, Any]]] = {
    "calm": calm.build,
    "reaping-wave": reaping_wave.build,
    "reaper-recovery": reaper_recovery.build,
    "auth-revoked": auth_revoked.build,
    "flaky": flaky.build,
    "large-fleet": large_fleet.build,
}


def build_scenario(name: str, seed: int = 0) -> dict[str, Any]:
    if name not in SCENARIOS:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(SCENARIOS)}")
    return SCENARIOS[name](seed)
