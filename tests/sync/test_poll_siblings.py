"""A poll's concurrent requests to one source: when one fails, the others end before the poll does."""

import asyncio

import pytest

from sagan_tui.core.sync.poller import _together


async def test_a_failed_request_leaves_no_sibling_running_after_the_poll():
    release, finished = asyncio.Event(), []

    async def slower():
        await release.wait()  # a retry still under way when its sibling has failed
        finished.append("slower")
        return "late"

    async def failing():
        release.set()
        raise ConnectionError("unreachable")

    with pytest.raises(ConnectionError):
        await _together(slower(), failing())
    assert finished == ["slower"]  # ended before the poll did, not left to run on


async def test_results_come_back_in_order_when_all_succeed():
    async def value(x):
        await asyncio.sleep(0)
        return x

    assert await _together(value(1), value(2), value(3)) == [1, 2, 3]
