"""A poll's concurrent requests to one source: when one fails, none of the others is left running."""

import asyncio

import pytest

from sagan_tui.sync.poller import _together


async def test_a_failed_request_leaves_no_sibling_running_after_the_poll():
    started, finished = asyncio.Event(), []

    async def slow():
        started.set()
        try:
            await asyncio.Event().wait()  # a retry's wait that never ends on its own
        finally:
            finished.append("slow")

    async def failing():
        await started.wait()
        raise ConnectionError("unreachable")

    task = asyncio.ensure_future(slow())
    with pytest.raises(ConnectionError):
        await _together(task, failing())
    assert task.done() and task.cancelled() and finished == ["slow"]


async def test_results_come_back_in_order_when_all_succeed():
    async def value(x):
        await asyncio.sleep(0)
        return x

    assert await _together(value(1), value(2), value(3)) == [1, 2, 3]
