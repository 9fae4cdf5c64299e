"""The panel's core, off the UI thread: PanelSession and the immutable updates it hands the UI."""

from sagan_tui.core.session.core import PanelSession
from sagan_tui.core.session.updates import PanelUpdate, SessionFailed, SessionReady, TimelineRows

__all__ = ["PanelSession", "PanelUpdate", "SessionFailed", "SessionReady", "TimelineRows"]
