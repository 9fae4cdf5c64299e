"""Pilot fixtures: the panel against a simulator over loopback (tests/harness.py), with a fresh cache in tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagan_tui.core.store.cache import Cache
from sagan_tui.core.sync.poller import Poller
from tests.harness import sim_settings


@pytest.fixture
def panel(tmp_path):
    """`panel(sim, **flags)` -> a SaganApp on that simulator with a fresh cache in tmp_path."""
    from tests.harness import panel_on

    caches: list[Cache] = []

    def make(sim, *, poll: bool = True, clock=None, **flags):
        app, cache = panel_on(sim_settings(sim, tmp_path, **flags), poll=poll, clock=clock)
        caches.append(cache)
        return app

    yield make
    for c in caches:
        c.close()


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
