"""A real SSH session on 127.0.0.1 (asyncssh server and client) around `sagan-tui --demo`: what the owner's laptop gets."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import httpx
import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

pytest.importorskip("asyncssh")

from common import PY, ROOT, clean_env  # noqa: E402
from sshrun import SshPtyProcess, private_modes  # noqa: E402

# Generous: conditions are waited on, never the clock; 2 cores shared by many runs under load.
WAIT = 180


def _sim_url(raw: bytes) -> str:
    found = re.search(rb"demo: scenario \S+ on (http://127\.0\.0\.1:\d+)", raw)
    assert found, "the demo names its simulator on stderr, before the screen starts"
    return found.group(1).decode()


def test_over_ssh_a_wave_shows_367_is_approved_with_both_answers_and_q_restores_the_terminal(tmp_path):
    env = clean_env(tmp_path, SAGAN_TUI_NOTIFY="osc9")
    # The r4 wave lands ~110 s into the scenario: at 10x and 1 s polls it shows within seconds.
    argv = [PY, "-m", "sagan_tui", "--demo", "--speed", "10", "--poll-interval", "1"]
    with SshPtyProcess(argv, env, size=(200, 50), term="xterm-256color", cwd=str(ROOT)) as ssh:
        ssh.wait_for(lambda text: "Reaping wave" in text, WAIT)
        raw = bytes(ssh.output)
        sim = _sim_url(raw)
        # The notification crossed the connection as OSC 9, its text sanitised and whole.
        assert re.search(rb"\x1b\]9;Reaping wave: 3 pods lost [^\x07\x1b]* in team\.", raw)
        mark = len(ssh.output)
        ssh.send("/")
        ssh.wait_for(lambda text: "filter Experiments" in text, WAIT, since=mark)  # the filter bar is up
        mark = len(ssh.output)
        ssh.send("367\r")
        ssh.wait_for(lambda text: "Experiments · 1/" in text, WAIT, since=mark)  # one row left: #367
        mark = len(ssh.output)
        ssh.send("a")
        ssh.wait_for(lambda text: "Approve (alt+a)" in text and "budget-cap-usd" in text, WAIT, since=mark)
        # Typed at once: the first answer lands in the first textbox, tab to the second, alt+a (ESC a).
        mark = len(ssh.output)
        ssh.send("40\tteam\x1ba")
        # The wave is in team, the plan's account: approving dispatches, so the guard asks for #367.
        ssh.wait_for(lambda text: "Type 367 and Enter to approve" in text, WAIT, since=mark)
        mark = len(ssh.output)
        ssh.send("367\r")
        ssh.wait_for(lambda text: "Decision sent" in text, WAIT, since=mark)
        reply = httpx.get(f"{sim}/api/experiments/367", headers={"Authorization": "Bearer sagan-demo-token"},
                          timeout=30).json()
        assert reply["experiment"]["status"] == "approved"
        assert all(a["status"] != "pending" for a in reply["approvalRequests"])
        answered = [e["metadata"]["answers"] for e in reply["events"] if e["eventType"] == "epm:textbox-answers"]
        assert answered == [{"budget-cap-usd": "40", "preferred-account": "team"}]  # each in its own field
        ssh.send("q")
        assert ssh.wait_exit(WAIT) == 0
    modes = private_modes(bytes(ssh.output))
    assert modes.get(1049) == "l" and modes.get(25) == "h"  # main screen back, cursor shown
    left_on = sorted(m for m, op in modes.items() if op == "h" and m not in (25, 7))  # 7: autowrap, on by default
    assert left_on == [], f"modes left set: {left_on}"
