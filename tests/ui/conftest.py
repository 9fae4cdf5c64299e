"""Pilot helpers: the panel against a simulator over loopback, polls driven and awaited by count."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

import pytest

from sagan_tui.config_model import Settings, load_settings
from sagan_tui.store.cache import Cache
from sagan_tui.sync.poller import Poller

SIZE = (200, 50)


def sim_settings(sim, tmp: Path, **flags) -> Settings:
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp / "no-config.toml")}
    flags.setdefault("poll_interval", 60.0)  # tests drive polls themselves
    s, _ = load_settings(env, sagan_tui_cache=str(tmp / "cache.sqlite"), bell=False, **flags)
    return s


@pytest.fixture
def panel(tmp_path):
    """`panel(sim, **flags)` -> a SaganApp on that simulator with a fresh cache in tmp_path."""
    from sagan_tui.ui.app import SaganApp
    from tests.in_process import panel_app

    caches: list[Cache] = []

    def make(sim, *, poll: bool = True, clock=None, **flags) -> SaganApp:
        s = sim_settings(sim, tmp_path, **flags)
        cache = Cache(s.cache_path)
        caches.append(cache)
        kw = {"clock": clock} if clock else {}
        return panel_app(s, cache, Poller(s, cache), poll=poll, **kw)

    yield make
    for c in caches:
        c.close()


async def wait_for(pilot, cond: Callable[[], bool], timeout: float = 15.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def polled(pilot, app, n: int = 1) -> None:
    """Wait until `n` poll rounds have ended since the start (the first starts by itself: the
    session's thread may finish it before the test's first line runs)."""
    await wait_for(pilot, lambda: app.polls >= n and not app.polling, what=f"poll #{n}")


async def poll_now(pilot, app) -> None:
    """Force one poll and wait for its PollFinished to be handled."""
    await wait_for(pilot, lambda: not app.polling, what="idle poller")
    before = app.polls
    app.request_refresh()
    await wait_for(pilot, lambda: app.polls > before and not app.polling, what="forced poll")


async def fill_cache(sim, tmp: Path) -> dict[str, int]:
    """A cache filled by a real poll of `sim`, closed again (what a previous session left)."""
    s = sim_settings(sim, tmp)
    cache = Cache(s.cache_path)
    poller = Poller(s, cache)
    try:
        await poller.poll_once()
    finally:
        await poller.aclose()
    counts = cache.counts()
    cache.close()
    return counts
