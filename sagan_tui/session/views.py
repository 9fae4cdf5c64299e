"""The session's updates and answers as the channel's view Structs (sagan_tui/channel/views.py).

Run on the session's side, in the thread that published: the UI receives rows, health and words,
never a record of the core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from sagan_tui.channel.views import (ActionResultView, ApprovalView, AuditView, CellView, FailedView, NoteView,
                                     ReadyView, RowView, TimelineView, UpdateView, VerdictView)

if TYPE_CHECKING:
    from sagan_tui.actions.results import ActionResult
    from sagan_tui.models import Action, ApprovalRequest
    from sagan_tui.render import Row
    from sagan_tui.session.updates import PanelUpdate, SessionFailed, SessionReady
    from sagan_tui.triage import GuardVerdict


def row_view(row: "Row") -> RowView:
    return RowView(tuple(CellView(c.text, c.style, c.sort) for c in row.cells), row.group, row.order, row.until)


def rows_view(rows: Mapping[str, "Row"]) -> dict[str, RowView]:
    return {k: row_view(r) for k, r in rows.items()}


def update_view(u: "PanelUpdate") -> UpdateView:
    return UpdateView(
        full=u.full, experiments=rows_view(u.experiments), pods=rows_view(u.pods), pods_removed=tuple(u.pods_removed),
        approvals=None if u.approvals is None else rows_view(u.approvals),
        timelines=tuple(TimelineView(t.tag, t.experiment, t.kind, rows_view(t.rows), dict(t.subjects))
                        for t in u.timelines),
        health=None if u.health is None else dict(u.health),
        notes=tuple(NoteView(n.message, n.title, n.severity, n.timeout, n.ring) for n in u.notes),
        in_flight=None if u.in_flight is None else dict(u.in_flight), polls=u.polls, said=u.said, answer=u.answer)


def ready_view(ready: "SessionReady") -> ReadyView:
    return ReadyView(ready.settings.ui(), tuple(ready.notices), update_view(ready.first))


def failed_view(failed: "SessionFailed") -> FailedView:
    return FailedView(failed.error, failed.exit_code)


def action_view(r: "ActionResult") -> ActionResultView:
    return ActionResultView(r.ok, r.message, r.server_error, r.refused, r.verb, r.target, r.account, r.audit_id,
                            tuple(action_view(p) for p in r.parts), r.cancelled, r.did)


def verdict_view(v: "GuardVerdict") -> VerdictView:
    from sagan_tui.triage import wave_summary

    return VerdictView(v.needs_typed_confirmation, tuple(v.reasons), float(v.expected_burn_usd), v.summary,
                       v.burn_basis, wave_summary(v.wave) if v.wave is not None else "")


def approval_view(a: "ApprovalRequest") -> ApprovalView:
    return ApprovalView(a.id, a.experiment_number, a.kind, a.title, a.body_md, a.status, a.requested_by,
                        tuple(a.textbox_fields))


def audit_view(a: "Action") -> AuditView:
    return AuditView(a.id, a.at.isoformat(), a.action, a.target, a.account, a.result, a.error, a.detail)


def plain(value: Any) -> Any:
    """A tuple of records as plain tuples (balance history rows), for msgspec's typed check."""
    return tuple(tuple(r) for r in value)
