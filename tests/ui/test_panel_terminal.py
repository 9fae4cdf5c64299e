"""The panel on a real pty: SIGTERM, SIGHUP and SIGINT end it as `q` does, terminal restored; no terminal, no panel."""

import os
import re
import signal
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from bench.ptyrun import PtyProcess

EXE = [sys.executable, "-m", "sagan_tui"]
# What Textual writes when the panel quits on `q`: leave the alternate screen, show the cursor,
# mouse tracking off (each mode it turned on).
RESTORED = {b"\x1b[?1049l", b"\x1b[?25h", b"\x1b[?1000l", b"\x1b[?1003l", b"\x1b[?1006l"}


def _env(tmp_path) -> dict:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}
    # No keys and a Sagan that refuses at once: the panel runs and polls, nothing leaves loopback.
    return {**base, "SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"), "SAGAN_BASE_URL": "http://127.0.0.1:9",
            "SAGAN_TUI_CACHE": str(tmp_path / "cache.sqlite")}


def exited(p: PtyProcess) -> None:
    """Read the panel's output until it exits (and what it wrote last)."""
    deadline = time.monotonic() + 120  # a bound on a hang, not a timing assertion
    while p.proc.poll() is None and time.monotonic() < deadline:
        p.pump(0.05)
    p.pump(0.1)
    assert p.proc.poll() is not None, "the panel did not exit"


def _modes(fd: int) -> tuple[bool, bool]:
    lflag = termios.tcgetattr(fd)[3]
    return bool(lflag & termios.ICANON), bool(lflag & termios.ECHO)


@pytest.mark.parametrize("how", ["q", "SIGTERM", "SIGHUP", "SIGINT"])
def test_a_stop_signal_ends_the_panel_as_q_does_and_restores_the_terminal(tmp_path, how):
    p = PtyProcess([*EXE], _env(tmp_path), size=(120, 30)).start()
    try:
        p.wait_for(lambda screen: "Experiments" in screen and "Pods" in screen, timeout=120)
        assert _modes(p.master) == (False, False)  # the panel holds the terminal raw
        drawn = len(p.output)
        if how == "q":
            p.send("q")
        else:
            os.kill(p.pid, getattr(signal, how))
        exited(p)
        expected = 0 if how == "q" else 128 + getattr(signal, how)
        assert p.proc.returncode == expected
        assert _modes(p.master) == (True, True)  # canonical mode and echo are back
        written = set(re.findall(rb"\x1b\[\?[0-9;]+[hl]", bytes(p.output[drawn:])))
        assert RESTORED <= written, sorted(written)
        assert b"Traceback" not in bytes(p.output)
    finally:
        p.stop(None)


@pytest.mark.parametrize("argv", [[], ["--demo", "--scenario", "calm"]])
def test_without_a_terminal_the_panel_exits_2_pointing_at_the_headless_commands(tmp_path, argv):
    r = subprocess.run([*EXE, *argv], env=_env(tmp_path), stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=120)
    assert r.returncode == 2
    assert r.stdout == b""  # nothing drawn: not one escape code
    err = r.stderr.decode()
    assert "needs a terminal" in err and all(f"sagan-tui {c}" in err for c in ("sync", "report", "waves"))
    assert not (tmp_path / "cache.sqlite").exists()


def test_a_terminal_on_input_only_is_not_enough(tmp_path):
    master, slave = os.openpty()
    try:
        r = subprocess.run(EXE, env=_env(tmp_path), stdin=slave, capture_output=True, timeout=120)
    finally:
        os.close(slave)
        os.close(master)
    assert r.returncode == 2 and b"standard output is not one" in r.stderr and r.stdout == b""


def colour_codes(out: bytes) -> set[str]:
    """Every colour an SGR sequence in `out` sets: 30-37, 38;5;n, 38;2;r;g;b, 40-47, 48;..., 90-97, 100-107."""
    found = set()
    for sgr in re.findall(rb"\x1b\[([0-9;:]*)m", out):
        ps = [int(x or 0) for x in sgr.replace(b":", b";").split(b";")]
        i = 0
        while i < len(ps):
            if ps[i] in (38, 48):  # extended: 5;n or 2;r;g;b
                n = 5 if ps[i + 1:i + 2] == [2] else 3
                found.add(";".join(map(str, ps[i:i + n])))
                i += n
                continue
            if ps[i] in (*range(30, 38), *range(40, 48), *range(90, 98), *range(100, 108)):
                found.add(str(ps[i]))
            i += 1
    return found


def test_colour_codes_reads_every_form():
    out = b"\x1b[1;7m\x1b[38;5;253;48;2;1;2;3m\x1b[0;39;49m\x1b[97;100m\x1b[31m"
    assert colour_codes(out) == {"38;5;253", "48;2;1;2;3", "97", "100", "31"}


