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
def every_notification_kept():
    """Keep each toast an app is asked for (read with tests/harness.py `notes`): Textual removes
    one when its timeout passes, which made a check after a slow step depend on the machine's load."""
    from tests.harness import keep_toasts

    undo = keep_toasts()
    yield
    undo()


@pytest.fixture(autouse=True)
def colour_system_pinned(monkeypatch):
    """Every app a test builds draws for truecolor, whatever TERM the run has: with "auto" Rich reads
    TERM (xterm here, unset in some CI), and under 16 colours the panel draws otherwise
    (panel/colours16.py). A test of the 16 colours sets "standard" itself."""
    import textual.constants

    monkeypatch.setattr(textual.constants, "COLOR_SYSTEM", "truecolor")


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
    machine) drew the dialog without it and failed against its snapshot. Each Input is made with
    its public `cursor_blink` off, so its cursor stays drawn."""
    from textual.widgets import Input

    from tests.harness import settled

    made = Input.__init__

    def steady(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self.cursor_blink = False

    monkeypatch.setattr(Input, "__init__", steady)

    def compare(app, *args, press=(), run_before=None, **kwargs):
        """The keys are pressed in `run_before`, and the screenshot waits for the panel's
        session to have answered what the screen asked for (tests/harness.py `settled`)."""
        async def before(pilot) -> None:
            if run_before is not None:
                result = run_before(pilot)
                if result is not None:
                    await result
            await pilot.pause()
            for key in press:
                await pilot.press(key)
            await settled(pilot)

        return snap_compare(app, *args, run_before=before, **kwargs)

    return compare


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
