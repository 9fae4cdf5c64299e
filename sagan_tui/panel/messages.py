"""Typed messages posted to the main thread (by the session's thread and by workers); payloads are immutable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from rich.text import Text

    from sagan_tui.wire.channel.views import DetailView, FailedView, PodDetailView, ReadyView, UpdateView


@dataclass
class Loaded(Message):
    """The session opened the cache and read the model: the whole panel, to paint by key."""

    ready: "ReadyView"


@dataclass
class LoadFailed(Message):
    """The settings did not validate, or the cache could not be opened: the panel cannot run."""

    failed: "FailedView"


@dataclass
class Updated(Message):
    """Rows, losses, health or notes that changed (after a poll, another writer's commit, a tick)."""

    update: "UpdateView"


@dataclass
class ExperimentViewed(Message):
    """The detail view's fetch of one experiment ended: its view, or the error text."""

    number: int
    view: "DetailView | None"
    error: str | None = None


@dataclass
class PodViewed(Message):
    """The pod screen's read of one pod's record ended: its view, or the error text."""

    pod_id: str
    view: "PodDetailView | None"
    error: str | None = None


@dataclass
class PlanRendered(Message):
    """A plan's markdown, rendered off the main thread at one width (a 60 KB plan takes seconds)."""

    number: int
    width: int
    source: str
    text: "Text"
