"""The headless commands' edges (#44 item 6, #46's config path): each a one-line error naming the
value, and a non-zero exit code; the simulator on loopback where a source is needed."""

from __future__ import annotations

import os

import socket
import sqlite3
from pathlib import Path

import pytest

from sagan_tui import cli

ONE_POD_EACH = {
    "experiments": [{"number": 192, "title": "one", "status": "running", "runpodAccount": "team"},
                    {"number": 333, "title": "two", "status": "running", "runpodAccount": "personal"}],
    "pods": [{"id": "v0c7bx292xqvg4", "account": "team", "experiment": 192, "created_at": 0, "running_at": 1},
             {"id": "j0xvy1q82ryo8m", "account": "personal", "experiment": 333, "created_at": 0, "running_at": 1}],
}


def run(argv, capsys) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's refusals, and a setting refused before the loop
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def with_sim(env, sim, **drop) -> None:
    for k, v in sim.env().items():
        if k not in drop:
            env.setenv(k, v)


# --- sync without a token -------------------------------------------------------------------

def test_sync_without_a_token_says_it_is_missing_and_a_wrong_one_is_401(sim_factory, headless_env, capsys,
                                                                        tmp_path):
    sim = sim_factory(fixture=ONE_POD_EACH)
    with_sim(headless_env, sim, SAGAN_API_TOKEN=True)
    code, out, err = run(["sync", "--once"], capsys)
    assert code == 2 and "no Sagan token: set SAGAN_API_TOKEN" in err, (code, out, err)
    assert "401" not in out + err
    headless_env.setenv("SAGAN_API_TOKEN", "wrong-token")
    code, out, err = run(["sync", "--once"], capsys)
    assert code == 1 and "sagan=ERR 401" in out, (code, out, err)


# --- the cache's path -----------------------------------------------------------------------

@pytest.mark.parametrize("layer, said", [("flag", "set by flag --cache"),
                                         ("env", "set by the environment's SAGAN_TUI_CACHE"),
                                         ("file", "set by config file")])
def test_a_cache_in_a_missing_directory_is_refused_naming_the_layer_and_nothing_is_made(
        headless_env, capsys, tmp_path, layer, said):
    missing = tmp_path / "nonexistent" / "dir"
    path = missing / "c.sqlite"
    argv = ["sync", "--once"]
    headless_env.setenv("SAGAN_API_TOKEN", "t")
    if layer == "flag":
        argv += ["--cache", str(path)]
    elif layer == "env":
        headless_env.setenv("SAGAN_TUI_CACHE", str(path))
    else:
        headless_env.delenv("SAGAN_TUI_CACHE")
        (tmp_path / "c.toml").write_text(f'sagan_tui_cache = "{path}"\n')
        (tmp_path / "c.toml").chmod(0o600)
        headless_env.setenv("SAGAN_TUI_CONFIG", str(tmp_path / "c.toml"))
    code, _, err = run(argv, capsys)
    line = [ln for ln in err.splitlines() if "sagan_tui_cache" in ln]
    assert code == 2 and len(line) == 1, err
    assert f"its directory {missing} does not exist (ENOENT)" in line[0] and said in line[0], line
    assert not (tmp_path / "nonexistent").exists()


def test_a_cache_under_a_file_names_the_errno_for_writers_and_readers(headless_env, capsys, tmp_path):
    (tmp_path / "afile").write_text("not a directory")
    path = tmp_path / "afile" / "c.sqlite"
    headless_env.setenv("SAGAN_API_TOKEN", "t")
    for argv in (["sync", "--once", "--cache", str(path)], ["report", "--cache", str(path)],
                 ["waves", "--cache", str(path)]):
        code, _, err = run(argv, capsys)
        assert code == 2 and f"{tmp_path / 'afile'}" in err and "(ENOTDIR)" in err, (argv, err)
        assert "missing directory, permissions or path too long" not in err


def test_sqlites_cannot_open_is_said_with_the_file_systems_reason_not_guesses(tmp_path):
    from sagan_tui.core.store.opening import unusable

    cant = sqlite3.OperationalError("unable to open database file")
    cant.sqlite_errorcode = 14  # SQLITE_CANTOPEN, which names no reason
    (tmp_path / "afile").write_text("x")
    assert str(unusable(tmp_path / "gone" / "c.sqlite", cant)).endswith(
        f"its directory {tmp_path / 'gone'}: No such file or directory (ENOENT)")
    assert str(unusable(tmp_path / "afile" / "c.sqlite", cant)).endswith("Not a directory (ENOTDIR)")


