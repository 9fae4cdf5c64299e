"""Panels attach to a running `watch` (issue 45.6): over the session channel on the cache's own
socket, one set of polls for any number of panels (counted at the simulator), the panel's refresh
asks the watch to poll; when the watch stops or is killed, each panel says so and carries on with a
session of its own; `--standalone` never attaches; a second watch on one cache is refused; a socket
directory open to others is never used."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from sagan_tui.wire.channel import early
from sagan_tui.wire.channel.runtime_dir import (ChannelRefused, connect_watch, listen, make_watch_dir, watch_dir,
                                                watch_socket, watch_socket_name)
from tests.harness import SIZE, said, screen_text, wait_for, wait_until
from tests.process.test_panel_on_the_process import WAIT_S, draft_for

from .test_watch import _watch


@pytest.fixture(autouse=True)
def _nothing_left_to_take():
    """A test that ends early leaves no watch connection or early child for the next panel to take."""
    yield
    sock = early.take_attached()
    if sock is not None:
        sock.close()
    child = early.take_early()
    if child is not None:
        child.taken = False
        child.discard()


def _sources(requests) -> list[tuple[str, str]]:
    """The source requests a poll made, as (api, path): what a second set of polls would repeat."""
    return sorted((r.api, r.path) for r in requests)


async def _attached_client(cache_path, updates):
    """A second panel's end of the channel, attached as the panel command attaches (no screen)."""
    from sagan_tui.wire.channel.client import SessionClient

    ended: list[str] = []
    client = SessionClient(updates.append, ended.append)
    sock = connect_watch(cache_path)
    assert sock is not None, "no watch answers on the cache's socket"
    await client.connect(sock)
    client.attached = True
    return client, ended


async def test_two_attached_panels_add_no_source_request_and_carry_on_when_watch_stops(sim_factory, tmp_path):
    from sagan_tui.panel.app import SaganApp
    from sagan_tui.wire.channel.early import open_layers

    alone, shared = sim_factory(scenario="reaping-wave"), sim_factory(scenario="reaping-wave")
    (tmp_path / "alone").mkdir()
    lone, lone_poll = await _watch(alone, tmp_path / "alone", [])
    lines: list[str] = []
    w, poll_at = await _watch(shared, tmp_path, lines, name="cache")  # the panel's cache file (draft_for)
    w.open_hub()
    draft = draft_for(shared, tmp_path)
    assert early.attach_or_start_early(draft, draft.cache_path) is None
    app = SaganApp(draft, poll=True)
    updates: list = []
    try:
        await lone_poll(60)
        await poll_at(60)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.loaded, "the watch's whole panel", timeout=WAIT_S)
            assert app.session.attached and app.session.pid is None  # no session process of its own
            client, ended = await _attached_client(draft.cache_path, updates)
            values, accounts = open_layers(draft)
            second = await client.open(values, accounts)
            assert second.first.pod_records  # the watch's current picture, whole
            await wait_for(pilot, lambda: "panel attached (2 attached)" in lines, "the watch's line")
            await wait_for(pilot, lambda: "watch polls 60s" in screen_text(app).splitlines()[0], "the status line")
            before = len(shared.requests)
            app.request_refresh()  # the owner's refresh: the watch is asked to poll, nobody else polls
            await wait_for(pilot, lambda: w._poll_now.is_set(), "the watch asked to poll")
            await pilot.press("P")  # pause: the polls are the watch's, not this panel's to stop
            await wait_for(pilot, lambda: said(app, "attached to `sagan-tui watch`"), "pause refused")
            assert not app.paused and len(shared.requests) == before

            # The wave's poll, with two panels attached and with none: the same source requests.
            lone_mark, mark = len(alone.requests), len(shared.requests)
            await lone_poll(160)
            await poll_at(160)
            assert _sources(shared.requests[mark:]) == _sources(alone.requests[lone_mark:])
            await wait_for(pilot, lambda: app.view.loss_view is not None and app.view.loss_view.waves,
                           "the watch's wave on the attached panel")
            # And on the second: its own session in the watch sends it on its own connection, in its own turn.
            await wait_for(pilot, lambda: any(u.losses is not None and u.losses.waves for u in updates),
                           "the watch's wave on the second panel")

            await w.hub.close()  # the watch stops (as its close() begins): both panels hear it
            await wait_for(pilot, lambda: said(app, "this panel polls on its own now"), "said on screen",
                           timeout=WAIT_S)
            await wait_for(pilot, lambda: app.session.opened == 2 and app.session.pid is not None,
                           "its own session process", timeout=WAIT_S)
            assert not app.session.attached and app.view.loss_view.waves  # the same picture, from the cache
            await wait_for(pilot, lambda: ended, "the second panel told")
            assert ended == ["the watch this panel was attached to stopped"]
            await client.close()
    finally:
        await w.close(drain_s=1)
        await lone.close(drain_s=1)
    assert not watch_dir(draft.cache_path).exists()  # a clean stop leaves no socket or lock behind


