"""Placeholder: the owner's action bindings, mixed into the App. Owned by the actions work (issue #5)."""

from __future__ import annotations


class ActionsMixin:
    """Bindings and action_* methods for approve, hold, re-dispatch, stop, promote, marks, export."""

    ACTION_BINDINGS: list = []
