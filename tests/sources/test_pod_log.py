"""A pod's log over REST v2 (sim/pod_logs.py served, core/sources/pod_log.py read) on a held clock, over loopback HTTP."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from sagan_tui.sim.scenarios.reaping_wave import R5
from sagan_tui.core.sources.errors import SourceError
from sagan_tui.core.sources.pod_log import PodLogTail, parse_events
from sagan_tui.core.sources.runpod_rest import RestV2Transport

LOST_POD = R5[0][0]  # the demo's lost pod of #192
LOST_AT = R5[0][5]


def tail_at(sim, t: float, pod_id: str = LOST_POD, account: str = "team", tail: PodLogTail | None = None):
    sim.clock.hold(t)
    tail = tail or PodLogTail(pod_id)
    transport = RestV2Transport(account, sim.account_keys[account], base_url=sim.base_url)

    async def run():
        try:
            return await tail.read(transport)
        finally:
            await transport.aclose()
    return tail, asyncio.run(run())


def test_the_lost_pods_system_log_runs_from_creation_to_the_reapers_stop(sim_factory):
    sim = sim_factory(scenario="reaping-wave")
    tail, new = tail_at(sim, LOST_AT + 100)
    system = [line.message for line in new if line.source == "system"]
    assert system[0].startswith(f"Pod {LOST_POD} created on host")
    assert "Container started (1 GPU)" in system
    assert system[-1] == "Pod terminated by Runpod (not requested by the account)"
    assert new[-1].source == "system"  # nothing after the stop: no container line from a gone pod
    assert any(line.source == "container" for line in new)
    assert [int(line.event_id) for line in new] == sorted(int(line.event_id) for line in new)


def test_a_second_read_resumes_after_the_last_event_id(sim_factory):
    sim = sim_factory(scenario="reaping-wave")
    tail, first = tail_at(sim, R5[0][4] + 25)  # RUNNING plus two container lines
    assert first[-1].source == "container"
    _, second = tail_at(sim, LOST_AT + 5, tail=tail)
    assert second and int(second[0].event_id) == int(first[-1].event_id) + 1
    assert second[-1].message.startswith("Pod terminated by Runpod")
    assert list(tail.lines) == first + second


def test_escapes_in_a_pods_log_never_leave_the_reader(sim_factory):
    hostile = "\x1b]52;c;ZXZpbA==\x07evil \x1b[2J\x1b[31mred\x1b[0m [bold]markup[/bold] \x9b1;1H"
    sim = sim_factory(fixture={"accounts": {"team": {"api_key": "rk-team-x"}}, "pods": [
        {"id": "hostile00001", "account": "team", "created_at": 0, "running_at": 10, "log_lines": [hostile]}]})
    _, new = tail_at(sim, 30, pod_id="hostile00001")
    shown = [line.message for line in new if line.source == "container"]
    assert shown == ["evil red [bold]markup[/bold]"]  # whole sequences go, C1 CSI too
    assert not any(c in line.message for line in new for c in "\x1b\x07\x9b")


def test_another_accounts_pod_and_a_wrong_tail_are_refused(sim_factory):
    sim = sim_factory(scenario="reaping-wave")
    with pytest.raises(SourceError):
        tail_at(sim, LOST_AT, account="personal")
    sim.clock.hold(LOST_AT)
    reply = httpx.get(f"{sim.base_url}/v2/pods/{LOST_POD}/logs", params={"tail": 5001},
                      headers={"Authorization": f"Bearer {sim.account_keys['team']}"})
    assert reply.status_code == 422


def test_source_system_keeps_only_the_hosts_lines(sim_factory):
    sim = sim_factory(scenario="reaping-wave")
    sim.clock.hold(LOST_AT + 10)
    reply = httpx.get(f"{sim.base_url}/v2/pods/{LOST_POD}/logs", params={"source": "system", "tail": 3},
                      headers={"Authorization": f"Bearer {sim.account_keys['team']}"})
    assert reply.headers["content-type"].startswith("text/event-stream")
    lines = parse_events(reply.text)
    assert len(lines) == 3 and {line.source for line in lines} == {"system"}


def test_a_data_line_that_is_not_json_is_kept_as_text():
    lines = parse_events("id: 7\ndata: plain \x1b[1mtext\n\n: comment\nretry: 100\n\n")
    assert [(line.event_id, line.source, line.message) for line in lines] == [("7", "container", "plain text")]


def test_the_tail_is_bounded():
    class Many:
        async def pod_log(self, pod_id, last_event_id, tail):
            start = int(last_event_id or 0)
            return "".join(f"id: {n}\ndata: line {n}\n\n" for n in range(start + 1, start + 301))
    tail = PodLogTail("bounded0001", keep=250)
    asyncio.run(tail.read(Many()))
    asyncio.run(tail.read(Many()))
    assert len(tail.lines) == 250 and tail.lines[-1].message == "line 600" and tail.last_event_id == "600"


def test_a_stream_that_stays_open_is_read_up_to_where_it_went_quiet():
    """RunPod may keep a log's stream open to follow it: the read ends when it goes quiet, not at the deadline."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    done = threading.Event()

    class Following(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b'id: 1\ndata: {"source": "system", "message": "Starting container"}\n\n'
                             b'id: 2\ndata: {"source": "container", "message": "step 1"}\n\n')
            self.wfile.flush()
            done.wait(30)  # the stream stays open until the test ends

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Following)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    transport = RestV2Transport("team", "rk-team-stub", base_url=f"http://127.0.0.1:{server.server_port}",
                                timeout=30.0)
    tail = PodLogTail("following0001")

    async def run():
        try:
            return await tail.read(transport)
        finally:
            await transport.aclose()
    try:
        new = asyncio.run(run())
    finally:
        done.set()
        server.shutdown()
        server.server_close()
    assert [(line.event_id, line.message) for line in new] == [("1", "Starting container"), ("2", "step 1")]
    assert tail.last_event_id == "2"


def test_the_system_log_names_a_host_failure_a_balance_stop_and_an_accounts_terminate(sim_factory):
    sim = sim_factory(fixture={
        "accounts": {"team": {"api_key": "rk-team-h"},
                     "personal": {"api_key": "rk-personal-h", "balance": [{"at": 0, "balance": 5.0},
                                                                          {"at": 50, "balance": 0.0}]}},
        "pods": [
            {"id": "onhost000001", "account": "team", "created_at": 0, "running_at": 10, "lost_at": 80,
             "host": "host-a"},
            {"id": "onhost000002", "account": "team", "created_at": 0, "running_at": 20, "lost_at": 85,
             "host": "host-a"},
            {"id": "byaccount001", "account": "team", "created_at": 0, "running_at": 10, "lost_at": 60,
             "terminated_by": {"actor": "ops@example.com", "action": "terminate"}},
            {"id": "broke0000001", "account": "personal", "created_at": 0, "running_at": 10,
             "network_volume": False},
        ]})

    def last_system(pod_id: str, account: str) -> str:
        _, new = tail_at(sim, 200, pod_id=pod_id, account=account)
        return [line.message for line in new if line.source == "system"][-1]

    assert last_system("onhost000001", "team") == "Host host-a stopped responding; pod terminated"
    assert last_system("byaccount001", "team") == "Pod terminated by request of ops@example.com"
    assert last_system("broke0000001", "personal") == "Pod terminated by Runpod: insufficient balance"
