"""Typed messages posted to the main thread (by the session's thread and by workers); payloads are immutable."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from rich.text import Text

    from sagan_tui.wire.channel.views import DetailView, FailedView, PodDetailView, ReadyView, UpdateView

# Classes with their own __init__, not dataclasses: the first frame imports this module, and a
# dataclass compiles its generated methods when it is made (docs/performance.md, `start_to_first_frame`).


class Loaded(Message):
    """The session opened the cache and read the model: the whole panel, to paint by key."""

    def __init__(self, ready: ReadyView) -> None:
        super().__init__()
        self.ready = ready


class LoadFailed(Message):
    """The settings did not validate, or the cache could not be opened: the panel cannot run."""

    def __init__(self, failed: FailedView) -> None:
        super().__init__()
        self.failed = failed


class Updated(Message):
    """Rows, losses, health or notes that changed (after a poll, another writer's commit, a tick)."""

    def __init__(self, update: UpdateView) -> None:
        super().__init__()
        self.update = update


class ExperimentViewed(Message):
    """The detail view's fetch of one experiment ended: its view, or the error text."""

    def __init__(self, number: int, view: DetailView | None, error: str | None = None) -> None:
        super().__init__()
        self.number, self.view, self.error = number, view, error


class PodViewed(Message):
    """The pod screen's read of one pod's record ended: its view, or the error text."""

    def __init__(self, pod_id: str, view: PodDetailView | None, error: str | None = None) -> None:
        super().__init__()
        self.pod_id, self.view, self.error = pod_id, view, error


class PlanRendered(Message):
    """A plan's markdown, rendered off the main thread at one width (a 60 KB plan takes seconds)."""

    def __init__(self, number: int, width: int, source: str, text: Text) -> None:
        super().__init__()
        self.number, self.width, self.source, self.text = number, width, source, text
