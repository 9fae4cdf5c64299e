"""`sagan-tui watch` against the reaping-wave simulator, its clock driven poll by poll: a page for the
first wave carrying its verdict; no auto_contain, nothing held; `platform-reaper:medium`, the wave's
experiment held and its starting pods stopped, audited with actor `watch`, once; read-only, never;
a page endpoint answering 500 leaves the polls going; a restart does not page again; a malformed
URL or rule is refused at start naming the setting and scheme, never the secret."""

from __future__ import annotations

import subprocess
import sys
from argparse import Namespace

import pytest

from sagan_tui.commands.watch import Watch, checked
from sagan_tui.core.config_model import load_settings
from sagan_tui.core.store.cache import Cache

from .stand_ins import StandIn

# Polls at scenario times: at 60 r4's pods are all RUNNING; their losses (t=98..112) are first seen
# at 160, when both of the recovery loop's re-dispatches of #192 (created 150 and 158, RUNNING at
# 190 and 198) are starting: what a containment must stop.
TIMES = (60, 160, 164, 168)


@pytest.fixture
def hook():
    s = StandIn("json").start()
    yield s
    s.stop()


async def _watch(sim, tmp_path, lines, name="w", **flags):
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"),
           **{f"RUNPOD_TRANSPORT_{n.upper()}": "graphql" for n in sim.account_keys}}
    settings, _ = load_settings(env, sagan_tui_cache=str(tmp_path / f"{name}.sqlite"), poll_interval=60.0, **flags)
    targets, dead, rules = checked(settings)
    now = [sim.clock.at(0)]
    w = Watch(Namespace(for_seconds=None), settings, Cache(settings.cache_path), targets, dead, rules,
              clock=lambda: now[0])
    w.say = lines.append  # what watch prints, kept for the test (Say prints and logs the same lines)
    w.pager.say = lines.append

    async def poll_at(t: float) -> None:
        sim.clock.hold(t)
        now[0] = sim.clock.at(t)
        await w.poll_once()

    return w, poll_at


async def _first_look(sim_factory, tmp_path):
    """A watch polled until the reaping wave's losses are in, and its first look at them with a
    memo kept: (the watch, that look's time, the memo, its waves)."""
    from sagan_tui.commands.watch import observe

    sim = sim_factory(scenario="reaping-wave")
    w, poll_at = await _watch(sim, tmp_path, [])
    for t in TIMES[:2]:
        await poll_at(t)
    now, memo = sim.clock.at(TIMES[1]), {}
    _, first = observe(w.cache, w.settings, now, True, memo)
    return w, now, memo, first


async def _watched(sim, tmp_path, hook, times=TIMES, **flags) -> tuple[list[str], list]:
    """A watch paging `hook` polled at `times` then closed: what it said, and its audit log."""
    lines: list[str] = []
    w, poll_at = await _watch(sim, tmp_path, lines, page_urls=f"json://127.0.0.1:{hook.port}/hook", **flags)
    for t in times:
        await poll_at(t)
    audit = w.cache.actions()
    await w.close(drain_s=20)
    return lines, audit


async def test_the_first_wave_is_paged_with_its_verdict_and_nothing_is_held_without_a_rule(sim_factory, tmp_path, hook):
    sim = sim_factory(scenario="reaping-wave")
    lines, _ = await _watched(sim, tmp_path, hook)
    pages = [r.json() for r in hook.requests]
    assert any("PLATFORM REAPER" in p["message"] and "k3m8qz0v2xw7ta" in p["message"] for p in pages), pages
    r4 = ("k3m8qz0v2xw7ta", "h9d2pj6wq4ne1c", "t5x0bv8rk2mu7y")  # the key is the first by lost time
    assert [line.split(":")[0] for line in lines if line.startswith("wave ")] in ([f"wave {p}"] for p in r4), lines
    assert sim.state.experiments[192].status_at(168) != "blocked"
    assert not [r for r in sim.requests if r.api == "graphql" and "podStop" in str((r.body or {}).get("query"))]
    assert not any(line.startswith("containment") for line in lines)


async def test_auto_contain_holds_the_wave_and_stops_its_starting_pods_once_audited_as_watch(sim_factory, tmp_path, hook):
    sim = sim_factory(scenario="reaping-wave")
    lines, audit = await _watched(sim, tmp_path, hook, auto_contain="platform-reaper:medium")
    assert sim.state.experiments[192].status_at(168) == "blocked"
    done = [line for line in lines if line.startswith("containment")]
    stops = [r for r in sim.requests if r.api == "graphql" and "podStop" in str((r.body or {}).get("query"))]
    stopped = {pid for r in stops for pid in sim.state.pods if f'"{pid}"' in str(r.body)}
    # The containment operation's targets (core/actions/contain.stop_targets): #192's two starting
    # re-dispatches, and its pod RUNNING inside the wave's kill window (doomed, billed until reaped).
    assert {"q8r1zt5mk0pv3e", "b4y7wn2gx6cj9s"} < stopped and len(stopped) == len(stops) == 3, stopped
    assert {sim.state.pods[pid].spec.experiment for pid in stopped} == {192}
    assert len(done) == 1 and "held #192" in done[0] and "stopped 3 starting or doomed pods" in done[0], lines
    contain = [a for a in audit if a.action == "auto-contain"]
    assert len(contain) == 1 and "actor watch" in contain[0].detail and "platform-reaper:medium" in contain[0].detail
    assert any(a.action == "hold" and "actor watch" in (a.detail or "") for a in audit)
    assert any("contained: held #192" in r.json()["message"] for r in hook.requests)