def _watch_process(sim, tmp_path):
    """`sagan-tui watch` on the panel's cache (draft_for's), started and past its start line."""
    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}, **sim.env(),
           "SAGAN_TUI_CONFIG": str(tmp_path / "no-config.toml"), "SAGAN_TUI_CACHE": str(tmp_path / "cache.sqlite"),
           **{f"RUNPOD_TRANSPORT_{name.upper()}": "graphql" for name in sim.account_keys}}
    argv = [sys.executable, "-m", "sagan_tui", "watch", "--poll-interval", "60"]
    p = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()
    assert "panels attach at" in first, (first, p.stderr.read() if p.poll() is not None else "")
    return p, argv, env


async def test_a_killed_watch_is_said_and_the_panel_goes_on_polling_on_its_own(sim_factory, tmp_path):
    from sagan_tui.panel.app import SaganApp

    sim = sim_factory(scenario="reaping-wave")
    watch, argv, env = _watch_process(sim, tmp_path)
    try:
        # One watch per cache: a second is refused before it polls or pages (two would page twice).
        second = subprocess.run(argv + ["--for", "1"], env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and "another sagan-tui watch is watching" in second.stderr, second
        draft = draft_for(sim, tmp_path)
        assert early.attach_or_start_early(draft, draft.cache_path) is None
        app = SaganApp(draft, poll=False)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.loaded and app.session.attached, "attached", timeout=WAIT_S)
            watch.kill()
            watch.wait(timeout=60)
            await wait_for(pilot, lambda: said(app, "this panel polls on its own now"), "said on screen",
                           timeout=WAIT_S)
            await wait_for(pilot, lambda: app.session.pid is not None and app.session.opened == 2,
                           "its own session process", timeout=WAIT_S)
            app.request_refresh()  # its own polls now
            await wait_for(pilot, lambda: app.polls >= 1, "its own poll", timeout=WAIT_S)
            assert "watch polls" not in screen_text(app).splitlines()[0]
        # The dead watch's socket is left behind: nothing answers there, and a new watch takes the cache.
        assert watch_socket(draft.cache_path).exists() and connect_watch(draft.cache_path) is None
        again = subprocess.run(argv + ["--for", "1"], env=env, capture_output=True, text=True, timeout=60)
        assert again.returncode == 0 and "panels attach at" in again.stdout, again
    finally:
        if watch.poll() is None:
            watch.kill()
        watch.wait(timeout=60)
        watch.stdout.close()
        watch.stderr.close()


def test_standalone_starts_its_own_session_even_with_a_watch_on_the_cache(sim_factory, tmp_path):
    sim = sim_factory(scenario="calm")
    watch, _argv, _env = _watch_process(sim, tmp_path)
    try:
        draft = draft_for(sim, tmp_path)
        assert early.attach_or_start_early(draft, draft.cache_path, standalone=True) is None
        assert early.take_attached() is None
        child = early.take_early()
        assert child is not None  # its own session process, started early as always
        child.taken = False
        child.discard()
    finally:
        watch.send_signal(signal.SIGINT)
        watch.communicate(timeout=60)


