"""The pods a pod screen follows: each read on its own schedule (log tail and GPU figures), news as PodLogViews.

A followed pod has its own task on the session's loop, apart from the polls: a stream that fails,
stalls (the transport's deadline) or is refused says so in the view's `state` and is tried again
after a doubling wait (READ_EVERY_S up to BACKOFF_MAX_S); no poll ever waits on it. Only pods a
screen asked for are read, and only while it is open (ForgetPod ends the task).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from sagan_tui.wire.channel.views import PodLogView
from sagan_tui.wire.safe_text import one_line
from sagan_tui.core.sources.errors import SourceError
from sagan_tui.core.sources.pod_log import PodLogTail

log = logging.getLogger(__name__)
READ_EVERY_S = 3.0  # a log read while it answers: news within a few seconds, one request each
BACKOFF_MAX_S = 60.0


class PodFollower:
    """One task per followed pod; `transport_of(account)` gives the account's RunPod transport."""

    def __init__(self, transport_of: Callable[[str], Any], publish: Callable[[PodLogView], None],
                 every_s: float = READ_EVERY_S) -> None:
        self._transport_of = transport_of
        self._publish = publish
        self._every_s = every_s
        self._tasks: dict[str, asyncio.Task] = {}

    def follow(self, pod_id: str, account: str) -> None:
        """Start following (again: a second screen on the same pod starts from a fresh tail)."""
        self.forget(pod_id)
        self._tasks[pod_id] = asyncio.get_running_loop().create_task(self._run(pod_id, account),
                                                                     name=f"pod-log-{pod_id}")

    @property
    def following(self) -> set[str]:
        """The pods being read now (a task not yet ended)."""
        return {pod_id for pod_id, task in self._tasks.items() if not task.done()}

    def forget(self, pod_id: str) -> None:
        task = self._tasks.pop(pod_id, None)
        if task is not None:
            task.cancel()

    async def aclose(self) -> None:
        tasks = list(self._tasks.values())
        self._tasks.clear()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _run(self, pod_id: str, account: str) -> None:
        try:
            await self._follow(pod_id, account)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a bug of ours: the screen says the log stopped, the session goes on
            log.exception("following %s failed", pod_id)
            self._publish(PodLogView(pod_id, state=f"log reader stopped: {type(exc).__name__}"))

    async def _follow(self, pod_id: str, account: str) -> None:
        reader = self._transport_of(account)
        if reader is None or not hasattr(reader, "pod_log"):
            self._publish(PodLogView(pod_id, reset=True, state=f"no log: account {one_line(account, 40)} is not read "
                                                                "over RunPod's REST v2"))
            return
        tail, wait, first = PodLogTail(pod_id), self._every_s, True
        while True:
            try:
                gpus = await reader.pod_gpus(pod_id)
                new = await tail.read(reader)
            except SourceError as exc:  # a failure, a stall past the transport's deadline, a refusal
                state = f"log unavailable ({one_line(exc.message, 160)}); retrying in {wait:g} s"
                self._publish(PodLogView(pod_id, reset=first, state=state))
                await asyncio.sleep(wait)
                wait = min(wait * 2, BACKOFF_MAX_S)
                continue
            lines = tuple((line.timestamp, line.source, line.message) for line in new)
            self._publish(PodLogView(pod_id, lines, first, gpus, "live" if gpus is not None else "gone"))
            first, wait = False, self._every_s
            await asyncio.sleep(self._every_s)
