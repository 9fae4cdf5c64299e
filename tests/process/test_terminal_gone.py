"""The panel whose terminal is gone (the pty's master closed: reads see EOF, writes fail with EIO,
and without a controlling terminal no SIGHUP comes) ends, with 128+SIGHUP, and so does its
session process; a SIGTERM then ends it too. A process whose loop cannot honour the stop signal
ends hard: after the grace period, or at once on a second SIGTERM, its terminal modes put back."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from bench.ptyrun import PtyProcess
from tests.harness import wait_until
from tests.process.test_lifecycle import BOUND_S, alive, panel, process_env
from tests.ui.test_panel_terminal import _modes

ROOT = Path(__file__).resolve().parents[2]


def ended(p: PtyProcess) -> int:
    """The process's exit code, waited for (a bound on a hang, not a timing assertion)."""
    try:
        return p.proc.wait(BOUND_S)
    except Exception:  # noqa: BLE001 - TimeoutExpired: the failure this test is for
        raise AssertionError(f"pid {p.pid} still runs {BOUND_S:.0f}s after its terminal closed") from None


def gone(pid: int) -> None:
    wait_until(lambda: not alive(pid), f"the session process {pid} to end with the panel", timeout=BOUND_S)


def test_closing_the_terminal_ends_the_panel_and_its_session_process(tmp_path):
    with panel(process_env(tmp_path)) as (p, child):
        os.close(p.master)  # the window closed: the pty hangs up
        assert ended(p) == 128 + signal.SIGHUP
        gone(child)


def test_sigterm_after_the_terminal_closed_ends_the_panel(tmp_path):
    with panel(process_env(tmp_path)) as (p, child):
        os.close(p.master)
        os.kill(p.pid, signal.SIGTERM)
        # Whichever it saw first; or, when the hang-up had ended the panel already and its
        # handlers were given back, the SIGTERM's own default end (a shell reads that as 143 too).
        assert ended(p) in (128 + signal.SIGHUP, 128 + signal.SIGTERM, -signal.SIGTERM)
        gone(child)


def _pending(pid: int, signo: int) -> bool:
    """`signo` is still pending for the process (not yet delivered to a handler), read from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("ShdPnd:"):
            return bool(int(line.split()[1], 16) >> (signo - 1) & 1)
    raise AssertionError("no ShdPnd in /proc status")


def wedged(grace_s: float) -> PtyProcess:
    p = PtyProcess([sys.executable, "-m", "tests.process.wedged", str(grace_s)], dict(os.environ),
                   size=(80, 24), cwd=str(ROOT)).start()
    p.wait_for(lambda screen: "wedged" in screen, timeout=BOUND_S)
    assert _modes(p.master) == (False, False)  # raw, as the panel holds it
    return p


def test_a_stop_signal_the_loop_cannot_honour_ends_the_process_after_the_grace_period():
    p = wedged(grace_s=0.2)
    try:
        os.kill(p.pid, signal.SIGTERM)
        assert ended(p) == 128 + signal.SIGTERM
        p.pump(0.1)
        assert _modes(p.master) == (True, True)  # canonical mode and echo put back
        assert b"\x1b[?1049l" in bytes(p.output) and b"\x1b[?25h" in bytes(p.output)
    finally:
        p.stop(None)


@pytest.mark.parametrize("second", ["SIGTERM", "SIGINT"])
def test_a_second_stop_signal_ends_a_wedged_process_at_once(second):
    p = wedged(grace_s=3600.0)  # the grace cannot be what ends it within the bound
    try:
        os.kill(p.pid, signal.SIGTERM)
        # delivered: the first request is noted
        wait_until(lambda: not _pending(p.pid, signal.SIGTERM), "the first SIGTERM delivered", timeout=BOUND_S)
        os.kill(p.pid, getattr(signal, second))
        assert ended(p) == 128 + getattr(signal, second)
        assert _modes(p.master) == (True, True)
    finally:
        p.stop(None)
