"""The panel's core in the session process: PanelSession, which builds the wire's updates."""

from sagan_tui.core.session.core import PanelSession

__all__ = ["PanelSession"]
