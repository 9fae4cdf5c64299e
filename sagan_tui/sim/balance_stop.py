"""RunPod's stop at $0: a PREPAID account's running pods end when its balance runs out, each as its volume allows.

From RunPod's billing documentation: pods are stopped when the balance would last less than
about 10 seconds, and pods without a network volume are terminated. So a fixture pod that says
`network_volume: true` stays listed as EXITED, one that says `false` drops out of the list (as a
reaper's do), each a few seconds after the account's balance step reaches zero or below. A pod
that says nothing keeps its script (older fixtures script their balance stops by hand), and a
POSTPAID account is invoiced: its balance stops nothing.
"""

from __future__ import annotations

from .fixture import AccountSpec, PodSpec
from .ids import stable_int

EXIT_REASON = "Exited by Runpod: insufficient balance"


def zero_from(account: AccountSpec | None) -> float | None:
    """The first scenario second at which the account's balance reads zero or below (PREPAID only)."""
    if account is None or account.billing_mode != "PREPAID":
        return None
    if not isinstance(account.balance, list):
        return float("-inf") if account.balance <= 0 else None
    return next((s.at for s in account.balance if s.balance <= 0), None)


def balance_stopped(spec: PodSpec, account: AccountSpec | None) -> PodSpec:
    """The spec ended by its account's balance stop when that comes while it runs (the module's rule)."""
    if spec.network_volume is None or spec.running_at is None:
        return spec
    zero = zero_from(account)
    if zero is None:
        return spec
    # Stopped one by one over a few seconds after the balance ran out (or at RUNNING, if later).
    at = max(zero, spec.running_at) + stable_int(2, 9, "balance-stop", spec.id)
    ends = [t for t in (spec.lost_at, spec.exited_at, spec.stopped_at) if t is not None]
    if ends and min(ends) <= at:
        return spec  # it ended before the stop reached it
    if spec.network_volume:
        return spec.model_copy(update={"lost_at": None, "stopped_at": None, "exited_at": at,
                                       "exit_reason": EXIT_REASON})
    return spec.model_copy(update={"lost_at": at, "exited_at": None, "stopped_at": None})
