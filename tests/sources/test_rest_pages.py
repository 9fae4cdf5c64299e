"""Reading a REST v2 list in pages: every shape a reply may use, and each way it says it is incomplete."""

from __future__ import annotations

import pytest

from sagan_tui.core.sources.errors import Forbidden, RequestRejected
from sagan_tui.core.sources.rest_evidence import Money, read_money
from sagan_tui.core.sources.rest_pages import read_pages


def pages(*replies):
    asked: list[str | None] = []

    async def fetch(cursor):
        asked.append(cursor)
        return replies[len(asked) - 1]

    return fetch, asked


def ident(p):
    return p["id"]


async def test_the_published_single_reply_is_one_complete_page():
    fetch, asked = pages({"pods": [{"id": "a"}, {"id": "b"}]})
    got = await read_pages(fetch, "pods", "list", ident=ident)
    assert [p["id"] for p in got.records] == ["a", "b"] and got.incomplete is None and asked == [None]


async def test_cursors_are_followed_in_the_envelope_and_at_the_top_level():
    fetch, asked = pages({"items": [{"id": "a"}], "pagination": {"nextCursor": "c1", "truncated": False}},
                         {"pods": [{"id": "b"}], "nextCursor": "c2"}, {"items": [{"id": "c"}], "pagination": {}})
    got = await read_pages(fetch, "pods", "list", ident=ident)
    assert [p["id"] for p in got.records] == ["a", "b", "c"] and got.incomplete is None
    assert asked == [None, "c1", "c2"]


@pytest.mark.parametrize("replies, why", [
    (({"items": [{"id": "a"}], "pagination": {"truncated": True}},), "truncated and gives no cursor"),
    (({"items": [{"id": "a"}], "nextCursor": "c1"}, {"items": [{"id": "a"}]}), "pages disagree (a listed on two"),
    (({"items": [], "nextCursor": "c1"}, {"items": [], "nextCursor": "c1"}), "a cursor came back twice"),
    (tuple({"items": [{"id": f"p{i}"}], "nextCursor": f"c{i}"} for i in range(3)), "the bound of 3 pages"),
])
async def test_a_reply_that_says_it_is_incomplete_or_pages_that_disagree_are_named(replies, why):
    fetch, _ = pages(*replies)
    got = await read_pages(fetch, "pods", "list", ident=ident, max_pages=3)
    assert got.incomplete is not None and why in got.incomplete, got.incomplete


async def test_a_record_whose_id_is_not_text_is_read_as_any_other_record():
    # Found by the REST fuzz: an id that is a list (unhashable) failed the whole poll as a bug.
    fetch, _ = pages({"pods": [{"id": ["x", 1]}, {"id": {"a": 1}}, {"id": "b"}, {"id": None}]})
    got = await read_pages(fetch, "pods", "list", ident=lambda p: p.get("id"))
    assert len(got.records) == 4 and got.incomplete is None


async def test_a_page_without_a_list_is_an_error_never_no_records():
    fetch, _ = pages({"items": [{"id": "a"}], "nextCursor": "c1"}, {"error": "x"})
    with pytest.raises(ValueError, match="page 2 has no pods list"):
        await read_pages(fetch, "pods", "list")


def test_the_balance_reply_and_a_key_without_billing_read():
    assert read_money({"balanceAmount": 0.0, "billingMode": "PREPAID"}) == Money(0.0, "PREPAID", True)
    assert read_money({"balanceAmount": -3.0, "billingMode": "POSTPAID"}) == Money(-3.0, "POSTPAID", False)
    assert read_money({"billingMode": "PREPAID"}).balance is None
    assert Money.unread(Forbidden("team", "no", status=403)).note == "n/a (key lacks billing:read)"
    assert Money.unread(RequestRejected("team", "x", status=404)).note == "n/a (no balance route at this RunPod)"


async def test_the_balance_is_read_again_early_when_a_running_pod_stops(sim_factory):
    from sagan_tui.core.sources.runpod_rest import RestV2Transport

    sim = sim_factory(fixture={"accounts": {"team": {"api_key": "rk-team-early",
                                                     "balance": [{"at": 0, "balance": 5.0}, {"at": 20, "balance": 0.0}]},
                                            "personal": {"api_key": "rk-personal-early"}},
                               "pods": [{"id": "earlypod0001", "account": "team", "running_at": 1, "exited_at": 21},
                                        {"id": "earlypod0002", "account": "team", "running_at": 1}]})
    t = RestV2Transport("team", "rk-team-early", base_url=sim.base_url)
    t.balance_every_s = 3600.0  # no re-read for age within the test, however slow the machine
    try:
        sim.clock.hold(10)
        assert (await t.snapshot()).balance == 5.0
        sim.clock.hold(15)
        assert (await t.snapshot()).balance == 5.0  # within BALANCE_EVERY_S: not asked again
        sim.clock.hold(25)
        snap = await t.snapshot()  # a pod stopped: asked at once
        assert snap.balance == 0.0 and snap.under_balance is True
    finally:
        await t.aclose()
    asked = [r.t for r in sim.requests if r.path == "/v2/billing/balance"]
    assert asked == [10, 25]


async def test_a_record_twice_in_one_page_leaves_the_list_complete_and_is_read_as_one():
    from sagan_tui.core.models import RunPodPod
    from sagan_tui.core.sources.runpod_base import one_per_id

    fetch, _ = pages({"pods": [{"id": "a"}, {"id": "b"}, {"id": "a"}]})
    got = await read_pages(fetch, "pods", "list", ident=ident)
    assert got.incomplete is None and len(got.records) == 3  # the transport reads the two as one

    def pod(status: str) -> RunPodPod:
        return RunPodPod(id="podaaa000001", account="team", desired_status=status)

    other = RunPodPod(id="podbbb000002", account="team")
    pods, why = one_per_id([pod("RUNNING"), other, pod("EXITED"), pod("RUNNING")])
    assert [(p.id, p.desired_status) for p in pods] == [("podaaa000001", "EXITED"), ("podbbb000002", "RUNNING")]
    assert why == {"podaaa000001": "listed 3 times in one reply: read as one (EXITED)"}
    assert one_per_id([other]) == ([other], {})
