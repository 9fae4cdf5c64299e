"""core/session/pod_follow.py against the simulator: a refused read says so and is tried again; ForgetPod ends the reads."""

from __future__ import annotations

import asyncio

from sagan_tui.core.session.pod_follow import PodFollower
from sagan_tui.core.sources.runpod_graphql import GraphQLTransport
from sagan_tui.core.sources.runpod_rest import RestV2Transport

FIXTURE = {"accounts": {"team": {"api_key": "rk-team-f", "failures": [{"from": 0, "to": 40, "kind": "500"}]},
                        "personal": {"api_key": "rk-personal-f"}},
           "pods": [{"id": "followed00001", "account": "team", "created_at": 0, "running_at": 10}]}


async def until(cond, what: str, timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not cond():
            await asyncio.sleep(0.01)


async def test_a_failing_log_says_so_then_reads_live_once_it_answers(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.hold(30)  # inside the 500s
    transport = RestV2Transport("team", "rk-team-f", base_url=sim.base_url)
    views = []
    follower = PodFollower({"team": transport}.get, views.append, every_s=0.05)
    try:
        follower.follow("followed00001", "team")
        await until(lambda: views and "retrying in" in views[-1].state, "the failure said")
        assert views[0].reset and "HTTP 500" in views[0].state and not views[0].lines
        sim.clock.hold(60)
        await until(lambda: views[-1].state == "live", "the live read")
        live = views[-1]
        assert live.reset  # the first lines read replace the failure's empty tail
        assert live.lines[0][1] == "system" and live.gpus and len(live.gpus) == 1
        assert follower.following == {"followed00001"}
        follower.forget("followed00001")
        assert follower.following == set()
    finally:
        await follower.aclose()
        await transport.aclose()


async def test_an_account_read_over_graphql_says_it_has_no_log(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    views = []
    graphql = GraphQLTransport("team", "rk-team-f", base_url=sim.base_url)
    follower = PodFollower({"team": graphql}.get, views.append)
    follower.follow("followed00001", "team")
    await until(lambda: views, "the view")
    assert "not read over RunPod's REST v2" in views[0].state
    await follower.aclose()


async def test_a_stalled_log_says_so_and_reads_again_once_released(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.hold(60)
    transport = RestV2Transport("team", "rk-team-f", base_url=sim.base_url, timeout=0.3)
    views = []
    follower = PodFollower({"team": transport}.get, views.append, every_s=0.05)
    sim.stall("team")
    try:
        follower.follow("followed00001", "team")
        await until(lambda: views and "timed out" in views[-1].state, "the stall said")
        assert "retrying in" in views[-1].state
        sim.release("team")
        await until(lambda: views[-1].state == "live", "the read after the stall")
        assert views[-1].lines  # the first successful read carries the tail
    finally:
        sim.release("team")
        await follower.aclose()
        await transport.aclose()
