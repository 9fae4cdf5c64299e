"""Shared fixtures: simulators of Sagan and RunPod on loopback, stopped when the test ends."""

from __future__ import annotations

from typing import Any, Callable

import pytest


@pytest.fixture(autouse=True)
def every_notification_kept(monkeypatch):
    """Keep each notification an app adds (read with tests/notes.py `notes`): Textual removes one
    from `app._notifications` when its timeout passes, which made a check after a slow step
    depend on how loaded the machine was."""
    from textual.notifications import Notifications

    add = Notifications.add

    def keep(self, notification):
        self.__dict__.setdefault("kept", []).append(notification)
        return add(self, notification)

    monkeypatch.setattr(Notifications, "add", keep)


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


@pytest.fixture
def headless_env(monkeypatch, tmp_path):
    """The commands run in this process with no user config, no keys and a Sagan that refuses at
    once (nothing leaves loopback); the cache is tmp_path/c.sqlite unless a test gives --cache."""
    import os

    for k in list(os.environ):
        if k.startswith(("SAGAN", "RUNPOD")):
            monkeypatch.delenv(k)
    monkeypatch.setenv("SAGAN_TUI_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("SAGAN_BASE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("SAGAN_TUI_CACHE", str(tmp_path / "c.sqlite"))
    return monkeypatch
