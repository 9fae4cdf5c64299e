"""A pod's log and GPU figures against RunPod's published v2 shapes: the record's `runtime.gpus`
(PodGpuUtilization) as read, the log route's errors as ErrorResponse (no stored schema names the
log's events: sim/pod_logs.py says what they hold)."""

from __future__ import annotations

import httpx

from sagan_tui.core.sources.rest_shapes import gpu_load

from .published import validator

KEY = "rk-team-contract"
FIXTURE = {"accounts": {"team": {"api_key": KEY}, "personal": {"api_key": "rk-personal-contract"}},
           "pods": [{"id": "twogpupod0001", "account": "team", "gpuCount": 2, "created_at": 0, "running_at": 5}]}


def test_the_gpu_figures_served_are_published_ones_and_read_as_percentages(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.hold(60)
    with httpx.Client(base_url=sim.base_url, headers={"Authorization": f"Bearer {KEY}"}) as c:
        pod = c.get("/v2/pods/twogpupod0001").json()
    assert not list(validator("Pod").iter_errors(pod))
    load = gpu_load(pod)
    assert len(load) == 2 and all(0 <= util <= 100 and 0 <= mem <= 100 for util, mem in load)
    assert load == tuple((g["util"], g["memoryUtil"]) for g in pod["runtime"]["gpus"])


def test_figures_that_are_not_percentages_read_as_unknown():
    pod = {"runtime": {"gpus": [{"util": 250, "memoryUtil": "x"}, {"util": True, "memoryUtil": 40.4}, "junk"]}}
    assert gpu_load(pod) == ((None, None), (None, 40))
    assert gpu_load({"runtime": None}) == () and gpu_load([]) == ()


def test_the_log_routes_errors_are_published_error_responses(sim_factory):
    sim = sim_factory(fixture=FIXTURE)
    sim.clock.hold(60)
    with httpx.Client(base_url=sim.base_url, headers={"Authorization": f"Bearer {KEY}"}) as c:
        unknown = c.get("/v2/pods/nosuchpod0000/logs")
        wrong = c.get("/v2/pods/twogpupod0001/logs", params={"source": "kernel"})
    assert (unknown.status_code, wrong.status_code) == (404, 422)
    for reply in (unknown, wrong):
        assert not list(validator("ErrorResponse").iter_errors(reply.json()))