@pytest.fixture
def short_base():
    """A runtime base short enough for a socket path (pytest's tmp_path may not be)."""
    import shutil
    import tempfile

    base = tempfile.mkdtemp(prefix="w", dir="/tmp")
    yield __import__("pathlib").Path(base)
    shutil.rmtree(base, ignore_errors=True)


def test_a_watch_directory_open_to_others_is_never_used(tmp_path, short_base):
    cache = tmp_path / "c.sqlite"
    where = watch_dir(cache, base=short_base)
    where.mkdir(mode=0o755)
    os.chmod(where, 0o755)
    (where / watch_socket_name()).touch()
    with pytest.raises(ChannelRefused, match="open to others"):
        connect_watch(cache, base=short_base)
    os.chmod(where, 0o700)
    assert connect_watch(cache, base=short_base) is None  # a file nothing listens on: no watch


@pytest.mark.parametrize("name, version", [(watch_socket_name(7), "7"), ("session.sock", "0")])
def test_a_watch_of_another_channel_version_is_named_and_not_attached_to(tmp_path, short_base, name, version):
    """An upgrade while a watch runs: the new panel finds no socket of its version, says which
    version answers there (a watch from before versions were named is 0) and polls on its own;
    a socket of another version nothing listens on is a dead watch's, no watch."""
    cache = tmp_path / "c.sqlite"
    path = make_watch_dir(cache, base=short_base) / name
    other = listen(path)
    try:
        with pytest.raises(ChannelRefused, match=f"speaks channel version {version}, this panel 1 "):
            connect_watch(cache, base=short_base)
    finally:
        other.close()
    assert path.exists() and connect_watch(cache, base=short_base) is None


async def test_a_watch_clears_the_sockets_dead_watches_of_any_version_left(tmp_path, short_base):
    from sagan_tui.core.session.hub import WatchHub

    cache = tmp_path / "c.sqlite"
    where = make_watch_dir(cache, base=short_base)
    for name in (watch_socket_name(7), "session.sock"):
        (where / name).touch()
    hub = WatchHub(cache, lambda: None, 60.0, print, base=short_base)
    hub.open()
    try:
        assert sorted(p.name for p in where.iterdir() if p.suffix == ".sock") == [watch_socket_name()]
    finally:
        await hub.close()


async def test_a_hub_refuses_a_second_watch_on_its_cache_and_leaves_nothing_when_it_closes(tmp_path, short_base):
    from sagan_tui.core.session.hub import WatchHub, WatchRunning

    cache = tmp_path / "c.sqlite"
    first = WatchHub(cache, lambda: None, 60.0, print, base=short_base)
    first.open()
    try:
        with pytest.raises(WatchRunning, match="another sagan-tui watch"):
            WatchHub(cache, lambda: None, 60.0, print, base=short_base).open()
    finally:
        await first.close()
    assert not watch_dir(cache, base=short_base).exists()


def test_sigterm_stops_watch_as_ctrl_c_does_and_leaves_no_socket(sim_factory, tmp_path):
    """A service manager's stop (SIGTERM): the loop ends cleanly, exit 143, the socket and lock gone."""
    sim = sim_factory(scenario="calm")
    watch, _argv, _env = _watch_process(sim, tmp_path)
    watch.send_signal(signal.SIGTERM)
    out, err = watch.communicate(timeout=60)
    assert watch.returncode == 128 + signal.SIGTERM and "watch stopped" in out, (out, err)
    assert not watch_dir(tmp_path / "cache.sqlite").exists()


