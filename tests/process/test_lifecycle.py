"""The panel on a real pty with its session in a child process: q and the stop signals end both
processes with the terminal restored, kill -9 of the child is named on screen and a new child takes
over, and --demo leaves no process behind."""

from __future__ import annotations

import os
import re
import signal
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench.ptyrun import PtyProcess
from tests.ui.test_panel_terminal import RESTORED, _env, _modes, exited

EXE = [sys.executable, "-m", "sagan_tui"]
BOUND_S = 120.0  # a bound on a hang on a loaded machine, never a timing assertion


def stat(pid: int) -> list[str]:
    """/proc/<pid>/stat's fields after the command's name (state first); OSError once it is gone."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int, marker: bytes = b"sagan_tui.core.session") -> list[int]:
    """The session processes `pid` started (by their command line), read from /proc; with
    `marker`, the children whose command line holds it."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int(stat(int(entry.name))[1])
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if ppid == pid and marker in cmdline:
            found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    """Running (a zombie, dead but not yet reaped by its parent, is not)."""
    try:
        return stat(pid)[0] != "Z"
    except OSError:
        return False


def opens(pid: int, path: Path) -> bool:
    """`pid` has `path` open (its file descriptors, read from /proc)."""
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        try:
            if os.readlink(fd) == str(path):
                return True
        except OSError:
            continue
    return False


def until(p: PtyProcess, cond, what: str) -> None:
    deadline = time.monotonic() + BOUND_S
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        p.pump(0.05)


def process_env(tmp_path) -> dict:
    """The real command's environment with no SAGAN_* variable: the session process is the default."""
    env = _env(tmp_path)
    assert "SAGAN_TUI_SESSION" not in env
    return env


@contextmanager
def panel(env: dict, args: tuple[str, ...] = (), size: tuple[int, int] = (120, 30)):
    """(the panel on a pty, its one session process), once the panes are drawn and the child runs."""
    p = PtyProcess([*EXE, *args], env, size=size).start()
    try:
        p.wait_for(lambda screen: "Experiments" in screen and "Pods" in screen, timeout=BOUND_S)
        until(p, lambda: children(p.pid), "the session process")
        (child,) = children(p.pid)
        yield p, child
    finally:
        p.stop(None)


@pytest.mark.parametrize("how", ["q", "SIGTERM", "SIGHUP", "SIGINT"])
def test_q_and_each_stop_signal_end_the_panel_and_its_session_process(tmp_path, how):
    with panel(process_env(tmp_path)) as (p, child):
        drawn = len(p.output)
        if how == "q":
            p.send("q")
        else:
            os.kill(p.pid, getattr(signal, how))
        exited(p)
        assert p.proc.returncode == (0 if how == "q" else 128 + getattr(signal, how))
        assert _modes(p.master) == (True, True)
        assert RESTORED <= set(re.findall(rb"\x1b\[\?[0-9;]+[hl]", bytes(p.output[drawn:])))
        assert b"Traceback" not in bytes(p.output)
        assert not alive(child)  # the panel waited for it: gone, not left behind


def test_kill_9_of_the_session_process_is_named_on_screen_and_a_new_one_takes_over(tmp_path):
    with panel(process_env(tmp_path), size=(160, 40)) as (p, first):
        os.kill(first, signal.SIGKILL)
        p.wait_for(lambda screen: "session process ended: killed by SIGKILL; restarting" in screen, timeout=BOUND_S)
        until(p, lambda: [c for c in children(p.pid) if c != first and alive(c)], "a new session process")
        (second,) = [c for c in children(p.pid) if c != first]
        p.send("q")
        exited(p)
        assert p.proc.returncode == 0 and not alive(second)
        assert _modes(p.master) == (True, True)


def test_kill_9_of_the_panel_ends_its_session_process(tmp_path):
    with panel(process_env(tmp_path)) as (p, child):
        os.kill(p.pid, signal.SIGKILL)
        exited(p)
        until(p, lambda: not alive(child), "the orphaned session process's end")  # its pipe and channel closed


def test_the_session_process_holds_the_cache_and_the_panels_process_does_not(tmp_path):
    cache = tmp_path / "cache.sqlite"
    with panel(process_env(tmp_path)) as (p, child):
        until(p, lambda: opens(child, cache.resolve()), "the cache opened by the session process")
        # The panel's one read of it, the first frame's peek, was closed before that frame was drawn.
        assert not opens(p.pid, cache.resolve())
        p.send("q")
        exited(p)
        assert p.proc.returncode == 0


def demo_env(tmp_path) -> dict:
    env = {**process_env(tmp_path)}
    env.pop("SAGAN_TUI_CACHE", None)
    return env


def test_the_demo_leaves_no_process_behind(tmp_path):
    with panel(demo_env(tmp_path), ("--demo",), size=(160, 40)) as (p, child):
        # The simulator serves from a process of its own (the UI's interpreter serves no HTTP),
        # out of the terminal's foreground group: Ctrl+C is the panel's.
        (sim,) = children(p.pid, b"--for-panel")
        assert os.getpgid(sim) == sim != os.getpgid(p.pid)
        p.send("q")
        exited(p)
        assert p.proc.returncode == 0 and not alive(child)
        until(p, lambda: not alive(sim), "the simulator's end")  # the panel waited for it: normally at once


def test_kill_9_of_the_demos_panel_ends_its_simulator(tmp_path):
    with panel(demo_env(tmp_path), ("--demo",), size=(160, 40)) as (p, child):
        (sim,) = children(p.pid, b"--for-panel")
        os.kill(p.pid, signal.SIGKILL)
        exited(p)
        until(p, lambda: not alive(sim) and not alive(child), "the simulator's and the session's end")


def test_the_command_pre_opens_its_session_and_the_open_adopts_it(tmp_path, sim_factory):
    """The real command against the simulator: the session process is opened on the layers the
    panel wrote on its stdin, and the panel's Open (the same layers, sent over the socket) is
    answered by it, not by a second session (which the log would name, with what differed)."""
    sim = sim_factory(scenario="calm")
    env = {**process_env(tmp_path), **sim.env()}
    with panel(env) as (p, child):
        p.wait_for(lambda screen: "RUNNING" in screen, timeout=BOUND_S)  # live pods, from the session
        p.send("q")
        exited(p)
    assert p.proc.returncode == 0
    log = (tmp_path / "panel.log").read_text() if (tmp_path / "panel.log").exists() else ""
    assert "pre-opened session's layers differ" not in log, log


def _nice(pid: int) -> int:
    return int(stat(pid)[16])


def test_the_session_process_runs_below_the_panel_in_its_session_but_out_of_its_terminal_group(tmp_path):
    from sagan_tui.wire.channel.early import CHILD_NICE

    with panel(process_env(tmp_path)) as (p, child):
        # Ctrl+C and a hang-up go to the terminal's foreground group, the panel's, which acts on them.
        assert os.getpgid(child) == child != os.getpgid(p.pid)
        # One session, so one scheduling group (an autogroup) in which the UI's frames come first.
        assert os.getsid(child) == os.getsid(p.pid)
        assert _nice(child) == min(19, _nice(p.pid) + CHILD_NICE)
        os.kill(child, signal.SIGKILL)  # a restarted child is started the same way
        until(p, lambda: [c for c in children(p.pid) if c != child and alive(c)], "a new session process")
        (second,) = [c for c in children(p.pid) if c != child]
        until(p, lambda: _nice(second) == min(19, _nice(p.pid) + CHILD_NICE), "the new child's nice value")
        assert os.getpgid(second) == second and os.getsid(second) == os.getsid(p.pid)
