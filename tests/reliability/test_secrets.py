"""A full session with distinctive secrets, then every artefact grepped for them: none may appear.

Sessions: `sync`, `doctor`, `report` and `waves` as processes; the panel under Pilot (with an
export, a failed action and sources whose error messages echo the caller's credentials back);
each client's exceptions; the cache file with its -wal and -shm; every log record at DEBUG.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path


from sagan_tui.core.config_model import load_settings
from sagan_tui.core.sources.errors import SourceError
from sagan_tui.core.sources.runpod_graphql import GraphQLTransport
from sagan_tui.core.sources.runpod_rest import RestV2Transport
from sagan_tui.core.sources.sagan import SaganClient

from tests.harness import notes, poll_now, screen_text, wait_for
from .stub_server import Reply

TOKEN = "sagan-SECRET-token-5d1e9b7c3a"
TEAM = "rk-team-SECRET-7f3a9c1e4b6d"
PERSONAL = "rk-personal-SECRET-2b8d6f0a9e"
SECRETS = (TOKEN, TEAM, PERSONAL)
KEYS = {"team": TEAM, "personal": PERSONAL}
WORLD = {
    "sagan": {"token": TOKEN},
    "accounts": {"team": {"api_key": TEAM}, "personal": {"api_key": PERSONAL}},
    "experiments": [{"number": 192, "title": "persona spread", "status": "running", "runpodAccount": "team"},
                    {"number": 333, "title": "personal run", "status": "running", "runpodAccount": "personal"}],
    "approvalRequests": [{"id": "apr-1", "experiment": 192, "title": "Plan", "bodyMd": "x [TEXTBOX:why]"}],
    "pods": [
        {"id": "v0c7bx292xqvg4", "account": "team", "experiment": 192, "created_at": 0, "running_at": 1,
         "lost_at": 40},
        {"id": "m1ayhl6nsbxw04", "account": "team", "experiment": 192, "created_at": 0, "running_at": 2,
         "lost_at": 41},
        {"id": "j0xvy1q82ryo8m", "account": "personal", "experiment": 333, "created_at": 0, "running_at": 1,
         "lost_at": 42},
        {"id": "j18eiux6ccekyj", "account": "team", "experiment": 192, "created_at": 0, "running_at": 1},
    ],
}
EXE = [sys.executable, "-m", "sagan_tui"]


def echo(request, body) -> Reply:
    """A server that quotes the caller's credentials back in its error, as some proxies do."""
    auth = request.headers.get("authorization", "")
    said = f"upstream refused {auth!r}; api_key={auth[7:]} token {auth[7:]}"
    if request.url.path == "/graphql":
        return Reply.of({"errors": [{"message": said}]}, 500)
    if request.url.path.startswith("/v2/"):
        return Reply.of({"title": "Unauthorized", "status": 401, "detail": said}, 401)
    return Reply.of({"error": "internal", "message": said}, 500)


def found_in(text: str | bytes, where: str, leaks: list[str]) -> None:
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "replace")
    for s in SECRETS:
        if s.encode() in raw:
            leaks.append(f"{where}: {s[:12]}...")


def command_env(env: dict[str, str], tmp: Path) -> dict[str, str]:
    return {**env, "SAGAN_TUI_CONFIG": str(tmp / "absent.toml"), "SAGAN_TUI_CACHE": str(tmp / "cli.sqlite"),
            "RUNPOD_TRANSPORT_PERSONAL": "rest-v2"}


def run_commands(env: dict[str, str], tmp: Path, monkeypatch, capsys, leaks: list[str], tag: str) -> dict:
    """sync, doctor, report and waves in this process (their output and logs captured), one after another."""
    from sagan_tui.cli import main

    for k in [k for k in os.environ if k.startswith(("SAGAN", "RUNPOD"))]:
        monkeypatch.delenv(k)
    for k, v in command_env(env, tmp).items():
        monkeypatch.setenv(k, v)
    report = tmp / f"report-{tag}.md"
    out = {}
    for name, argv in {"sync": ["sync", "--once"], "doctor": ["doctor"], "report": ["report", "-o", str(report)],
                       "waves": ["waves", "--cache", str(tmp / "cli.sqlite"), "--format", "json"]}.items():
        code = main(argv)
        text = capsys.readouterr()
        out[name] = (code, text.out, text.err)
        found_in(text.out + text.err, f"{tag} {name} output", leaks)
    if report.exists():
        found_in(report.read_bytes(), f"{tag} report file", leaks)
    return out


