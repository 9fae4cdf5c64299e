"""Reliability rigs: a stub server for hostile replies, a poller on a fresh cache, and the figures each test reports."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .stub_server import StubServer

# `make soak` (SAGAN_TUI_SOAK=1) runs the long variants; the figures of docs/reliability.md come from it.
SOAK = os.environ.get("SAGAN_TUI_SOAK") == "1"
FIGURES: dict[str, object] = {}


@pytest.fixture(scope="session")
def figures():
    """Tests put their counts here; written as JSON to $SAGAN_TUI_FIGURES at the end of the session."""
    yield FIGURES
    out = os.environ.get("SAGAN_TUI_FIGURES")
    if out and FIGURES:
        path = Path(out)
        path.parent.mkdir(parents=True, exist_ok=True)
        old = json.loads(path.read_text()) if path.is_file() else {}
        path.write_text(json.dumps({**old, **FIGURES}, indent=2, sort_keys=True, default=str) + "\n")


def pytest_terminal_summary(terminalreporter):
    """`make soak` prints the figures docs/reliability.md quotes."""
    if FIGURES and (SOAK or os.environ.get("SAGAN_TUI_FIGURES")):
        terminalreporter.section("reliability figures")
        terminalreporter.write_line(json.dumps(FIGURES, indent=2, sort_keys=True, default=str))


@pytest.fixture(autouse=True)
def _gc_unfrozen():
    """A stall measurement freezes the heap of earlier tests out of the collector; never past its test."""
    import gc

    yield
    gc.unfreeze()


@pytest.fixture
def stub():
    with StubServer() as s:
        yield s


def no_config(tmp_path: Path) -> dict[str, str]:
    return {"SAGAN_TUI_CONFIG": str(tmp_path / "absent.toml")}


def open_poller(env: dict[str, str], cache_path: Path, *, retries: int | None = None, **flags):
    """(Poller, Cache) configured from `env` alone, on its own cache file, as `sync` builds them."""
    from sagan_tui.core.config_model import load_settings
    from sagan_tui.core.store.cache import Cache
    from sagan_tui.core.sync.poller import Poller

    fast = flags.pop("poll_interval", None)
    settings, _ = load_settings({**env, **no_config(Path(cache_path).parent)}, sagan_tui_cache=str(cache_path),
                                **flags)
    settings = faster(settings, fast)
    cache = Cache(settings.cache_path)
    poller = Poller(settings, cache)
    if retries is not None:
        poller.sagan.retries = retries
    return poller, cache


# --- the real panel under Pilot -------------------------------------------------------------

def panel_settings(env: dict[str, str], tmp_path: Path, **flags):
    from sagan_tui.core.config_model import load_settings

    fast = flags.pop("poll_interval", 60.0)  # tests drive the polls
    settings, _ = load_settings({**env, **no_config(tmp_path)}, bell=False,
                                sagan_tui_cache=str(tmp_path / "panel.sqlite"), **flags)
    return faster(settings, fast)


def faster(settings, poll_interval: float | None):
    """`settings` polling every `poll_interval` s, even under the 0.5 s a user may set: these
    tests count requests and backoffs against the simulator at a few hundredths of a second."""
    return settings if poll_interval is None else settings.model_copy(update={"poll_interval": poll_interval})


@pytest.fixture
def panel(tmp_path):
    """`panel(env, **flags)` -> (SaganApp, Cache) on a fresh cache; the cache is closed afterwards."""
    from tests.harness import panel_on

    caches = []

    def make(env: dict[str, str], *, poll: bool = False, **flags):
        app, cache = panel_on(panel_settings(env, tmp_path, **flags), poll=poll)
        caches.append(cache)
        return app, cache

    yield make
    for c in caches:
        c.close()
