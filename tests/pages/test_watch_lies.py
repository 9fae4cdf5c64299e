"""Replies that lie for one poll (tests/reliability/test_lies.py's, through its hostile proxy) under
`watch` with the most eager auto_contain rules: no page, no hold, no stop. An automatic action acts
on confirmed losses only, and a lie told once confirms none."""

from __future__ import annotations

from argparse import Namespace

import pytest

from sagan_tui.commands.watch import Watch, checked
from sagan_tui.core.config_model import load_settings
from sagan_tui.core.store.cache import Cache
from tests.reliability.hostile_proxy import HostileProxy
from tests.reliability.test_lies import FIXTURE, LIES, _lies

from .stand_ins import StandIn

EAGER = "platform-reaper:low account-stop:low host-failure:low account-action:low unclear:low"


@pytest.mark.parametrize("lie", LIES)
async def test_a_lie_told_once_pages_nobody_and_holds_nothing(sim_factory, tmp_path, lie):
    sim = sim_factory(fixture=FIXTURE)
    proxy, hook = HostileProxy(sim).start(), StandIn("json").start()
    try:
        env = {**proxy.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"),
               "RUNPOD_TRANSPORT_TEAM": "rest-v2", "RUNPOD_TRANSPORT_PERSONAL": "rest-v2"}
        settings, _ = load_settings(env, sagan_tui_cache=str(tmp_path / "cache.sqlite"), poll_interval=1.0,
                                    page_urls=f"json://127.0.0.1:{hook.port}/hook", auto_contain=EAGER,
                                    runway_warn_hours=0)  # the fixture's short runway is true: not this test's
        lines: list[str] = []
        w = Watch(Namespace(for_seconds=None), settings, Cache(settings.cache_path), *checked(settings))
        w.say = w.pager.say = lines.append
        sim.clock.jump_to(20)
        await w.poll_once()
        for path, told, key in _lies(sim)[lie]:
            proxy.lie(path, told, key=key)
        await w.poll_once()
        assert proxy.told, "the lie was told"
        await w.poll_once()
        await w.poll_once()
        audit = w.cache.actions()
        await w.close(drain_s=10)
    finally:
        proxy.stop()
        hook.stop()
    assert hook.requests == [] and lines == [], lines
    assert not [a for a in audit if a.action in ("hold", "stop", "auto-contain")]
    assert all(e.status_at(30) != "blocked" for e in sim.state.experiments.values())
