"""Evidence of the account's own hand in a wave: the audit log's stops and terminates of its pods,
and the billing mode that rules a balance stop out.

- A stop or terminate of lost pods by a user or API key of the account (the audit log, read
  once around the wave) is decisive for `account-action`: +3, and +3 more when it covers every
  lost pod; it weighs against every other cause (-2). The actor and action are named.
- A readable log with no such entry for any lost pod weighs for a platform reaper (+1) and
  against `account-action` (-2); an unreadable one is missing evidence.
- A POSTPAID account is invoiced: its balance stops nothing. Said against every cause (so the
  verdict shows it whatever it is), and -3 for `account-stop` on that account.

Pure: plain values in (the losses, their evidence rows, the accounts' billing modes), weighed
points out as (cause, weight, kind, finding, account).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from sagan_tui.wire import fmt
from sagan_tui.core.triage.diagnosis import Finding

if TYPE_CHECKING:
    from sagan_tui.core.triage.waves import Wave

ACTION = "account-action"
Weighed = tuple[str, int, str, Finding, "str | None"]


def audit_points(wave: Wave, evidence: Mapping[str, Mapping[str, Any]], reaper: str, others: tuple[str, ...]
                 ) -> tuple[list[Weighed], list[str]]:
    """(points, missing) from the audit log rows of the wave's pods."""
    rows = {x.pod_id: evidence.get(x.pod_id) for x in wave.losses}
    acted = {p: r for p, r in rows.items() if r and r.get("audit_state") == "acted"}
    if acted:
        by: dict[tuple[str, str], list[str]] = {}
        for pod, r in sorted(acted.items()):
            by.setdefault((str(r.get("actor")), str(r.get("action"))), []).append(pod)
        said = "; ".join(f"{action} of {fmt.listed(pods, 3)} by {actor}" for (actor, action), pods in by.items())
        f = Finding("audit", f"the audit log names the account's own hand: {said}", tuple(sorted(acted)))
        whole = len(acted) == len(wave.losses)
        points: list[Weighed] = [(ACTION, 6 if whole else 3, "audit", f, None)]
        points += [(c, -2, "audit", f, None) for c in (reaper, *others)]
        return points, []
    unread = sorted({str(r.get("audit_note") or "not readable") for r in rows.values()
                     if r and r.get("audit_state") == "unreadable"})
    if unread:
        return [], [f"audit log of {', '.join(wave.accounts)}: {unread[0]}"]
    if any(r is None for r in rows.values()):
        return [], []  # not consulted for every pod (GraphQL accounts, a JSON Lines input): it says nothing
    f = Finding("audit", f"the audit log has no stop or terminate of these pods by {', '.join(wave.accounts)}: "
                "not the account's own doing")
    return [(reaper, 1, "audit", f, None), (ACTION, -2, "audit", f, None)], []


def postpaid_points(wave: Wave, modes: Mapping[str, str | None], account_stop: str
                    ) -> tuple[list[Weighed], list[Finding], set[str]]:
    """(points, findings shown against any cause, the POSTPAID accounts)."""
    post = {a for a in wave.accounts if modes.get(a) == "POSTPAID"}
    findings = [Finding("billing", f"{a} is POSTPAID (invoiced): a low balance does not stop its pods, "
                        "not a balance stop") for a in sorted(post)]
    return [(account_stop, -3, "billing", f, a) for f, a in zip(findings, sorted(post))], findings, post


def action_next_step(wave: Wave, evidence: Mapping[str, Mapping[str, Any]]) -> str:
    actors = sorted({str(r.get("actor")) for x in wave.losses if (r := evidence.get(x.pod_id))
                     and r.get("audit_state") == "acted"})
    return (f"ask {', '.join(actors) or 'the account'} why; revoke or rotate the key if it was not meant; "
            f"hold {', '.join(wave.accounts)}'s experiments")