def test_no_secret_in_any_artefact_of_the_commands(sim_factory, stub, tmp_path, caplog, monkeypatch, capsys,
                                                   figures):
    import asyncio

    caplog.set_level(logging.DEBUG)
    leaks: list[str] = []
    sim = sim_factory(fixture=WORLD)
    sim.clock.jump_to(60)  # after the three losses

    # 1. The headless commands, against the simulator, then against servers quoting credentials back.
    ok = run_commands(sim.env(), tmp_path, monkeypatch, capsys, leaks, "sim")
    assert ok["sync"][0] == 0 and "team=ok" in ok["sync"][1], ok["sync"]
    assert ok["doctor"][0] == 0 and "ok   runpod team" in ok["doctor"][1], ok["doctor"]
    assert "v0c7bx292xqvg4" in (tmp_path / "report-sim.md").read_text()
    for path in ("/api/health", "/api/experiments", "/api/events", "/api/approval-requests", "/api/pods",
                 "/api/experiments/1/status", "/api/approval-requests/x/decision", "/graphql", "/v2/pods",
                 "/v2/pods/v0c7bx292xqvg4/action"):
        stub.set(path, echo)
    bad = run_commands(stub.env(TOKEN, KEYS), tmp_path, monkeypatch, capsys, leaks, "echo")
    assert "ERR" in bad["sync"][1] and bad["doctor"][0] == 1 and "FAIL" in bad["doctor"][1]
    assert "***" in bad["doctor"][1]  # doctor shows the server's words, credentials masked

    # 2. `sync` as a real process: its stderr is where a stray log handler would print.
    proc = subprocess.run([*EXE, "sync", "--once"], capture_output=True, timeout=120,
                          env={**{k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))},
                               **command_env(stub.env(TOKEN, KEYS), tmp_path)})
    assert b"ERR" in proc.stdout
    found_in(proc.stdout + proc.stderr, "sync process output", leaks)

    # 3. The clients' own exceptions against the echoing server.
    async def client_errors() -> list[SourceError]:
        out = []
        async with SaganClient(stub.base_url, TOKEN, retries=0) as c:
            for call in (c.experiments(), c.set_status(1, "blocked", "n"), c.decide("x", "approve")):
                try:
                    await call
                except SourceError as exc:
                    out.append(exc)
        for t in (GraphQLTransport("team", TEAM, base_url=stub.base_url),
                  RestV2Transport("personal", PERSONAL, base_url=stub.base_url)):
            for call in (t.snapshot(), t.stop("v0c7bx292xqvg4")):
                try:
                    await call
                except SourceError as exc:
                    out.append(exc)
            await t.aclose()
        return out

    errors = asyncio.run(client_errors())
    assert len(errors) == 7
    for exc in errors:
        found_in(f"{exc}|{exc!r}|{exc.message}|{exc.args}", f"exception {type(exc).__name__}", leaks)
    blob = b"".join(p.read_bytes() for p in tmp_path.glob("cli.sqlite*"))
    found_in(blob, "the commands' cache file", leaks)
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    for record in caplog.records:
        found_in(formatter.format(record), f"log record {record.name}", leaks)
    figures["secret_checks_commands"] = {"commands": 9, "exceptions": len(errors), "log_records": len(caplog.records)}
    assert leaks == [], leaks


async def _panel_session(app, sim, pilot, seen: list[str]) -> None:
    await poll_now(pilot, app)
    seen.append(screen_text(app))
    await pilot.press("I")  # the incident layout
    seen.append(screen_text(app))
    await pilot.press("e")  # export the incident report (writes a file, copies it)
    await wait_for(pilot, lambda: any("written to" in n.message for n in notes(app)), what="export")
    seen.append(screen_text(app))


