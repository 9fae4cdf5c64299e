"""Pages over loopback to stand-ins of ntfy and PagerDuty (tests/pages/stand_ins.py): one sequence id
per wave (published, replaced on growth, cleared on withdrawal), trigger then resolve with one
dedup_key, retries with backoff on a 500, a hanging endpoint that holds up only its own queue, the
dead-man's switch re-armed under one sequence id; never the URL or key in what is said."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from sagan_tui.core.pages.alerts import FormingFacts, Lifecycle
from sagan_tui.core.pages.deadman import SEQ, DeadMan, parse_deadman
from sagan_tui.core.pages.pager import Pager
from sagan_tui.core.pages.senders import sender_for
from sagan_tui.core.pages.targets import TargetError, parse_target, parse_targets

from .stand_ins import StandIn
from .test_alerts import PODS, seen, wave


@pytest.fixture
def stand_in():
    started = []

    def make(kind: str, **kw) -> StandIn:
        s = StandIn(kind, **kw).start()
        started.append(s)
        return s

    yield make
    for s in started:
        s.stop()


async def _pager(urls, lines, **kw):
    targets = parse_targets(urls)
    client = httpx.AsyncClient(timeout=kw.pop("timeout", 5.0))
    statuses = []
    pager = Pager(targets, [sender_for(t, client) for t in targets], say=lines.append,
                  status=lambda shown, err: statuses.append((shown, err)), **kw)
    return pager, client, statuses


async def _wave_life(pager):
    """A wave's life fed to the pager: forming, wave, growth (past the rate limit), withdrawn."""
    life = Lifecycle()
    pager.submit(life.step(seen(0, forming=(FormingFacts(PODS[0], PODS[:2], "2 pods lost 6 s apart"),))))
    pager.submit(life.step(seen(1, wave(3))))
    pager.submit(life.step(seen(2, wave(5))))  # inside the gap: waits, the latest kept
    pager.flush()
    pager.submit(life.step(seen(3, withdrawn=frozenset(PODS))))
    await pager.drain(10)


async def test_ntfy_sees_one_sequence_id_per_wave_published_replaced_and_cleared(stand_in):
    ntfy = stand_in("ntfy")
    lines: list[str] = []
    pager, client, _ = await _pager([f"ntfy://127.0.0.1:{ntfy.port}/sagan-night-topic"], lines, min_gap_s=0)
    await _wave_life(pager)
    await client.aclose()
    assert ntfy.ntfy_by_sequence() == {PODS[0]: ["publish", "publish", "publish", "clear"]}
    published = [r for r in ntfy.requests if r.method == "POST"]
    assert [r.headers["x-priority"] for r in published] == ["4", "5", "5"]  # forming high, the wave urgent
    assert "5 pods" in published[-1].headers["x-title"] and PODS[4].encode() in published[-1].body
    assert all("sagan-night-topic" not in line for line in lines) and len(lines) == 4


async def test_updates_inside_the_rate_limit_are_coalesced_to_the_latest(stand_in):
    ntfy = stand_in("ntfy")
    clock = [0.0]
    pager, client, _ = await _pager([f"ntfy://127.0.0.1:{ntfy.port}/t0pic"], [], clock=lambda: clock[0], min_gap_s=30)
    life = Lifecycle()
    pager.submit(life.step(seen(0, wave(3))))
    pager.submit(life.step(seen(1, wave(4))))
    pager.submit(life.step(seen(2, wave(5))))
    pager.flush()  # the gap has not passed: nothing more yet
    clock[0] = 31.0
    pager.flush()
    await pager.drain(10)
    await client.aclose()
    titles = [r.headers["x-title"] for r in ntfy.requests]
    assert len(titles) == 2 and "now 5 pods" in titles[1] and b"b4y7wn2gx6cj9s" in ntfy.requests[1].body  # 4 never paged on its own


async def test_pagerduty_sees_trigger_then_resolve_with_one_dedup_key(stand_in):
    pd = stand_in("pagerduty")
    key = "R0UTINGKEYsecret42"
    lines: list[str] = []
    url = f"pagerduty://{key}?events_url=http://127.0.0.1:{pd.port}/v2/enqueue&kinds=wave,withdrawn"
    pager, client, statuses = await _pager([url], lines, min_gap_s=0)
    await _wave_life(pager)
    await client.aclose()
    events = [r.json() for r in pd.requests]
    assert [e["event_action"] for e in events] == ["trigger", "trigger", "resolve"]  # forming not routed here
    assert {e["dedup_key"] for e in events} == {PODS[0]} and {e["routing_key"] for e in events} == {key}
    assert events[0]["payload"]["severity"] == "critical"
    assert statuses[-1] == ("pagerduty", None)
    assert not any(key in line for line in lines)


