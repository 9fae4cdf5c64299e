"""Burn from RunPod's own numbers beside the estimate: per lost pod, what RunPod billed it in the
hour buckets around its wave (pod billing history, read once) and cost per hour x time running.

Where billing could not be read the estimate stands alone, and the line says why. Pure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from sagan_tui.wire import fmt
from sagan_tui.core.triage.gaps import burn_of

if TYPE_CHECKING:
    from sagan_tui.core.triage.waves import Wave


def billed_of(pod_id: str, evidence: Mapping[str, Mapping[str, Any]]) -> tuple[float | None, str | None]:
    """(USD RunPod billed, why not readable); (None, None) when billing was never asked for it."""
    row = evidence.get(pod_id)
    if not row:
        return None, None
    if row.get("billed_usd") is None:
        return None, str(row.get("billed_note") or "billing not readable")
    return float(row["billed_usd"]), None


def burn_lines(wave: Wave, evidence: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """A Markdown table: pod, account, billed by RunPod, estimate; then the totals."""
    out = ["| pod | account | billed by RunPod | estimate (cost/h x time running) |", "|---|---|---|---|"]
    billed_total, estimate_total, unbilled, whys = 0.0, 0.0, 0, []
    for x in wave.losses:
        billed, why = billed_of(x.pod_id, evidence)
        est = burn_of(x)
        estimate_total += est or 0.0
        if billed is None:
            unbilled += 1
            whys.append(why or "RunPod's billing not read")
        else:
            billed_total += billed
        shown = fmt.usd(billed) if billed is not None else f"n/a ({why or 'not read'})"
        out.append(f"| {x.pod_id} | {x.account} | {shown} | {fmt.usd(est) if est is not None else '?'} |")
    if unbilled == len(wave.losses):
        total = f"Total: estimate {fmt.usd(estimate_total)} only ({whys[0] if whys else 'billing not read'})."
    elif unbilled:
        total = (f"Total: RunPod billed {fmt.usd(billed_total)} for {len(wave.losses) - unbilled} of "
                 f"{len(wave.losses)} pods (the others: estimate only); estimate {fmt.usd(estimate_total)}.")
    else:
        total = f"Total: RunPod billed {fmt.usd(billed_total)}; estimate {fmt.usd(estimate_total)}."
    return [*out, "", total]


def ticket_suffix(pod_id: str, evidence: Mapping[str, Mapping[str, Any]]) -> str:
    billed, _ = billed_of(pod_id, evidence)
    return f"  billed {fmt.usd(billed)}" if billed is not None else ""
