"""The GraphQL transport over the real runpod SDK against the simulator."""

import logging

import pytest

from sagan_tui.core.models import ErrorKind
from sagan_tui.core.sources.errors import AuthError, SourceError
from sagan_tui.core.sources.runpod_graphql import GraphQLTransport, _load_sdk


def test_sdk_import_leaves_root_logger_alone():
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    _load_sdk()
    assert (list(root.handlers), root.level) == before


async def test_snapshot_and_get_pod(calm_sim):
    t = GraphQLTransport("team", calm_sim.account_keys["team"], base_url=calm_sim.base_url, timeout=5)
    snap = await t.snapshot()
    assert snap.pods and all(p.account == "team" for p in snap.pods)
    assert snap.balance == pytest.approx(412.5)
    pod = snap.pods[0]
    got = await t.get_pod(pod.id)
    assert got is not None and got.id == pod.id and got.datacenter


async def test_wrong_key_is_auth_error_without_the_key(calm_sim):
    t = GraphQLTransport("personal", "rk-not-a-real-key", base_url=calm_sim.base_url, timeout=5)
    with pytest.raises(AuthError) as e:
        await t.snapshot()
    assert e.value.kind == ErrorKind.AUTH and "rk-not-a-real-key" not in str(e.value)


@pytest.mark.parametrize("bad", ['abc"}) { x', "ABCDEF12", "a\nb", "x" * 40])
async def test_bad_pod_id_never_reaches_a_query(calm_sim, bad):
    t = GraphQLTransport("team", calm_sim.account_keys["team"], base_url=calm_sim.base_url, timeout=5)
    before = len(calm_sim.requests)
    for call in (t.get_pod, t.stop, t.terminate):
        with pytest.raises(ValueError):
            await call(bad)
    assert len(calm_sim.requests) == before


def test_empty_key_refused():
    with pytest.raises(ValueError):
        GraphQLTransport("team", "  ", base_url="http://127.0.0.1:9")


async def test_unreachable_is_a_source_error():
    t = GraphQLTransport("team", "rk-x", base_url="http://127.0.0.1:9", timeout=2)
    with pytest.raises(SourceError) as e:
        await t.snapshot()
    assert e.value.kind in (ErrorKind.UNREACHABLE, ErrorKind.TIMEOUT)


async def test_reply_is_decoded_once(calm_sim, monkeypatch):
    # The SDK reads resp.json() twice after our shim has: a 1,000-pod reply was decoded three times.
    import requests

    calls = []
    stock = requests.models.Response.json
    monkeypatch.setattr(requests.models.Response, "json", lambda self, **kw: calls.append(1) or stock(self, **kw))
    t = GraphQLTransport("team", calm_sim.account_keys["team"], base_url=calm_sim.base_url, timeout=5)
    snap = await t.snapshot()
    assert snap.pods and len(calls) == 1


async def test_two_accounts_on_two_servers_each_reach_their_own(calm_sim):
    # The SDK reads its base URL from the process environment; polled at once from two threads,
    # each account must still go to its own server, and the environment is left alone.
    import asyncio
    import os

    from sagan_tui.core.sources.errors import Unreachable

    env = dict(os.environ)

    here = GraphQLTransport("team", calm_sim.account_keys["team"], base_url=calm_sim.base_url, timeout=5)
    nowhere = GraphQLTransport("personal", calm_sim.account_keys["personal"], base_url="http://127.0.0.1:9", timeout=5)
    for _ in range(10):
        got = await asyncio.gather(here.snapshot(), nowhere.snapshot(), here.snapshot(), return_exceptions=True)
        assert [type(g).__name__ for g in got] == ["AccountSnapshot", "Unreachable", "AccountSnapshot"]
        assert isinstance(got[1], Unreachable) and got[1].source == "personal"
    assert dict(os.environ) == env


SDK_CHILD = """
import asyncio, json, sys
from sagan_tui.core.sources.runpod_graphql import GraphQLTransport
t = GraphQLTransport("team", sys.argv[2], base_url=sys.argv[1], timeout=10)
snap = asyncio.run(t.snapshot())
asyncio.run(t.stop(snap.pods[0].id))
heavy = sorted(m for m in ("runpod.serverless", "runpod.cli", "paramiko", "aiohttp", "cryptography")
               if m in sys.modules)
import runpod
print(json.dumps({"pods": len(snap.pods), "heavy": heavy, "api_key": runpod.api_key,
                  "whole": callable(runpod.get_pods) and "runpod.serverless" in sys.modules}))
"""


def test_polling_runs_none_of_the_sdks_package_init_and_the_whole_sdk_still_imports(calm_sim, tmp_path):
    """The SDK's parts this tool calls (GraphQL query, pod mutations, errors) import without its
    package's `__init__` (its worker, CLI, SSH and aiohttp: 40 MB in every polling process);
    code that asks the package for anything else still gets the whole SDK, and the process-wide
    key stays unset (the fake home holds no credentials)."""
    import json
    import os
    import subprocess
    import sys

    env = {**{k: v for k, v in os.environ.items() if not k.startswith(("SAGAN", "RUNPOD"))}, "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", SDK_CHILD, calm_sim.base_url, calm_sim.account_keys["team"]],
                          env=env, capture_output=True, text=True, timeout=120, cwd=os.getcwd())
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["pods"] > 0 and seen["heavy"] == [], seen
    assert seen["whole"] is True and seen["api_key"] is None, seen
    assert any(r.api == "graphql" and "podStop" in json.dumps(r.body) for r in calm_sim.requests)