async def test_a_500_is_retried_with_backoff_then_given_up_and_said_without_the_url(stand_in):
    broken = stand_in("ntfy", status=500)
    waits: list[float] = []

    async def sleep(s: float) -> None:
        waits.append(s)

    lines: list[str] = []
    pager, client, statuses = await _pager([f"ntfy://127.0.0.1:{broken.port}/s3cret-topic"], lines,
                                           sleep=sleep, backoff_s=1.0)
    pager.submit(Lifecycle().step(seen(0, wave())))
    await pager.drain(10)
    await client.aclose()
    assert len(broken.requests) == 3 and waits == [1.0, 2.0]
    assert [line.split(" (")[0] for line in lines] == ["paging failed: ntfy 500"] * 3
    assert "given up" in lines[-1] and statuses[-1] == ("ntfy 127.0.0.1", "ntfy 500")
    assert pager.failed == 1 and not any("s3cret" in line for line in lines)


async def test_a_hanging_endpoint_times_out_and_holds_up_only_its_own_pages(stand_in):
    hung, fine = stand_in("ntfy", hang=True), stand_in("ntfy")
    lines: list[str] = []

    async def no_wait(s: float) -> None:
        pass

    urls = [f"ntfy://127.0.0.1:{hung.port}/hungtopic", f"ntfy://127.0.0.1:{fine.port}/finetopic"]
    pager, client, _ = await _pager(urls, lines, timeout=0.2, sleep=no_wait)
    pager.submit(Lifecycle().step(seen(0, wave())))
    await pager.drain(10)
    await client.aclose()
    assert len(fine.requests) == 1 and len(hung.requests) == 3
    assert sum("paging failed: ntfy timeout" in line for line in lines) == 3
    assert any(line.startswith("page sent: wave") and "ntfy 127.0.0.1" in line for line in lines)


async def test_the_dead_mans_switch_is_re_armed_under_one_sequence_id_and_disarmed_at_a_clean_stop(stand_in):
    ntfy = stand_in("ntfy")
    clock = [0.0]
    lines: list[str] = []
    client = httpx.AsyncClient(timeout=5)
    dead = DeadMan(parse_deadman(f"ntfy://127.0.0.1:{ntfy.port}/deadtopic"), client, minutes=10,
                   say=lines.append, clock=lambda: clock[0])
    from .test_alerts import T0

    await dead.beat(T0)
    await dead.beat(T0)  # the next poll, inside REARM_S: not sent again
    clock[0] = 31.0
    await dead.beat(T0)
    await dead.disarm()
    await client.aclose()
    assert ntfy.ntfy_by_sequence() == {SEQ: ["delete", "publish", "delete", "publish", "delete"]}
    scheduled = [r for r in ntfy.requests if r.method == "POST"]
    assert {r.headers["x-delay"] for r in scheduled} == {"600s"}
    assert b"has not checked in since" in scheduled[0].body


def test_malformed_urls_are_refused_naming_the_setting_and_scheme_never_the_secret():
    with pytest.raises(TargetError) as e:
        parse_target("ntfy://127.0.0.1:9/", 2)
    assert "page_urls: entry 2 (scheme 'ntfy')" in str(e.value)
    with pytest.raises(TargetError) as e:
        parse_target("pagerduty://KEY/../x?events_url=ftp://x", 1)
    assert "scheme 'pagerduty'" in str(e.value) and "KEY" not in str(e.value)
    with pytest.raises(TargetError) as e:
        parse_target("ntfys://ntfy.sh/t0psecret?kinds=wave,everything", 1)
    assert "unknown kind 'everything'" in str(e.value) and "t0psecret" not in str(e.value)


async def test_an_apprise_json_webhook_gets_the_page_and_a_follow_up_naming_it(stand_in):
    hook = stand_in("json")
    pager, client, _ = await _pager([f"json://127.0.0.1:{hook.port}/hook"], [], min_gap_s=0)
    life = Lifecycle()
    pager.submit(life.step(seen(0, wave())))
    pager.submit(life.step(seen(1, withdrawn=frozenset(PODS))))
    await pager.drain(20)
    await client.aclose()
    bodies = [r.json() for r in hook.requests]
    assert len(bodies) == 2 and "PLATFORM-REAPER, medium" in bodies[0]["message"]
    assert bodies[1]["title"].startswith("withdrawn: false alarm (WAVE 10:39-10:41")


def test_the_target_shows_scheme_and_host_at_most():
    shown = [t.shown for t in parse_targets("ntfys://u:pw@ntfy.example.org/topic pagerduty://abc123 "
                                            "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ json://h.example/x")]
    assert shown == ["ntfy ntfy.example.org", "pagerduty", "slack", "json h.example"]


def test_drain_says_what_could_not_be_sent_in_time():
    async def go():
        lines: list[str] = []

        class Never:
            async def send(self, page):
                await asyncio.Event().wait()

        pager = Pager(parse_targets("ntfy://127.0.0.1:9/t0p1c"), [Never()], say=lines.append)
        pager.submit(Lifecycle().step(seen(0, wave())))
        pager.submit(Lifecycle().step(seen(0, replace_key(wave()))))
        await pager.drain(0.05)
        return lines

    assert asyncio.run(go()) == ["paging: 1 page(s) not sent before stopping"]


def replace_key(w):
    from dataclasses import replace

    return replace(w, key="otherwave00000")
