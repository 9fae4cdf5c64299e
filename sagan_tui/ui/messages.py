"""Typed messages that workers post to the main thread; their payloads are immutable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from rich.text import Text

    from sagan_tui.sources.sagan import ExperimentView
    from sagan_tui.sync.poller import ChangeSet


@dataclass
class PollFinished(Message):
    """One poll cycle ended; `changes` says what to re-read from the cache."""

    changes: "ChangeSet"


@dataclass
class PollCrashed(Message):
    """The poll itself raised (a bug of ours, not a source's failure: those are in the health)."""

    error: str


@dataclass
class ExperimentViewed(Message):
    """The detail view's fetch of one experiment ended: its view, or the error text."""

    number: int
    view: "ExperimentView | None"
    error: str | None = None


@dataclass
class PlanRendered(Message):
    """A plan's markdown, rendered off the main thread at one width (a 60 KB plan takes seconds)."""

    number: int
    width: int
    source: str
    text: "Text"
