"""The owner's desk as a screen composes it: the desk (panel/desk.py) with one object per job of the registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sagan_tui.panel.desk import Desk, Selection
from sagan_tui.panel.desk_incident import IncidentActions
from sagan_tui.panel.desk_plans import PlanActions
from sagan_tui.panel.desk_pods import PodActions
from sagan_tui.panel.desk_results import RecordActions, ResultActions

if TYPE_CHECKING:
    from textual.dom import DOMNode

# The registry's desk groups (panel/registry.py DESK_GROUPS), each to the object that runs its entries.
JOBS = {"plans": PlanActions, "incident": IncidentActions, "pods": PodActions, "results": ResultActions,
        "records": RecordActions}


def owner_desk(node: DOMNode, selection: Selection) -> Desk:
    """The desk of a screen (`node`) that offers every desk group, on what it selects."""
    return Desk(node, selection, JOBS)