# --- the config file's path -----------------------------------------------------------------

@pytest.mark.parametrize("argv, code", [(["sync", "--once"], 2), (["report"], 2), (["waves", "--input", "-"], 2),
                                        (["sim", "--port"], 2), (["doctor"], 1)])
def test_a_config_path_that_is_a_directory_is_an_error_in_every_command(headless_env, capsys, tmp_path, argv,
                                                                       code):
    headless_env.setenv("SAGAN_TUI_CONFIG", str(tmp_path))
    headless_env.setenv("SAGAN_API_TOKEN", "t")
    with socket.socket() as held:  # `sim` on a port in use: were the config not refused, it ends, not serves
        held.bind(("127.0.0.1", 0))
        held.listen()
        if argv[-1] == "--port":
            argv = [*argv, str(held.getsockname()[1])]
        got, out, err = run(argv, capsys)
    assert got == code, (got, out, err)
    assert f"SAGAN_TUI_CONFIG names {tmp_path}, which is a directory" in out + err


def test_a_bad_value_names_the_file_that_set_it(headless_env, capsys, tmp_path):
    conf = tmp_path / "c.toml"
    conf.write_text("poll_interval = 0.01\n")
    conf.chmod(0o600)
    headless_env.setenv("SAGAN_TUI_CONFIG", str(conf))
    code, _, err = run(["sync", "--once"], capsys)
    assert code == 2 and f"poll_interval: " in err and f"(set by config file {conf})" in err, err
    headless_env.setenv("SAGAN_TUI_POLL_INTERVAL", "0.02")  # the environment over the file
    code, _, err = run(["sync", "--once"], capsys)
    assert code == 2 and "(set by the environment's SAGAN_TUI_POLL_INTERVAL)" in err, err


# --- the simulator's flags ------------------------------------------------------------------

@pytest.mark.parametrize("argv, said", [(["--port", "80000"], "argument --port: must be a port from 0"),
                                        (["--port", "http"], "argument --port: not a port number: 'http'"),
                                        (["--latency", "-1"], "argument --latency: must be a finite number >= 0: '-1'")])
def test_sim_refuses_a_bad_port_or_latency_without_a_traceback(headless_env, capsys, argv, said):
    code, out, err = run(["sim", *argv], capsys)
    assert code == 2 and said in err and "Traceback" not in out + err, err


def test_sim_names_the_port_in_use(headless_env, capsys):
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        code, _, err = run(["sim", "--port", str(port)], capsys)
    assert code == 1 and f"port {port} on 127.0.0.1 is already in use" in err, err


# --- doctor's counts ------------------------------------------------------------------------

def test_doctor_says_1_pod(sim_factory, headless_env, capsys):
    sim = sim_factory(fixture=ONE_POD_EACH)
    with_sim(headless_env, sim)
    code, out, err = run(["doctor"], capsys)
    lines = [ln for ln in out.splitlines() if ln.startswith("ok   runpod ") and ", balance $" in ln]
    assert code == 0 and len(lines) == 2, out + err
    assert all(": 1 pod, balance" in ln for ln in lines), lines
    assert "1 pods" not in out and "(1 machine)" in out


# --- the demo's exports ---------------------------------------------------------------------

def test_the_demo_exports_into_its_own_temporary_directory(headless_env, monkeypatch, tmp_path):
    from sagan_tui.wire import config
    from sagan_tui.commands import demo

    real = config.data_dir()
    seen: dict[str, Path] = {}

    def panel(settings) -> int:  # stands for the screen: where would `e` and `W` write now?
        seen["exports"], seen["cache"] = config.data_dir(), Path(settings.cache_path)
        seen["demo"] = os.environ.get("SAGAN_TUI_DEMO")
        return 0

    monkeypatch.setattr(demo, "refuse_without_terminal", lambda: None)
    monkeypatch.setattr(demo, "run_panel", panel)
    args = cli.build_parser().parse_args(["--demo", "--scenario", "calm"])
    assert demo.run(args) == 0
    assert seen["exports"].parent == seen["cache"].parent and seen["exports"] != real
    assert seen["exports"].name == "exports" and not seen["exports"].parent.exists()  # gone with the demo
    assert config.data_dir() == real
    # The header's DEMO marker was the demo's alone: a later panel in this process is no demo.
    assert seen["demo"] == "calm" and "SAGAN_TUI_DEMO" not in os.environ
