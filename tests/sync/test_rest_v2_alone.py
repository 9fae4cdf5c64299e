"""With GraphQL gone (both accounts on `rest-v2`): balance stops, billing modes, the audit log and
paged lists, played by the simulator over loopback and polled on a stepped clock."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sagan_tui.core.actions.guard import incident_report, triage_context
from sagan_tui.core.config_model import load_settings
from sagan_tui.core.store.pod_rows import EXITED_UNKNOWN
from sagan_tui.core.triage import find_waves
from tests.triage.incidents import BROKE, REAPED, SteppedPolls, three_causes, unrelated

EXE = Path(sys.executable).with_name("sagan-tui")
EVERY = 10


def _settings(sim, tmp: Path, transport: str = "rest-v2"):
    env = {**sim.env(), "SAGAN_TUI_CONFIG": str(tmp / "none.toml"),
           "RUNPOD_TRANSPORT_TEAM": transport, "RUNPOD_TRANSPORT_PERSONAL": transport}
    s, _ = load_settings(env, sagan_tui_cache=str(tmp / "cache.sqlite"), poll_interval=10.0)
    return s


async def _played(sim_factory, tmp_path, monkeypatch, fixture, until: int, transport: str = "rest-v2"):
    sim = sim_factory(fixture=fixture)
    rig = SteppedPolls(sim, _settings(sim, tmp_path, transport), monkeypatch)
    await rig.poll_at(range(0, until + 1, EVERY))
    return rig


def _waves_json(path) -> list[dict]:
    out = subprocess.run([str(EXE), "waves", "--cache", str(path), "--format", "json"], capture_output=True,
                         text=True, timeout=60, env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["waves"]


def _by_pods(waves: list[dict], pods) -> dict:
    (w,) = [w for w in waves if {x["pod_id"] for x in w["losses"]} == set(pods)]
    return w


def _exited_balance_stop() -> dict:
    """three_causes() with its balance stop as RunPod does it: the pods stay listed as EXITED."""
    fx = three_causes()
    for p in fx["pods"]:
        if p["id"] in BROKE:
            p["exited_at"] = p.pop("lost_at")
    return fx


async def test_on_rest_v2_alone_a_balance_stop_that_leaves_pods_exited_reads_account_stop(
        sim_factory, tmp_path, monkeypatch):
    rig = await _played(sim_factory, tmp_path, monkeypatch, _exited_balance_stop(), 700)
    await rig.close()
    waves = _waves_json(rig.settings.cache_path)
    stop = _by_pods(waves, BROKE)["verdict"]
    assert stop["cause"] == "account-stop" and any("personal ran out" in f for f in stop["for"]), stop
    assert _by_pods(waves, REAPED)["verdict"]["cause"] == "platform-reaper"


async def test_an_exit_with_the_balance_fine_is_not_a_loss_and_its_row_says_cause_unknown(
        sim_factory, tmp_path, monkeypatch):
    fx = _exited_balance_stop()
    fx["accounts"]["personal"]["balance"] = 50.0  # nothing ran out: three ordinary-looking exits
    rig = await _played(sim_factory, tmp_path, monkeypatch, fx, 450)
    try:
        assert not {x.pod_id for x in rig.cache.losses()} & set(BROKE)
        flags = dict(rig.cache.tuples("select pod_id, flag from pods where pod_id in (%s)"
                                       % ",".join("?" * len(BROKE)), BROKE))
        assert flags == {p: EXITED_UNKNOWN for p in BROKE}
        from sagan_tui.wire.render import pod_row

        for cp in rig.cache.pods(pod_ids=BROKE):  # the row says it
            assert "exited, cause unknown" in pod_row(cp, None, rig.now()).search_text()
    finally:
        await rig.close()


async def test_a_stop_sagan_asked_for_is_no_loss_even_when_the_balance_ran_out(sim_factory, tmp_path, monkeypatch):
    fx = _exited_balance_stop()
    for p in fx["pods"]:
        if p["id"] in BROKE:
            p["stopped_at"] = p.pop("exited_at")  # Sagan's own stop: stop_requested, runpod_stop_requested
    rig = await _played(sim_factory, tmp_path, monkeypatch, fx, 450)
    try:
        assert not {x.pod_id for x in rig.cache.losses()} & set(BROKE)
    finally:
        await rig.close()


async def test_unrelated_losses_on_rest_v2_alone_read_unclear(sim_factory, tmp_path, monkeypatch):
    rig = await _played(sim_factory, tmp_path, monkeypatch, unrelated(), 300)
    await rig.close()
    (w,) = _waves_json(rig.settings.cache_path)
    assert w["verdict"]["cause"] == "unclear" or w["verdict"]["confidence"] == "low", w["verdict"]


async def test_a_postpaid_account_at_zero_whose_pods_vanish_is_never_a_balance_stop(sim_factory, tmp_path, monkeypatch):
    fx = three_causes()
    fx["accounts"]["personal"]["billing_mode"] = "POSTPAID"
    rig = await _played(sim_factory, tmp_path, monkeypatch, fx, 450)
    await rig.close()
    v = _by_pods(_waves_json(rig.settings.cache_path), BROKE)["verdict"]
    assert v["cause"] != "account-stop", v
    assert any("personal is POSTPAID" in a for a in v["against"]), v


def _terminated_by_a_key(failures=()) -> dict:
    """The reaper's four team pods, each killed ~60 s after RUNNING, were in truth terminated by
    an API key of the team account (a script gone wrong): only the audit log says who."""
    fx = copy.deepcopy(three_causes())
    fx["pods"] = [p for p in fx["pods"] if p["id"] not in BROKE and not p["id"].startswith("deadhost")]
    for p in fx["pods"]:
        if p["id"] in REAPED:
            p["terminated_by"] = {"actor": "api-key:cleanup-cron", "action": "terminate"}
    fx["accounts"]["team"]["failures"] = list(failures)
    return fx


async def test_pods_terminated_by_an_api_key_of_the_account_read_account_action_naming_it(
        sim_factory, tmp_path, monkeypatch):
    rig = await _played(sim_factory, tmp_path, monkeypatch, _terminated_by_a_key(), 700)
    await rig.close()
    v = _by_pods(_waves_json(rig.settings.cache_path), REAPED)["verdict"]
    assert v["cause"] == "account-action", v
    assert any("api-key:cleanup-cron" in f and "pod.terminate" in f for f in v["for"]), v


async def test_without_the_audit_log_readable_the_verdict_lists_it_as_missing(sim_factory, tmp_path, monkeypatch):
    rig = await _played(sim_factory, tmp_path, monkeypatch,
                        _terminated_by_a_key([{"from": 0, "kind": "audit-403"}]), 700)
    await rig.close()
    v = _by_pods(_waves_json(rig.settings.cache_path), REAPED)["verdict"]
    assert v["cause"] != "account-action"
    assert any(a.startswith("missing: audit log of team") and "key lacks" in a for a in v["against"]), v


def _paged(failures=()) -> dict:
    pods = [{"id": f"{acc[:4]}pagedpod{i:02d}", "account": acc, "created_at": 0, "running_at": 2}
            for acc in ("team", "personal") for i in range(10)]
    return {"page_size": 3, "pods": pods,
            "accounts": {"team": {"api_key": "rk-team-paged", "failures": list(failures)},
                         "personal": {"api_key": "rk-personal-paged"}}}


async def test_a_paged_pod_list_is_read_whole_and_nothing_is_lost_over_20_polls(sim_factory, tmp_path, monkeypatch):
    rig = await _played(sim_factory, tmp_path, monkeypatch, _paged(), 19 * EVERY)
    try:
        assert not rig.cache.losses()
        assert len(rig.cache.pods(include_gone=False)) == 20
        pages = [r for r in rig.sim.requests if r.path == "/v2/pods" and r.account == "team"]
        assert len(pages) == 20 * 4 and sum("cursor" in r.query for r in pages) == 20 * 3  # 10 pods, 3 a page
    finally:
        await rig.close()


async def test_a_page_truncated_without_a_cursor_marks_the_poll_partial_and_loses_nothing(
        sim_factory, tmp_path, monkeypatch):
    rig = await _played(sim_factory, tmp_path, monkeypatch, _paged([{"from": 50, "to": 80, "kind": "truncated-page"}]),
                        40)
    try:
        changes = await rig.poll_at([60])
        assert any("team: GET /v2/pods: RunPod says the reply is truncated" in s for s in changes.skipped)
        assert not changes.pods_gone and not rig.cache.losses()
        await rig.poll_at([90, 100])
        assert not rig.cache.losses() and len(rig.cache.pods(include_gone=False)) == 20
    finally:
        await rig.close()


async def test_a_key_without_billing_read_shows_why_and_is_no_account_error(sim_factory, tmp_path, monkeypatch):
    fx = _paged()
    fx["accounts"]["team"]["failures"] = [{"from": 0, "kind": "billing-403"}]
    rig = await _played(sim_factory, tmp_path, monkeypatch, fx, 20)
    try:
        team = rig.poller.health["team"]
        assert team.state.value == "ok" and team.balance is None
        assert team.balance_note == "n/a (key lacks billing:read)"
        from sagan_tui.wire.runway import runway

        assert runway(team).text == "balance n/a (key lacks billing:read)"
    finally:
        await rig.close()


async def test_the_report_lists_runpods_billed_amount_for_each_lost_pod_of_the_demo_wave_and_the_total(
        sim_factory, tmp_path, monkeypatch):
    from sagan_tui.sim.scenarios import reaping_wave as rw

    sim = sim_factory(scenario="reaping-wave")
    rig = SteppedPolls(sim, _settings(sim, tmp_path, "auto"), monkeypatch)
    try:
        await rig.poll_at(range(0, int(rw.R5_LOST) + 61, EVERY))
        ctx = triage_context(rig.cache)
        (wave,) = [w for w in find_waves(ctx.losses, context=ctx) if "v0c7bx292xqvg4" in w.pod_ids]
        text = incident_report(rig.cache, rig.now())
    finally:
        await rig.close()
    lines = text.splitlines()
    for pod in wave.pod_ids:
        (row,) = [line for line in lines if line.startswith(f"| {pod} | ") and line.count(" | ") == 3]
        billed = row.split(" | ")[2]
        assert billed.startswith("$") and billed != "$0.00", row
    assert any(line.startswith("Total: RunPod billed $") and "estimate $" in line for line in lines)