@pytest.mark.parametrize("term, no_color", [("dumb", False), ("xterm-256color", True)], ids=["TERM=dumb", "NO_COLOR"])
def test_no_colour_codes_under_term_dumb_or_no_color(tmp_path, term, no_color):
    """The whole demo (its heatmap and wave in the incident layout, a focused pane's cursor row):
    not one colour code; what stays visible without colour is bold, dim and reverse."""
    env = {k: v for k, v in _env(tmp_path).items() if k not in ("NO_COLOR", "COLORTERM", "TEXTUAL_COLOR_SYSTEM")}
    if no_color:
        env["NO_COLOR"] = "1"
    p = PtyProcess([*EXE, "--demo", "--scenario", "reaping-wave", "--speed", "20"], env, size=(200, 50),
                   term=term).start()
    try:
        p.wait_for(lambda screen: "Experiments" in screen and "Pods" in screen, timeout=120)
        p.send("I")  # the incident layout: heatmap and waves on top
        p.wait_for(lambda screen: "losses/cell" in screen, timeout=120)
        p.send("\t")  # a pane focused: its cursor row
        p.wait_for(lambda screen: "WAVE" in screen, timeout=120)  # reaping-wave's first wave, at speed 20
        p.pump(0.5)
        out = bytes(p.output)
    finally:
        p.stop("q")
    assert not colour_codes(out), sorted(colour_codes(out))[:20]
    styles = {int(c or 0) for sgr in re.findall(rb"\x1b\[([0-9;]*)m", out) for c in sgr.split(b";")}
    assert 7 in styles, "no reverse video: the cursor row and the focused pane would not show"


def _newer(path):
    from sagan_tui.core.store.cache import Cache

    Cache(path).close()
    import sqlite3

    with sqlite3.connect(path) as db:
        db.execute("update meta set value = '999' where key = 'schema_version'")


@pytest.mark.parametrize("case, said", [
    ("directory", "is a directory"),
    ("newer", "schema v999 is newer than this sagan-tui"),
    ("long", "sagan_tui_cache: a part of the path is longer than 255 bytes"),
])
def test_a_cache_the_panel_cannot_use_ends_it_with_exit_2_saying_why_the_file_untouched(tmp_path, case, said):
    path = tmp_path / "cache.sqlite"
    if case == "directory":
        path.mkdir()
        (path / "mine.txt").write_text("kept")
    elif case == "newer":
        _newer(path)
    else:
        path = tmp_path / ("c" * 300) / "cache.sqlite"
    before = sorted((p.name, p.stat().st_size) for p in tmp_path.rglob("*")) if case != "long" else []
    p = PtyProcess([*EXE, "--cache", str(path)], _env(tmp_path), size=(120, 30)).start()
    try:
        exited(p)
        assert p.proc.returncode == 2
        text = bytes(p.output).decode("utf-8", "replace").replace("\r\n", " ").replace("\n", " ")
        assert said in re.sub(r"\s+", " ", text), text[-600:]
        assert b"Traceback" not in bytes(p.output)
        assert _modes(p.master) == (True, True)
    finally:
        p.stop(None)
    if case != "long":
        after = sorted((q.name, q.stat().st_size) for q in tmp_path.rglob("*") if q.name != "panel.log")
        assert after == [b for b in before if b[0] != "panel.log"]
        assert not any(".bad-" in q.name for q in tmp_path.rglob("*"))


def test_a_retention_below_a_day_stops_the_panel_before_it_prunes_anything(tmp_path):
    from datetime import datetime, timedelta, timezone

    from sagan_tui.core.models import WorkflowEvent
    from sagan_tui.core.store.cache import Cache

    path = tmp_path / "cache.sqlite"
    c = Cache(path)
    old = datetime.now(timezone.utc) - timedelta(days=3)
    with c.transaction() as conn:
        c.upsert_events(conn, [WorkflowEvent(id=f"e{i}", event_type="note", created_at=old) for i in range(5)])
    c.close()
    env = {**_env(tmp_path), "SAGAN_TUI_EVENTS_RETENTION_DAYS": "-1"}
    p = PtyProcess([*EXE, "--cache", str(path)], env, size=(120, 30)).start()
    try:
        exited(p)
        assert p.proc.returncode == 2
        assert b"events_retention_days" in bytes(p.output)
    finally:
        p.stop(None)
    c = Cache(path, read_only=True)
    assert c.counts()["events"] == 5
    c.close()


def test_a_read_only_cache_directory_ends_the_panel_with_exit_2_naming_it(tmp_path, other_user):
    """As a user who cannot write there (root ignores modes: the panel then runs as nobody)."""
    import tempfile

    shared = Path(tempfile.mkdtemp(prefix="sagan-tui-ro-"))
    try:
        shared.chmod(0o755)
        ro = shared / "ro"
        ro.mkdir()
        ro.chmod(0o555)
        env = {**_env(shared), "HOME": str(shared), **other_user.env}
        p = PtyProcess([*other_user.command, "--cache", str(ro / "cache.sqlite")], env, size=(120, 30),
                       cwd=other_user.cwd).start()
        try:
            exited(p)
            assert p.proc.returncode == 2
            text = re.sub(r"\s+", " ", bytes(p.output).decode("utf-8", "replace"))
            assert f"beside the cache {ro / 'cache.sqlite'}" in text and "Traceback" not in text, text[-600:]
        finally:
            p.stop(None)
        assert list(ro.iterdir()) == []
    finally:
        subprocess.run(["rm", "-rf", str(shared)], check=False)
