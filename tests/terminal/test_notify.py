"""Terminal notifications: each mode's sequence, tmux's passthrough, and titles that try to break out."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest

from sagan_tui.panel.notify import MODES, Notifier, ring, safe, sequence, tmux_wrap

ESC = "\x1b"
HOSTILE = [
    "x\x1b]0;pwned\x07y",  # OSC: set the window title
    "x\x07y",  # BEL would end an OSC early
    "x\x1b\\y",  # ST (7-bit)
    "x\x9cy\x9d0;pwned\x9c",  # C1 ST and OSC
    "x\x1b[2Jy\x9b2J",  # CSI: clear the screen (7- and 8-bit)
    "x\ny\rz\u2028w\u0085v",  # newlines of every kind
    "x\x1bPtmux;\x1b\x1b]52;c;ZXZpbA==\x07\x1b\\y",  # a passthrough of its own (clipboard write)
    "a;b;c",  # field separators of OSC 777
]


def _payloads(seq: str) -> list[str]:
    """The text between each OSC's introducer and its ST: what the terminal reads as the notification."""
    return re.findall(r"\x1b\](?:9|777|99);(.*?)\x1b\\", seq, flags=re.S)


@pytest.mark.parametrize("mode,want", [
    ("bell", "\x07"),
    ("osc9", "\x1b]9;Your turn: #367 plan\x1b\\"),
    ("osc777", "\x1b]777;notify;Your turn;#367 plan\x1b\\"),
    ("osc99", "\x1b]99;i=sagan:d=0:p=title;Your turn\x1b\\\x1b]99;i=sagan:d=1:p=body;#367 plan\x1b\\"),
    ("off", ""),
])
def test_each_mode_writes_its_own_sequence_and_off_writes_nothing(mode, want):
    written: list[str] = []
    Notifier(mode, written.append, {})("Your turn", "#367 plan")
    assert "".join(written) == want


@pytest.mark.parametrize("mode", [m for m in MODES if m.startswith("osc")])
def test_inside_tmux_an_osc_is_wrapped_in_the_passthrough_with_its_escapes_doubled(mode):
    plain = sequence(mode, "Reaping wave", "5 pods lost")
    wrapped = sequence(mode, "Reaping wave", "5 pods lost", tmux=True)
    assert wrapped == tmux_wrap(plain)
    assert wrapped.startswith("\x1bPtmux;\x1b\x1b]") and wrapped.endswith("\x1b\x1b\\\x1b\\")
    # Undoing tmux's doubling gives the plain sequence back: tmux hands exactly that to the terminal.
    assert wrapped[len("\x1bPtmux;"):-2].replace("\x1b\x1b", "\x1b") == plain
    written: list[str] = []
    Notifier(mode, written.append, {"TMUX": "/tmp/tmux-1000/default,1,0"})("Reaping wave", "5 pods lost")
    assert written == [wrapped]


def test_inside_tmux_the_bell_stays_a_bell_tmux_forwards_it_itself():
    assert sequence("bell", "t", "b", tmux=True) == "\x07"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_hostile_title_or_body_cannot_break_out_of_the_sequence(mode, hostile):
    for title, seq in ((hostile, sequence(mode, hostile, hostile)), ("t", sequence(mode, "t", hostile, tmux=True))):
        if mode in ("bell", "off"):
            assert seq in ("\x07", "")
            continue
        plain = seq[len("\x1bPtmux;"):-2].replace("\x1b\x1b", "\x1b") if seq.startswith("\x1bP") else seq
        # Only our own introducers and terminators carry an ESC; the text carries no control at all.
        parts = _payloads(plain)
        assert parts and "".join(f"\x1b]{m};{p}\x1b\\" for m, p in zip(_osc_numbers(plain), parts)) == plain
        for p in parts:
            assert p.isprintable(), repr(p)
            assert not any(c in p for c in "\x07\x1b\x9c\x9d\x9b\n\r")
        if mode == "osc777":  # the title stays in its field: notify;TITLE;BODY
            assert parts[0].split(";", 2)[1] == safe(title, 60).replace(";", ",")


def _osc_numbers(seq: str) -> list[str]:
    return re.findall(r"\x1b\]((?:9|777|99));", seq)


def test_a_message_starting_with_a_digit_is_not_read_as_a_conemu_sub_command():
    seq = sequence("osc9", "", "4;3;100 pods")
    assert seq == "\x1b]9;sagan: 4;3;100 pods\x1b\\"


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="osc8"):
        sequence("osc8", "t")


class _Driver:
    def __init__(self) -> None:
        self.out: list[str] = []

    def write(self, data: str) -> None:
        self.out.append(data)