async def test_no_secret_reaches_the_panel_its_exports_logs_or_cache(sim_factory, stub, tmp_path, panel, caplog,
                                                                     monkeypatch, figures):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    config = tmp_path / "config.toml"
    config.write_text(f'sagan_api_token = "{TOKEN}"\n[accounts.team]\napi_key = "{TEAM}"\n'
                      f'[accounts.personal]\napi_key = "{PERSONAL}"\ntransport = "rest-v2"\n')
    config.chmod(0o600)
    leaks: list[str] = []
    seen: list[str] = []
    sim = sim_factory(fixture=WORLD)
    sim.clock.jump_to(30)

    # Session 1: the simulator; the wave happens between two polls; the report is exported.
    env = {"SAGAN_TUI_CONFIG": str(config), "SAGAN_BASE_URL": sim.base_url, "RUNPOD_API_BASE_URL": sim.base_url}
    settings, warnings = load_settings(env, sagan_tui_cache=str(tmp_path / "panel.sqlite"), bell=False,
                                       poll_interval=60.0)
    assert sorted(settings.secrets()) == sorted(SECRETS) and not [w for w in warnings if "readable" in w]
    from tests.harness import panel_on

    app, cache = panel_on(settings, poll=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await poll_now(pilot, app)
        sim.clock.jump_to(60)
        await _panel_session(app, sim, pilot, seen)
        clip = app.clipboard
    assert "v0c7bx292xqvg4" in clip
    seen.append(clip)
    cache.close()

    # Session 2: the same cache, every source now answers with errors quoting the credentials.
    for path in ("/api/experiments", "/api/events", "/api/approval-requests", "/api/pods", "/graphql", "/v2/pods",
                 "/api/experiments/192/status"):
        stub.set(path, echo)
    env2 = {**env, "SAGAN_BASE_URL": stub.base_url, "RUNPOD_API_BASE_URL": stub.base_url}
    settings2, _ = load_settings(env2, sagan_tui_cache=str(tmp_path / "panel.sqlite"), bell=False, poll_interval=60.0)
    app, cache = panel_on(settings2, poll=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await poll_now(pilot, app)
        assert "✗5xx" in screen_text(app) and "✗401" in screen_text(app)
        seen.append(screen_text(app))
        app.experiments_table.focus()
        app.experiments_table.select_key("192")
        await pilot.press("h")  # hold: the dialog, then the server refuses quoting the token
        await pilot.pause()
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: any("hold #192 failed" in n.message for n in notes(app)),
                       what="failed hold")
        seen.append(screen_text(app))
        await pilot.press("A")  # the audit log, with the failure's text
        await pilot.pause(0.2)
        seen.append(screen_text(app))
        await pilot.press("escape")
        seen += [n.message for n in notes(app)]
        messages = [h.message or "" for h in app.view.health.values()]
        assert any("***" in m for m in messages), messages  # the servers' words are shown, masked
        seen += messages
        blob = b"".join(Path(str(settings2.cache_path) + s).read_bytes()
                        for s in ("", "-wal", "-shm") if Path(str(settings2.cache_path) + s).exists())
    cache.close()
    blob_after = b"".join(p.read_bytes() for p in tmp_path.glob("panel.sqlite*"))

    for i, text in enumerate(seen):
        found_in(text, f"screen/notification/clipboard #{i}", leaks)
    for path in (tmp_path / "data").rglob("*"):
        if path.is_file():
            found_in(path.read_bytes(), f"export {path.name}", leaks)
    found_in(blob, "cache file while open (+wal, shm)", leaks)
    found_in(blob_after, "cache file after close", leaks)
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    for record in caplog.records:
        found_in(formatter.format(record), f"log record {record.name}", leaks)
    figures["secret_artefacts"] = {"screens_and_messages": len(seen), "log_records": len(caplog.records),
                                   "exports": len(list((tmp_path / "data").rglob("*.md")))}
    assert leaks == [], leaks


def test_config_file_readable_by_others_is_warned_about(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'[accounts.team]\napi_key = "{TEAM}"\n')
    config.chmod(0o644)
    settings, warnings = load_settings({"SAGAN_TUI_CONFIG": str(config)})
    assert any("readable by others" in w for w in warnings)
    assert not any(TEAM in w for w in warnings) and TEAM not in repr(settings) and TEAM not in str(settings)
