"""The core's records as the channel's view Structs (sagan_tui/wire/channel/views.py), for the
session's updates and answers.

The session builds each update as the wire's UpdateView directly (core/session/core.py), its
records made views here: the UI receives rows, health and words, never a record of the core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import msgspec

from sagan_tui.wire.channel.views import (ApprovalView, AuditView, BurstView, CachedPodView, CauseView,
                                     DetailView, ExperimentView, FindingView, IncidentView,
                                     LossRecordView, PodRecordView, ProposalView,
                                     ResponseLineView, VerdictView, WaveView)

if TYPE_CHECKING:
    from sagan_tui.core.models import Action, ApprovalRequest, Experiment, Loss
    from sagan_tui.core.store.cache import CachedPod
    from sagan_tui.core.triage import GuardVerdict, Wave


def pod_view(cp: "CachedPod") -> CachedPodView:
    """What the UI reads of a cached pod (wire/channel/views.py's CachedPodView), made field by field
    from the RunPod record (what CachedPod's properties read, but the experiment from the pod's
    name): a poll that changes every pod makes one per pod, and a generic conversion of the
    pydantic record costs twice as much."""
    p = cp.pod
    number = p.experiment
    return CachedPodView(PodRecordView(p.desired_status, p.name, p.gpu, p.cost_per_hr), p.id, p.account,
                         cp.experiment if number is None else number, cp.gone_at, cp.gone_reason)


def pods_view(pods: Mapping[str, "CachedPod | None"]) -> dict[str, CachedPodView | None]:
    """Pods' records by key as the UI reads them (None: no longer held)."""
    return {k: None if cp is None else pod_view(cp) for k, cp in pods.items()}


def _as(kind: type, obj: Any) -> Any:
    return msgspec.convert(obj, kind, from_attributes=True)


def experiments_view(experiments: Mapping[int, "Experiment"]) -> dict[int, ExperimentView]:
    return {n: _as(ExperimentView, e) for n, e in experiments.items()}


def approvals_view(approvals: Iterable["ApprovalRequest"]) -> tuple[ApprovalView, ...]:
    return tuple(approval_view(a) for a in approvals)


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


def verdict_view(v: "GuardVerdict") -> VerdictView:
    return VerdictView(v.needs_typed_confirmation, tuple(v.reasons), float(v.expected_burn_usd), v.summary,
                       v.burn_basis, None if v.wave is None else wave_view(v.wave), v.token)


def approval_view(a: "ApprovalRequest") -> ApprovalView:
    return _as(ApprovalView, a)


def detail_view(v: Any) -> DetailView:
    return DetailView(_as(ExperimentView, v.experiment), approvals_view(v.approval_requests),
                      tuple(v.skipped))


def audit_view(a: "Action") -> AuditView:
    return _as(AuditView, a)


def plain(value: Any) -> Any:
    """A tuple of records as plain tuples (balance history rows), for msgspec's typed check."""
    return tuple(tuple(r) for r in value)
