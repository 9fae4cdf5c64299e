"""Shared fixtures: simulators of Sagan and RunPod on loopback, stopped when the test ends."""

from __future__ import annotations

import os
from typing import Any, Callable

import pytest
from hypothesis import settings

# `make test` runs each property on the same examples on every machine (CI or not), with no
# example database: a result never depends on a draw or on what an earlier run found. The random
# exploration is `make fuzz` (SAGAN_TUI_FUZZ=1, longer with SAGAN_TUI_SOAK=1); a counterexample
# it finds is pinned as an @example beside its test, so `make test` runs it every time.
# Loaded here, before any test module builds its own settings(...): those inherit the profile.
settings.register_profile("derandomized", derandomize=True, database=None)
settings.register_profile("fuzz", derandomize=False, database=None, print_blob=True)
FUZZING = os.environ.get("SAGAN_TUI_FUZZ") == "1"
settings.load_profile("fuzz" if FUZZING else "derandomized")


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


@pytest.fixture
def snap_compare(snap_compare, monkeypatch):
    """pytest-textual-snapshot's, with text cursors that do not blink: a focused Input hides its
    cursor half of every second, so a screenshot taken more than 0.5 s after the focus (a loaded
    machine) drew the dialog without it and failed against its snapshot."""
    from textual.widgets import Input

    monkeypatch.setattr(Input, "_toggle_cursor", lambda self: None)
    return snap_compare


@pytest.fixture(scope="session")
def other_user():
    """How to run `python -m sagan_tui` as another user (tests/other_user.py); skips saying why
    when this machine cannot."""
    import shutil

    from tests.other_user import other_user as make

    who = make()
    if who.skip:
        pytest.skip(who.skip)
    yield who
    if who.copy is not None:
        shutil.rmtree(who.copy, ignore_errors=True)