async def test_a_wave_whose_losses_are_dated_after_the_polls_start_is_live(sim_factory, tmp_path):
    """A loss confirmed late in a poll carries a time after the poll's own: still this wave, paged."""
    from datetime import timedelta

    from sagan_tui.commands.watch import observe

    sim = sim_factory(scenario="reaping-wave")
    w, poll_at = await _watch(sim, tmp_path, [])
    for t in TIMES[:2]:
        await poll_at(t)
    first = min(x.lost_at for x in w.cache.losses())
    seen, _ = observe(w.cache, w.settings, first - timedelta(seconds=1))
    await w.close(drain_s=1)
    assert [x.active for x in seen.waves] == [True]


async def test_a_wave_acknowledged_in_a_panel_is_resolved_by_watch(sim_factory, tmp_path, hook):
    """`K` in any panel writes `wave_acks`; watch reads it at its next poll and clears the page."""
    sim = sim_factory(scenario="reaping-wave")
    lines: list[str] = []
    w, poll_at = await _watch(sim, tmp_path, lines, page_urls=f"json://127.0.0.1:{hook.port}/hook")
    for t in TIMES:
        await poll_at(t)
    [key] = [line.split(":")[0].split()[1] for line in lines if line.startswith("wave ")]
    alert = w.life.alerts[key]
    w.cache.incident_rows.ack_wave(key, sim.clock.at(168), len(alert.pods), ("team",), alert.cause, alert.confidence)
    await poll_at(172)
    await w.close(drain_s=20)
    resolved = [line for line in lines if line.startswith("resolved ")]
    assert len(resolved) == 1 and resolved[0].startswith(f"resolved {key}: WAVE ") and \
        resolved[0].endswith(" resolved: acknowledged")
    assert hook.requests[-1].json()["title"].endswith("resolved: acknowledged")


async def test_the_verdicts_are_weighed_again_only_when_a_loss_changed(sim_factory, tmp_path):
    """Weighing a verdict against every sighting is costly at 10,000 pods: a poll that changed no
    loss reuses the waves (the same objects, verdicts kept); a dismissed loss makes them anew."""
    from sagan_tui.commands.watch import observe

    w, now, memo, first = await _first_look(sim_factory, tmp_path)
    _, again = observe(w.cache, w.settings, now, True, memo)
    w.cache.dismiss_loss(first[0][1].pods[-1])
    _, changed = observe(w.cache, w.settings, now, True, memo)
    await w.close(drain_s=1)
    assert first[0][0] is again[0][0]
    assert not changed or changed[0][0] is not first[0][0]


async def test_the_kept_waves_hold_their_verdicts_and_no_sighting(sim_factory, tmp_path):
    """Between triages watch keeps the waves with their verdicts weighed, not the context they were
    weighed against (a record of every pod the cache knows); the verdict is the one the context gave."""
    from sagan_tui.commands.waves import context_for, records_from
    from sagan_tui.commands.watch import observe
    from sagan_tui.core.triage import find_waves
    from sagan_tui.core.triage.verdict import verdict_of

    sim = sim_factory(scenario="reaping-wave")
    w, poll_at = await _watch(sim, tmp_path, [])
    for t in TIMES:
        await poll_at(t)
    memo: dict = {}
    _, waves = observe(w.cache, w.settings, sim.clock.at(TIMES[-1]), True, memo)
    losses, context = context_for(records_from(w.cache))
    fresh = find_waves(losses, context=context, guard_minutes=w.settings.guard_minutes)
    await w.close(drain_s=1)
    assert waves and memo["found"] and all(kept.context is None for kept in memo["found"])
    assert context.sightings  # what the kept waves let go
    by_start = {x.start: verdict_of(x) for x in fresh}
    assert [(facts.cause, facts.confidence) for _, facts in waves] == \
        [(by_start[x.start].cause, by_start[x.start].confidence) for x, _ in waves]


async def test_read_only_pages_but_never_contains(sim_factory, tmp_path, hook):
    sim = sim_factory(scenario="reaping-wave")
    lines, _ = await _watched(sim, tmp_path, hook, auto_contain="platform-reaper:medium", read_only=True)
    assert sim.state.experiments[192].status_at(168) != "blocked"
    assert sum("not applied (read-only)" in line for line in lines) == 1 and hook.requests


