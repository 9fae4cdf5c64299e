"""Shared fixtures: simulators of Sagan and RunPod on loopback, stopped when the test ends."""

from __future__ import annotations

from typing import Any, Callable

import pytest


@pytest.fixture
def sim_factory() -> Callable[..., Any]:
    """`sim_factory(scenario="calm" | fixture=..., speed=..., latency=..., seed=...)` -> a started SimServer."""
    from sagan_tui.sim import SimServer  # lazily: most tests never need the simulator

    started: list[SimServer] = []

    def make(**kwargs: Any) -> SimServer:
        sim = SimServer(**kwargs).start()
        started.append(sim)
        return sim

    yield make
    for sim in started:
        sim.stop()


@pytest.fixture
def calm_sim(sim_factory):
    """One running `calm` simulator."""
    return sim_factory(scenario="calm")
