"""Every notification an app has made, kept for the test (Textual drops a toast once it times out)."""

from __future__ import annotations


def notes(app) -> list:
    """The app's notifications so far, oldest first, expired ones included.

    `app._notifications` forgets a toast when its timeout passes; a test that looks after a slow
    step under load would miss it. `tests/conftest.py` keeps each one as it is added.
    """
    return list(getattr(app._notifications, "kept", []))
