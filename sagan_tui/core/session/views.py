"""The session's updates and answers as the channel's view Structs (sagan_tui/wire/channel/views.py).

Run on the session's side, in the thread that published: the UI receives rows, health and words,
never a record of the core.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Mapping, Sequence

import msgspec

from sagan_tui.wire.channel.rows import SentTables
from sagan_tui.core.session.updates import PanelUpdate
from sagan_tui.wire.channel.views import (ApprovalView, AuditView, BurstView, CachedPodView, CauseView,
                                     DetailView, ExperimentView, FailedView, FindingView, IncidentView,
                                     LossRecordView, NoteView, PodRecordView, ProposalView, ReadyView,
                                     ResponseLineView, RowView, TimelineView, UpdateView, VerdictView, WaveView)

if TYPE_CHECKING:
    from sagan_tui.core.models import Action, ApprovalRequest, Loss
    from sagan_tui.wire.render import Row
    from sagan_tui.core.session.updates import SessionFailed, SessionReady
    from sagan_tui.core.store.cache import CachedPod
    from sagan_tui.core.triage import GuardVerdict, Wave


def rows_view(rows: Mapping[str, RowView]) -> dict[str, RowView]:
    return dict(rows)  # render's rows are the wire's RowView already: no copy per row


def pod_view(cp: "CachedPod") -> CachedPodView:
    """What the UI reads of a cached pod (wire/channel/views.py's CachedPodView), made field by field
    from the RunPod record (what CachedPod's properties read, but the experiment from the pod's
    name): a poll that changes every pod makes one per pod, and a generic conversion of the
    pydantic record costs twice as much."""
    p = cp.pod
    number = p.experiment
    return CachedPodView(PodRecordView(p.desired_status, p.name, p.gpu, p.cost_per_hr), p.id, p.account,
                         cp.experiment if number is None else number, cp.gone_at, cp.gone_reason)


def _as(kind: type, obj: Any) -> Any:
    return msgspec.convert(obj, kind, from_attributes=True)


class _Losses(dict):
    """Each Loss made a view once per update (the same loss is in the list and in its wave)."""

    def of(self, loss: Any) -> LossRecordView:
        view = self.get(id(loss))
        if view is None:
            view = self[id(loss)] = _as(LossRecordView, loss)
        return view


def finding_view(f: Any) -> FindingView:
    return FindingView(f.kind, f.statement, tuple(f.evidence))


def cause_view(v: Any) -> CauseView:
    return CauseView(v.cause, v.confidence, v.title, v.headline, v.next_step,
                     tuple(finding_view(f) for f in v.for_), tuple(finding_view(f) for f in v.against),
                     tuple(v.missing), tuple(tuple(b) for b in v.broke), v.runner_up_text, tuple(v.unrelated))


def proposal_view(p: Any) -> ProposalView:
    """core/triage/response.py's Proposal as plain fields."""
    return ProposalView(cause_view(p.verdict),
                        tuple(ResponseLineView(x.key, x.label, x.detail, tuple(x.targets), x.checked, x.enabled)
                              for x in p.lines), tuple(p.holds), p.note, tuple(p.left_out))


def wave_view(w: "Wave", losses: _Losses | None = None) -> WaveView:
    """A wave weighed here (its verdict and diagnosis read every pod's sightings), sent as plain fields."""
    from sagan_tui.core.triage import wave_summary
    from sagan_tui.core.triage.grouping import signature_of
    from sagan_tui.core.triage.verdict import diagnosis_of, verdict_of

    losses = _Losses() if losses is None else losses
    cause = cause_view(verdict_of(w))
    return WaveView(
        w.start, w.end, tuple(losses.of(x) for x in w.losses), cause, tuple(finding_view(f) for f in diagnosis_of(w)),
        tuple(BurstView(b.start, b.end, tuple(x.pod_id for x in b.losses)) for b in w.bursts),
        tuple(w.accounts), tuple(w.experiments), tuple(w.datacenters), tuple(w.gpu_types), w.gaps_known,
        w.gap_median_s, w.gap_spread_s, float(w.burn_usd), w.burn_unknown, wave_summary(w), signature_of(w).statement)


def incident_view(all_losses: Sequence["Loss"], waves: Sequence["Wave"], dismissed: Iterable[str],
                  affected: Iterable[str], shown: Mapping[str, Any]) -> IncidentView:
    """The incident as the wave panel, the heatmap and the losses pane receive it: every loss
    (dismissed ones too: they stay evidence), each wave weighed here, the pods the incident
    layout shows, and the incident's lines (`shown`: core/session/incident_view.py's fields)."""
    losses = _Losses()
    return IncidentView(tuple(losses.of(x) for x in all_losses), tuple(wave_view(w, losses) for w in waves),
                        frozenset(dismissed), frozenset(affected), tuple(shown["forming"]), shown["canary"],
                        shown["since_looked"], tuple(tuple(o) for o in shown["overrides"]),
                        tuple(shown["acknowledged"]), shown["shown"], shown["active_until"],
                        tuple(tuple(c) for c in shown["containment"]))


def update_view(u: "PanelUpdate", sent: SentTables | None = None) -> UpdateView:
    """`u` as the channel carries it; with `sent` (the connection's, wire/channel/rows.py) the rows
    the UI holds already go as the cells that changed and a pod's record only when it changed,
    and `sent` records what this update sends (so call it in the order the updates are sent)."""
    if sent is None:
        pods, pod_patches = rows_view(u.pods), {}
        experiments, experiment_patches = rows_view(u.experiments), {}
        pod_records = {k: None if cp is None else pod_view(cp) for k, cp in u.pod_records.items()}
    else:
        pods, pod_patches = sent.pods.send(u.pods, u.full, u.pods_removed)
        experiments, experiment_patches = sent.experiments.send(u.experiments, u.full)
        pod_records = sent.pod_records.send(u.pod_records, pod_view, u.full)
    return UpdateView(
        full=u.full, experiments=experiments, pods=pods, pods_removed=tuple(u.pods_removed),
        experiment_patches=experiment_patches, pod_patches=pod_patches,
        approvals=None if u.approvals is None else rows_view(u.approvals),
        approval_records=None if u.approval_records is None else tuple(approval_view(a) for a in u.approval_records),
        experiment_records={n: _as(ExperimentView, e) for n, e in u.experiment_records.items()},
        pod_records=pod_records,
        timelines=tuple(TimelineView(t.tag, t.experiment, t.kind, rows_view(t.rows), dict(t.subjects))
                        for t in u.timelines),
        losses=u.losses, heatmap=u.heatmap, pod_logs=u.pod_logs,
        health=None if u.health is None else dict(u.health), paging=None if u.paging is None else tuple(u.paging),
        notes=tuple(NoteView(n.message, n.title, n.severity, n.timeout, n.ring) for n in u.notes),
        in_flight=None if u.in_flight is None else dict(u.in_flight), polls=u.polls, said=u.said, answer=u.answer)


# Rows per frame of a large update. Its parts go out as each is made, so the session makes the
# next while the UI decodes and applies this one (two processes, two cores), and a key the owner
# presses meanwhile is answered between parts instead of after the whole.
PART_ROWS = 1000


def update_views(u: "PanelUpdate", sent: SentTables) -> Iterator[UpdateView]:
    """`u` as the channel carries it, in parts when it changes more than PART_ROWS pods' rows:
    each part some pods' rows and records (`more` set), the last the rest of the update. Made
    one by one, in order (each records what it sends in `sent`). A whole panel (`full`) goes
    in one: its parts would each replace the tables' rows."""
    if u.full or len(u.pods) <= PART_ROWS:
        yield update_view(u, sent)
        return
    keys = list(u.pods)
    records = u.pod_records
    # A key both changed and removed stays (the tables' rule): its removal means nothing, and
    # would be read alone in the last part, after its row.
    changed = u.pods.keys()
    rest = replace(u, pods={}, pods_removed=tuple(k for k in u.pods_removed if k not in changed),
                   pod_records={k: r for k, r in records.items() if k not in changed})
    for at in range(0, len(keys), PART_ROWS):
        part = keys[at:at + PART_ROWS]
        rows = PanelUpdate(pods={k: u.pods[k] for k in part},
                           pod_records={k: records[k] for k in part if k in records})
        yield msgspec.structs.replace(update_view(rows, sent), more=True)
    yield update_view(rest, sent)


def ready_view(ready: "SessionReady", sent: SentTables | None = None) -> ReadyView:
    return ReadyView(ready.settings.ui(), tuple(ready.notices), update_view(ready.first, sent))


def failed_view(failed: "SessionFailed") -> FailedView:
    return FailedView(failed.error, failed.exit_code)


def verdict_view(v: "GuardVerdict") -> VerdictView:
    return VerdictView(v.needs_typed_confirmation, tuple(v.reasons), float(v.expected_burn_usd), v.summary,
                       v.burn_basis, None if v.wave is None else wave_view(v.wave), v.token)


def approval_view(a: "ApprovalRequest") -> ApprovalView:
    return _as(ApprovalView, a)


def detail_view(v: Any) -> DetailView:
    return DetailView(_as(ExperimentView, v.experiment), tuple(approval_view(a) for a in v.approval_requests),
                      tuple(v.skipped))


def audit_view(a: "Action") -> AuditView:
    return _as(AuditView, a)


def plain(value: Any) -> Any:
    """A tuple of records as plain tuples (balance history rows), for msgspec's typed check."""
    return tuple(tuple(r) for r in value)
