"""What the panel does after its first frame: open the cache and the poller, read the whole model."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Callable

from textual.message import Message

if TYPE_CHECKING:
    from sagan_tui.config import Settings
    from sagan_tui.store.cache import Cache
    from sagan_tui.sync.poller import Poller
    from sagan_tui.ui.model import PanelModel


@dataclass
class Loaded(Message):
    """The cache, poller and a fully read model, built off the main thread and handed over whole:
    the worker keeps no reference, so the main thread is their only user from here on."""

    settings: "Settings"
    cache: "Cache"
    poller: "Poller"
    model: "PanelModel"


@dataclass
class LoadFailed(Message):
    """The settings did not validate, or the cache could not be opened at all (not even
    rebuilt): the panel cannot run. `error` is the whole line to print."""

    error: str
    exit_code: int = 1


def load(settings: "Settings", cache: "Cache | None", poller: "Poller | None",
         clock: Callable[[], datetime]) -> Loaded:
    """Open what was not given (a cache that needs migrating or moving aside is handled here) and
    read everything the panes show; slow (imports, pydantic, thousands of rows), so run in a thread."""
    from sagan_tui.store.cache import Cache
    from sagan_tui.sync.poller import Poller
    from sagan_tui.ui.model import PanelModel

    cache = cache or Cache(settings.cache_path)
    poller = poller or Poller(settings, cache)
    model = PanelModel(settings, cache, clock)
    model.load(poller.health)
    return Loaded(settings, cache, poller, model)
