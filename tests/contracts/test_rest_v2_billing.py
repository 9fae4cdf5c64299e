"""REST v2's balance, pod billing history and audit log against RunPod's published definitions
(runpod_openapi_v2_billing.json, SOURCES.md): every reply the simulator serves, and every request
the transport sends. The paged pod list is a fault for the defence's tests, not a published
shape, so it is left out here."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import httpx
from jsonschema import Draft202012Validator, FormatChecker

from sagan_tui.core.sources.runpod_rest import RestV2Transport

FILE = Path(__file__).parent / "runpod_openapi_v2_billing.json"
KEY = "rk-team-billing"
FIXTURE = {
    "accounts": {"team": {"api_key": KEY, "balance": [{"at": 0, "balance": 5.0}, {"at": 100, "balance": 0.0}],
                          "failures": [{"from": 500, "kind": "billing-403"}]},
                 "personal": {"api_key": "rk-personal-billing", "billing_mode": "POSTPAID"}},
    "pods": [
        {"id": "billedpod0001", "account": "team", "created_at": 0, "running_at": 5, "lost_at": 90,
         "terminated_by": {"actor": "api-key:cleanup", "action": "terminate"}},
        {"id": "billedpod0002", "account": "team", "created_at": 0, "running_at": 5, "exited_at": 120,
         "terminated_by": {"actor": "owner@example.org", "action": "stop"}},
        {"id": "billedpod0003", "account": "team", "created_at": 0, "running_at": 30},
    ],
}


@lru_cache(maxsize=1)
def doc() -> dict[str, Any]:
    return json.loads(FILE.read_text())


def _resolve(s: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in s:
        kind, name = s["$ref"].split("/")[-2:]
        s = doc()["components"][kind][name]
    return s


def _reply_schema(path: str, status: str) -> dict[str, Any]:
    reply = _resolve(doc()["paths"][path]["get"]["responses"][status])
    return next(iter(reply["content"].values()))["schema"]


def _undeclared(instance: Any, s: dict[str, Any], where: str = "$") -> list[str]:
    """Every object key the published schema does not declare (its objects allow extras)."""
    s = _resolve(s)
    out: list[str] = []
    if isinstance(instance, dict) and "properties" in s:
        for key, value in instance.items():
            if key not in s["properties"]:
                out.append(f"{where}.{key}")
            else:
                out += _undeclared(value, s["properties"][key], f"{where}.{key}")
    elif isinstance(instance, list) and isinstance(s.get("items"), dict):
        for i, item in enumerate(instance):
            out += _undeclared(item, s["items"], f"{where}[{i}]")
    return out


def check(label: str, path: str, status: str, body: Any) -> list[str]:
    s = _reply_schema(path, status)
    root = {**s, "components": doc()["components"]}
    problems = [f"{label}: {e.json_path}: {e.message}" for e in Draft202012Validator(
        root, format_checker=FormatChecker()).iter_errors(body)]
    return problems + [f"{label}: {p} is not in RunPod's published definition" for p in _undeclared(body, s)]


def check_request(path: str, query: dict[str, str]) -> list[str]:
    params = {p["name"]: p for p in map(_resolve, doc()["paths"][path]["get"].get("parameters", []))}
    problems = [f"{path}: query {k} is not a published parameter" for k in query if k not in params]
    for k, v in query.items():
        if k in params:
            root = {**params[k]["schema"], "components": doc()["components"]}
            problems += [f"{path}: {k}={v}: {e.message}" for e in Draft202012Validator(
                root, format_checker=FormatChecker()).iter_errors(v)]
    return problems


def test_the_stored_definitions_name_their_sources():
    src = doc()["source"]
    assert (src["repository"], len(src["commit"])) == ("runpod/docs", 40) and src["copied"] == ["/v2/billing/pods"]
    assert set(src["transcribed"]) == {"/v2/billing/balance", "/v2/audit-logs"}
    assert all(doc()["paths"][p]["get"]["x-transcribed-from"].startswith("https://docs.runpod.io/")
               for p in src["transcribed"])


def test_every_billing_and_audit_reply_the_simulator_serves_is_a_published_shape(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.hold(200)
    start, end = sim.clock.at(0).isoformat(), sim.clock.at(200).isoformat()
    replies = []
    with httpx.Client(base_url=sim.base_url, headers={"Authorization": f"Bearer {KEY}"}) as c:
        replies.append(("balance", "/v2/billing/balance", c.get("/v2/billing/balance")))
        hours = {"startTime": start, "endTime": end, "bucketSize": "hour"}
        replies.append(("billing", "/v2/billing/pods", c.get("/v2/billing/pods", params=hours)))
        replies.append(("billing of one pod", "/v2/billing/pods",
                        c.get("/v2/billing/pods", params={**hours, "podId": "billedpod0001"})))
        replies.append(("audit", "/v2/audit-logs", c.get("/v2/audit-logs", params={"startTime": start,
                                                                                   "endTime": end})))
        with httpx.Client(base_url=sim.base_url, headers={"Authorization": "Bearer rk-personal-billing"}) as p:
            replies.append(("postpaid balance", "/v2/billing/balance", p.get("/v2/billing/balance")))
        sim.clock.hold(600)
        replies.append(("no billing:read", "/v2/billing/balance", c.get("/v2/billing/balance")))
    statuses = {label: r.status_code for label, _, r in replies}
    assert statuses.pop("no billing:read") == 403 and set(statuses.values()) == {200}, statuses
    problems = [p for label, path, r in replies for p in check(label, path, str(r.status_code), r.json())]
    assert not problems, "\n".join(problems)
    body = {label: r.json() for label, _, r in replies}
    assert body["balance"] == {"balanceAmount": 0.0, "billingMode": "PREPAID"}
    assert body["postpaid balance"]["billingMode"] == "POSTPAID"
    assert {x["resourceId"] for x in body["audit"]["items"]} == {"billedpod0001", "billedpod0002"}
    assert {r["podId"] for r in body["billing of one pod"]["records"]} == {"billedpod0001"}


def test_the_check_can_fail():
    assert check("b", "/v2/billing/balance", "200", {"balanceAmount": 1.0, "billingMode": "MONTHLY"})
    assert check("b", "/v2/billing/balance", "200", {"balanceAmount": 1.0, "billingMode": "PREPAID", "x": 1}) == [
        "b: $.x is not in RunPod's published definition"]
    assert check_request("/v2/billing/pods", {"bucketSize": "minute"})
    assert check_request("/v2/audit-logs", {"pod": "x"}) == ["/v2/audit-logs: query pod is not a published parameter"]


async def test_every_request_the_transport_sends_is_published(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.hold(200)
    t = RestV2Transport("team", KEY, base_url=sim.base_url)
    try:
        snap = await t.snapshot()
        ev = await t.wave_evidence(["billedpod0001", "billedpod0002"], sim.clock.at(0), sim.clock.at(200))
    finally:
        await t.aclose()
    assert (snap.balance, snap.billing_mode, snap.under_balance) == (0.0, "PREPAID", True)
    assert ev.billed is not None and ev.billed["billedpod0001"] > 0 and ev.audit_note is None
    assert {(e.pod_id, e.actor) for e in ev.audit} == {("billedpod0001", "api-key:cleanup"),
                                                      ("billedpod0002", "owner@example.org")}
    sent = [r for r in sim.requests if r.path in ("/v2/billing/balance", "/v2/billing/pods", "/v2/audit-logs")]
    assert {r.path for r in sent} == {"/v2/billing/balance", "/v2/billing/pods", "/v2/audit-logs"}
    problems = [p for r in sent for p in check_request(r.path, r.query)]
    assert not problems, "\n".join(problems)