async def test_a_watch_directory_it_cannot_use_leaves_paging_on(sim_factory, tmp_path, short_base, monkeypatch):
    """The socket is for panels; a runtime directory watch cannot use (here its lock is a directory)
    is said, and the watch polls on: never a guard that refuses to run for want of a socket."""
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(short_base))
    sim = sim_factory(scenario="calm")
    lines: list[str] = []
    w, poll_at = await _watch(sim, tmp_path, lines, name="cache")
    (watch_dir(tmp_path / "cache.sqlite", base=short_base) / "watch.lock").mkdir(parents=True, mode=0o700)
    os.chmod(watch_dir(tmp_path / "cache.sqlite", base=short_base), 0o700)
    try:
        w.open_hub()
        assert w.hub is None and any(line.startswith("warning: panels cannot attach") for line in lines), lines
        await poll_at(60)
        assert w.cache.experiments()  # the poll went on
    finally:
        await w.close(drain_s=1)


async def test_an_attached_panels_first_frame_is_the_watchs_state(sim_factory, tmp_path, monkeypatch):
    """The watch's answer to the PreOpen, in the socket while the panel imports Textual, is the
    first frame: the status line says the watch polls, at the watch's interval (60 s), and never
    the panel's own (5 s); the panel's questions and the watch's updates go on that connection."""
    from sagan_tui.panel.app import SaganApp
    from sagan_tui.panel.widgets.status_bar import StatusBar
    from sagan_tui.wire.config import gather

    sim = sim_factory(scenario="calm")
    watch, _argv, _env = _watch_process(sim, tmp_path)
    shown: list[str] = []
    first_frame: list[str] = []  # what the status line said before the panel had its whole panel
    show = StatusBar.show

    def spy(bar, segments):
        shown.append("".join(t for t, _ in segments))
        if not bar.app.loaded:
            first_frame.append(shown[-1])
        return show(bar, segments)

    monkeypatch.setattr(StatusBar, "show", spy)
    # The answer is there in time on any machine: a slower one would make this a test of the fallback.
    monkeypatch.setattr(early, "PRE_OPEN_WAIT_S", WAIT_S)
    try:
        env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp_path / "no-config.toml"),
               **{f"RUNPOD_TRANSPORT_{name.upper()}": "graphql" for name in sim.account_keys}}
        draft = gather(env, sagan_tui_cache=str(tmp_path / "cache.sqlite"), poll_interval=5.0, bell=False)
        assert early.attach_or_start_early(draft, draft.cache_path) is None
        app = SaganApp(draft, poll=True)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.loaded, "the watch's whole panel", timeout=WAIT_S)
            assert app.session.attached and app.session.pid is None and app.session.opened == 1
            # Said before the answer was read, then the watch's words: never the panel's own interval.
            assert "attaching to watch" in shown[0] and not any("poll 5s" in t for t in shown), shown
            assert "watch polls 60s" in shown[-1] and "watch polls 60s" in first_frame[-1], first_frame
            assert app.settings.poll_interval == 60.0
            # The connection is the panel's now: its questions are answered, the watch's polls arrive.
            assert await app.session.held_now() is not None
            await wait_for(pilot, lambda: app.pods_table.row_count, "the watch's pods", timeout=WAIT_S)
    finally:
        watch.send_signal(signal.SIGINT)
        watch.communicate(timeout=60)


@pytest.mark.parametrize("watch_runs", [False, True])
def test_a_panel_hashes_its_cache_path_only_when_a_watch_of_ours_may_run(tmp_path, watch_runs):
    """No `sagan-tui-watch-<uid>-*` directory: no watch to attach to, and no hashlib (OpenSSL) in
    the panel's start; one there (a dead watch's, here): the cache's own path is looked up."""
    if watch_runs:
        (tmp_path / f"sagan-tui-watch-{os.getuid()}-0123456789abcdef").mkdir(mode=0o700)
    code = ("import json, sys\nfrom pathlib import Path\n"
            "from sagan_tui.wire.channel.runtime_dir import connect_watch\n"
            f"base = Path({str(tmp_path)!r})\n"
            "print(json.dumps([connect_watch(base / 'cache.sqlite', base=base), 'hashlib' in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == f"[null, {'true' if watch_runs else 'false'}]"
