"""Every notification an app has made, kept for the test (Textual drops a toast once it times out)."""

from __future__ import annotations


def notes(app) -> list:
    """The app's notifications so far, oldest first, expired ones included.

    Most go to the panel's notification area (ui/news.py), which remembers what it was told; a
    dialog's line passes them on when it closes; a toast (a screen without either) is kept by
    `tests/conftest.py` as it is added (`app._notifications` forgets one when its timeout passes).
    """
    return list(app.news.heard) + list(getattr(app._notifications, "kept", []))


def toasts(app) -> list:
    """The toasts Textual was asked to show (kept by tests/conftest.py): the panel's own news never is one."""
    return list(getattr(app._notifications, "kept", []))