def _note(title, message, ring_=True):
    return SimpleNamespace(title=title, message=message, ring=ring_)


def test_the_panels_hook_sends_one_notification_per_poll_naming_how_many_more(monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    driver = _Driver()
    app = SimpleNamespace(settings=SimpleNamespace(notify="osc777", bell=True), _driver=driver, is_headless=False)
    notes = [_note("Source failing", "team: 401", False), _note("Your turn", "#367 plan"),
             _note("Reaping wave", "5 pods lost")]
    ring(app, notes)
    assert driver.out == ["\x1b]777;notify;Your turn;#367 plan (+1 more)\x1b\\"]
    ring(app, notes[:1])  # nothing that rings: nothing written
    assert len(driver.out) == 1


def test_the_older_bell_false_setting_still_silences_the_panel(tmp_path):
    from sagan_tui.core.config_model import load_settings

    env = {"SAGAN_TUI_CONFIG": str(tmp_path / "none.toml")}
    assert load_settings(env)[0].notify == "bell"
    assert load_settings(env, bell=False)[0].notify == "off"
    assert load_settings({**env, "SAGAN_TUI_BELL": "0", "SAGAN_TUI_NOTIFY": "osc9"})[0].notify == "osc9"
    driver = _Driver()
    app = SimpleNamespace(settings=load_settings(env, bell=False)[0], _driver=driver, is_headless=False)
    ring(app, [_note("Your turn", "#1")])
    assert driver.out == []


def test_a_wrong_notify_value_is_a_config_error_naming_it(tmp_path):
    from sagan_tui.core.config_model import ConfigError, load_settings

    with pytest.raises(ConfigError, match="notify"):
        load_settings({"SAGAN_TUI_CONFIG": str(tmp_path / "none.toml"), "SAGAN_TUI_NOTIFY": "osc8"})


@pytest.fixture
def tmux_server(tmp_path, monkeypatch):
    """A tmux server of this test's own (its socket under tmp_path); $TMUX points the panel at it."""
    import shutil
    import subprocess

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    sock = str(tmp_path / "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "t", "sleep 600"], check=True)
    pid = subprocess.run(["tmux", "-S", sock, "display-message", "-p", "#{pid}"], check=True,
                         capture_output=True, text=True).stdout.strip()
    monkeypatch.setenv("TMUX", f"{sock},{pid},0")

    def set_passthrough(value: str) -> None:
        subprocess.run(["tmux", "-S", sock, "set-option", "-g", "allow-passthrough", value], check=True)

    yield set_passthrough
    subprocess.run(["tmux", "-S", sock, "kill-server"], check=False)


def _osc_app(driver):
    said: list[tuple[str, str]] = []
    bells: list[int] = []
    app = SimpleNamespace(settings=SimpleNamespace(notify="osc9", bell=True), _driver=driver, is_headless=False,
                          notify=lambda message, **kw: said.append((message, kw.get("severity", ""))),
                          bell=lambda: bells.append(1))
    return app, said, bells


def test_inside_tmux_without_passthrough_an_osc_is_the_bell_and_the_owner_is_told_once(tmux_server):
    tmux_server("off")
    driver = _Driver()
    app, said, bells = _osc_app(driver)
    for _ in range(3):
        assert ring(app, [_note("Your turn", "#367 plan")]) == "\a"
    assert driver.out == [] and len(bells) == 3  # no OSC for tmux to drop: the bell, every time
    assert [s for s in said if s[1] == "warning"] == [(said[0][0], "warning")] and len(said) == 1
    assert "allow-passthrough" in said[0][0] and "bell" in said[0][0]


def test_inside_tmux_with_passthrough_the_osc_goes_wrapped_and_nothing_is_said(tmux_server):
    tmux_server("on")
    driver = _Driver()
    app, said, bells = _osc_app(driver)
    ring(app, [_note("Your turn", "#367 plan")])
    assert driver.out == [tmux_wrap("\x1b]9;Your turn: #367 plan\x1b\\")] and said == [] and bells == []


def test_doctor_names_the_notification_path(tmux_server, monkeypatch):
    import os

    from sagan_tui.panel.notify import notify_path, tmux_passthrough

    tmux_server("off")
    assert tmux_passthrough(os.environ) is False
    ok, words = notify_path("osc9", os.environ, False)
    assert ok is None and "allow-passthrough is off" in words and "bell" in words
    tmux_server("on")
    assert tmux_passthrough(os.environ) is True
    assert notify_path("osc9", os.environ, True)[0] is True
    monkeypatch.delenv("TMUX")
    assert tmux_passthrough(os.environ) is None and notify_path("bell", os.environ, None)[0] is True
