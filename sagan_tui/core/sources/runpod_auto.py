"""The `auto` transport: pods, balance and actions over REST v2; machines and exit reasons from
GraphQL `myself` while it answers.

REST v2 names no machine (only `dataCenterId`) and no `lastStatusChange`: GraphQL is asked for
both (and the spend limit) beside the REST poll. If it fails, the pods and the balance still
count (the account's poll is REST's), and the machines are what is missing.

Cold start: the first poll does not ask GraphQL, so the pods and the balance reach the screen
from REST v2 alone, without the `runpod` SDK's import (about 2 s); from the next poll on GraphQL
is asked beside REST (that poll waits, once, for the import).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

from sagan_tui.core.models import utcnow
from sagan_tui.core.sources.errors import ApiRetired, RateLimited, SourceError
from sagan_tui.core.sources.runpod_base import AccountSnapshot
from sagan_tui.core.sources.runpod_graphql import GraphQLTransport
from sagan_tui.core.sources.runpod_rest import RestV2Transport

RETIRED_NOTE = "n/a (GraphQL retired)"
RETIRED_RECHECK_S = 3600.0  # a retired API is asked again hourly, not every poll
RATE_LIMIT_PAUSE_S = 60.0  # when GraphQL's rate limit names no wait


class AutoTransport:
    """One account over both APIs: REST v2 for pods and actions, GraphQL for the money and evidence."""

    name = "auto"

    def __init__(self, account: str, api_key: str, *, base_url: str, rest_base_url: str,
                 timeout: float = 10.0, **bounds: Any):
        self.account = account
        self.rest = RestV2Transport(account, api_key, base_url=rest_base_url, timeout=timeout, **bounds)
        self.graphql = GraphQLTransport(account, api_key, base_url=base_url, timeout=timeout, **bounds)
        self._money: AccountSnapshot | None = None  # the last balance GraphQL gave
        self._money_at = ""
        self._quiet_until = 0.0  # monotonic: GraphQL is not asked before then
        self._quiet_note = ""
        self._polled = False

    async def snapshot(self) -> AccountSnapshot:
        if not self._polled:
            self._polled = True
            # Not even the SDK's import starts now: in a worker thread beside this poll (or just
            # after its reply) it held the interpreter for its whole length, and the pods reached
            # the screen only once it was done. The next poll asks GraphQL, importing the SDK then.
            return await self.rest.snapshot()
        pods, (money, why) = await asyncio.gather(self.rest.snapshot(), self._read_money())
        for pod in pods.pods:  # REST v2 names no machine: GraphQL's, while it answers (a kept one stays true)
            pod.host = pod.host or (money.hosts.get(pod.id) if money is not None else None)
            # Nor why a pod exited: GraphQL's words tell a pod RunPod reaped (still listed) from a stop.
            pod.last_status_change = pod.last_status_change or (
                money.status_changes.get(pod.id) if money is not None else None)
        if money is not None and why is None:  # this poll's GraphQL reply, not a kept one
            pods = replace(pods, also_listed=money.also_listed)
        if money is None:
            return pods  # the balance is REST v2's; only the machines are missing
        # The spend limit has no REST v2 reading here: GraphQL's while it answers.
        return replace(pods, spend_limit=money.spend_limit)

    async def _read_money(self) -> tuple[AccountSnapshot | None, str | None]:
        """GraphQL's machines, exit reasons and spend limit, and why they are missing or old;
        never raises (the pods decide the poll)."""
        if time.monotonic() < self._quiet_until:
            return self._kept(self._quiet_note)
        try:
            money = await self.graphql.money()
        except ApiRetired:
            self._quiet_until, self._quiet_note = time.monotonic() + RETIRED_RECHECK_S, "retired"
            self._money = None  # a balance from before the retirement would only grow older
            return None, RETIRED_NOTE
        except RateLimited as exc:
            self._quiet_until = time.monotonic() + (exc.retry_after or RATE_LIMIT_PAUSE_S)
            self._quiet_note = "rate-limited"
            return self._kept("rate-limited")
        except SourceError as exc:
            return self._kept(exc.kind.value)
        self._money, self._money_at = money, utcnow().strftime("%H:%M")
        return money, None

    def _kept(self, why: str) -> tuple[AccountSnapshot | None, str]:
        if why == "retired":
            return None, RETIRED_NOTE
        if self._money is None:
            return None, f"n/a (GraphQL {why})"
        # An older balance is still evidence (a stop for want of money): shown with its age.
        return self._money, f"as of {self._money_at} UTC (GraphQL {why})"

    async def wave_evidence(self, *args: Any):  # noqa: ANN201 - WaveEvidence, as RestV2Transport
        return await self.rest.wave_evidence(*args)

    async def audit_entries(self, *args: Any):  # noqa: ANN201 - as RestV2Transport
        return await self.rest.audit_entries(*args)

    async def get_pod(self, pod_id: str):  # noqa: ANN201 - RunPodPod | None, as RestV2Transport
        return await self.rest.get_pod(pod_id)

    async def pod_gpus(self, pod_id: str) -> tuple[tuple[int | None, int | None], ...] | None:
        return await self.rest.pod_gpus(pod_id)

    async def pod_log(self, pod_id: str, last_event_id: str | None, tail: int, source: str | None = None) -> str:
        return await self.rest.pod_log(pod_id, last_event_id, tail, source)

    async def stop(self, pod_id: str) -> dict[str, Any]:
        return await self.rest.stop(pod_id)

    async def resume(self, pod_id: str, gpu_count: int = 1) -> dict[str, Any]:
        return await self.rest.resume(pod_id, gpu_count)

    async def terminate(self, pod_id: str) -> dict[str, Any]:
        return await self.rest.terminate(pod_id)

    async def aclose(self) -> None:
        await self.rest.aclose()
        await self.graphql.aclose()
