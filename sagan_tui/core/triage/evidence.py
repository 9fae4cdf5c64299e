"""Evidence beyond the losses, read for a wave's window: an account's balance over time, and machines."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Iterable, Mapping, NamedTuple, Sequence

from sagan_tui.wire import fmt

if TYPE_CHECKING:  # annotations only: pydantic is not imported before the panel's first frame
    from sagan_tui.core.models import SourceHealth

# RunPod stops an account's pods some time after its balance runs out: a balance that ran out up
# to 15 minutes before the first loss still explains the wave. The balance is read by the poll
# that saw the pods go (or the next one), so a reading up to two minutes after the last loss counts.
LOOKBACK = timedelta(minutes=15)
SLACK = timedelta(minutes=2)


def over_rest(transport: str | None) -> bool:
    """Whether the account's pods come over REST v2 (alone, or under `auto`): no machine id then
    but GraphQL's, and the balance from REST v2's balance route."""
    return "rest" in (transport or "") or transport == "auto"


class BalanceStep(NamedTuple):
    """One row of an account's balance history: from `at` on, until the next row."""

    at: datetime
    balance: float | None
    under_balance: bool | None = None
    spend_per_hr: float | None = None
    spend_limit: float | None = None


@dataclass(frozen=True)
class BalanceReading:
    """What an account's balance says about a window: `out` (it ran out), `ok`, or `unknown`."""

    account: str
    state: str
    statement: str
    evidence: tuple[str, ...] = ()
    since: datetime | None = None  # when it ran out, when known
    short: str = ""  # `personal ran out at 10:31:05 UTC (balance $0.00)`: for a dialog's line


def _out_reason(balance: float | None, under: bool | None, spend: float | None, limit: float | None) -> str | None:
    if under:
        return f"under balance ({fmt.usd(balance)})" if balance is not None else "under balance"
    if balance is not None and balance <= 0:
        return f"balance {fmt.usd(balance)}"
    if spend is not None and limit is not None and limit > 0 and spend >= limit:
        return f"spend {fmt.usd(spend)}/h at its limit {fmt.usd(limit)}/h"
    return None


def _step_text(s: BalanceStep) -> str:
    bal = "balance unknown" if s.balance is None else f"balance {fmt.usd(s.balance)}"
    under = ", under balance" if s.under_balance else ""
    return f"{fmt.hms(s.at)} UTC: {bal}{under}"


def balance_reading(account: str, start: datetime, end: datetime, health: SourceHealth | None,
                    history: Sequence[BalanceStep] = ()) -> BalanceReading:
    """The account's balance over [start - LOOKBACK, end + SLACK]: its history when it covers the
    window, else the last poll's reading (said so); unknown when neither was read."""
    lo, hi = start - LOOKBACK, end + SLACK
    steps = sorted((s for s in history if isinstance(s.at, datetime)), key=lambda s: s.at)
    in_force = [s for i, s in enumerate(steps)
                if s.at <= hi and (i + 1 == len(steps) or steps[i + 1].at > lo)]
    if in_force:
        ev = tuple(_step_text(s) for s in in_force[-6:])
        for s in in_force:
            why = _out_reason(s.balance, s.under_balance, s.spend_per_hr, s.spend_limit)
            if why:
                when = max(s.at, lo)
                short = f"{account} ran out at {fmt.hms(s.at)} UTC ({why})"
                return BalanceReading(account, "out", f"{short}: RunPod stops every pod of an account whose "
                                      "balance runs out", ev, when, short)
        last = in_force[-1]
        bal = fmt.usd(last.balance) if last.balance is not None else "unknown"
        return BalanceReading(account, "ok", f"{account} balance {bal} through the window, not under balance: "
                              "not a balance stop", ev)
    if health is None or (health.balance is None and health.under_balance is None):
        if health is not None and over_rest(health.transport):
            why = f" ({health.balance_note})" if getattr(health, "balance_note", None) else ""
            return BalanceReading(account, "unknown", f"balance of {account} not readable{why}: REST v2's "
                                  "balance route did not answer it")
        return BalanceReading(account, "unknown", f"balance of {account} unknown")
    if health.last_success is not None and not lo - LOOKBACK <= health.last_success <= hi + LOOKBACK:
        # Read long before or after the wave (a report run the next day): it says nothing about the window.
        return BalanceReading(account, "unknown", f"balance of {account} last read at {fmt.day(health.last_success)} "
                              f"{fmt.hms(health.last_success)} UTC, too far from the wave to judge it")
    when = f"as of the poll at {fmt.hms(health.last_success)} UTC" if health.last_success else "as last read"
    why = _out_reason(health.balance, health.under_balance, health.spend_per_hr, health.spend_limit)
    bal = "unknown" if health.balance is None else fmt.usd(health.balance)
    ev = (f"{account}: balance {bal}" + (", under balance" if health.under_balance else "") + f", {when}",)
    if why:
        return BalanceReading(account, "out", f"{account} {why} {when}: RunPod stops every pod of an account "
                              "whose balance runs out", ev, health.last_success, f"{account} {why} {when}")
    return BalanceReading(account, "ok", f"{account} balance {bal}, not under balance: not a balance stop", ev)


def hosts_of(values: Iterable[str | None]) -> dict[str, int]:
    """Known machines and how many pods each, most first (ties by name)."""
    counts: dict[str, int] = {}
    for v in values:
        if isinstance(v, str) and v:
            counts[v] = counts.get(v, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def evidence_moved(before: Mapping[str, SourceHealth], after: Mapping[str, SourceHealth]) -> bool:
    """Whether a poll changed what a verdict reads from the accounts' health (a balance, the
    under-balance flag, the spend or its limit, the transport): the waves are then weighed again
    even when no loss came, so a balance that runs out after a wave changes its verdict."""
    def money(h: SourceHealth | None) -> tuple:
        return (None,) * 5 if h is None else (h.balance, h.under_balance, h.spend_per_hr, h.spend_limit, h.transport)

    return any(money(before.get(a)) != money(after.get(a)) for a in {*before, *after} if a != "sagan")