async def test_a_failing_endpoint_leaves_the_polls_going_and_no_secret_in_what_is_said(sim_factory, tmp_path):
    sim = sim_factory(scenario="reaping-wave")
    broken = StandIn("json", status=500).start()
    try:
        lines: list[str] = []
        url = f"json://127.0.0.1:{broken.port}/hooks/s3cr3t-path"
        w, poll_at = await _watch(sim, tmp_path, lines, page_urls=url)
        w.pager.backoff_s = 0.01
        for t in TIMES:
            await poll_at(t)
        polled = len([r for r in sim.requests if r.api == "sagan"])
        await w.close(drain_s=20)
    finally:
        broken.stop()
    assert polled >= len(TIMES) and len(broken.requests) >= 3
    failed = [line for line in lines if line.startswith("paging failed: json 127.0.0.1 not delivered")]
    assert failed and any("given up" in line for line in failed)
    assert not any("s3cr3t" in line or url in line for line in lines)
    for s in sim.account_keys.values():
        assert not any(s in line for line in lines)


async def test_a_restarted_watch_does_not_page_the_same_wave_again(sim_factory, tmp_path, hook):
    sim = sim_factory(scenario="reaping-wave")
    await _watched(sim, tmp_path, hook)
    first = len(hook.requests)
    again, _ = await _watched(sim, tmp_path, hook, times=(172,))
    assert first >= 1 and len(hook.requests) == first
    assert not any(line.startswith(("wave ", "forming ")) for line in again)


@pytest.mark.parametrize("env, said", [
    ({"SAGAN_TUI_PAGE_URLS": "ntfys://ntfy.sh/"}, "page_urls: entry 1 (scheme 'ntfys')"),
    ({"SAGAN_TUI_PAGE_URLS": "nosuchservice://t0ken-s3cret/x"}, "page_urls: entry 1 (scheme 'nosuchservice')"),
    ({"SAGAN_TUI_AUTO_CONTAIN": "platform-reaper:surely"}, "auto_contain: rule 1"),
    ({"SAGAN_TUI_DEADMAN_URL": "slack://t0ken-s3cret/b/c"}, "deadman_url: entry 1 (scheme 'slack')"),
])
def test_watch_refuses_a_malformed_url_or_rule_at_start(tmp_path, env, said):
    base = {"SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"), "SAGAN_BASE_URL": "http://127.0.0.1:9",
            "SAGAN_TUI_CACHE": str(tmp_path / "c.sqlite"), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "sagan_tui", "watch", "--for", "1"], env={**base, **env},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and said in r.stderr, r.stderr
    assert "s3cret" not in r.stdout + r.stderr


def test_the_command_polls_until_for_ends_and_ctrl_c_ends_it_with_130(sim_factory, tmp_path):
    import os
    import signal

    sim = sim_factory(scenario="reaping-wave")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}, **sim.env(),
           "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"), "SAGAN_TUI_CACHE": str(tmp_path / "c.sqlite")}
    exe = [sys.executable, "-m", "sagan_tui", "watch", "--poll-interval", "1"]
    r = subprocess.run([*exe, "--for", "2"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "watching c.sqlite every 1 s" in r.stdout and "watch stopped" in r.stdout, r
    p = subprocess.Popen([*exe, "--read-only"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()  # the start line: the loop is running
    assert "watching" in first, first
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "watch stopped" in out, (out, err)
    for s in sim.account_keys.values():
        assert s not in first + out + err


async def test_a_wave_that_only_grew_is_weighed_again_after_the_pagers_gap_and_a_new_one_at_once(sim_factory, tmp_path):
    """Alertmanager's group_interval: a wave that only grew keeps its last weighing until the pager
    could update its page (REWEIGH_S); a new wave is triaged at the poll that shows it."""
    from datetime import timedelta

    from sagan_tui.commands.watch import REWEIGH_S, observe

    w, now, memo, first = await _first_look(sim_factory, tmp_path)
    [(wave, facts)] = first
    last = max(wave.losses, key=lambda x: x.lost_at)

    def like_last(pod_id: str, later_s: float):
        # the same kill time after RUNNING, on the same account: the wave's signature
        shift = timedelta(seconds=later_s)
        return last.model_copy(update={"pod_id": pod_id, "lost_at": last.lost_at + shift,
                                       "running_at": last.running_at + shift, "last_seen_at": None})

    with w.cache.transaction() as conn:
        w.cache.upsert_losses(conn, [like_last("grown0000001", 60)])
    _, soon = observe(w.cache, w.settings, now + timedelta(seconds=5), True, memo)
    _, later = observe(w.cache, w.settings, now + timedelta(seconds=REWEIGH_S + 1), True, memo)
    # Three more, past the guard window: a wave of their own, weighed at the very next look.
    past = w.settings.guard_minutes * 60 + 600
    with w.cache.transaction() as conn:
        w.cache.upsert_losses(conn, [like_last(f"fresh000000{i}", past + 10 * i) for i in range(3)])
    _, fresh = observe(w.cache, w.settings, now + timedelta(seconds=REWEIGH_S + 2), True, memo)
    await w.close(drain_s=1)
    assert soon[0][0] is wave and "grown0000001" not in soon[0][1].pods
    assert [f.key for _, f in later] == [facts.key] and "grown0000001" in later[0][1].pods
    assert [f.key for _, f in fresh] == [facts.key, "fresh0000000"]
