"""What the app offers its action screens: the seam between the panel and the owner's actions.

The App (ui/app.py) implements PanelHost; the ActionsMixin (ui/actions_mixin.py) is mixed
into the App and uses only these members, so either side can change without the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from sagan_tui.config import Settings
    from sagan_tui.models import Experiment, Loss
    from sagan_tui.store.cache import Cache, CachedPod
    from sagan_tui.sync.poller import Poller


class PanelHost(Protocol):
    settings: "Settings"
    cache: "Cache"
    poller: "Poller"  # poller.sagan is the SaganClient; poller.transports[account] the RunPod transport

    def selected_experiment(self) -> "Experiment | None":
        """The experiment under the cursor (experiments pane, or the pod's experiment)."""

    def selected_pod(self) -> "CachedPod | None":
        """The pod under the cursor in the pods pane, if that pane is focused."""

    def marked_experiments(self) -> list[int]:
        """Experiment numbers marked with space, in the order marked."""

    def marked_pods(self) -> list[str]:
        """Pod ids marked with space."""

    def clear_marks(self) -> None: ...

    def current_losses(self) -> list["Loss"]:
        """Losses as last read from the cache (merged, undismissed)."""

    def request_refresh(self) -> None:
        """Poll now (after an action, so its effect shows on the next poll)."""
