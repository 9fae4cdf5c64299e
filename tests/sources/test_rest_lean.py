"""A pod list's page read for the fields a poll copies (rest_shapes.lean_pods_page): the same
flattened pods as the whole tree gives, nothing else of each pod, and the whole-tree path for
anything it cannot read."""

import json

import httpx
import pytest

from sagan_tui.core.sources.rest_shapes import flatten_rest_pod, lean_pods_page


def test_the_lean_page_flattens_to_what_the_whole_tree_does(calm_sim):
    reply = httpx.get(calm_sim.base_url + "/v2/pods", params={"includeClusterPods": "true"}, timeout=10,
                      headers={"Authorization": f"Bearer {calm_sim.account_keys['team']}"})
    whole = reply.json()
    lean = lean_pods_page(reply.content)
    assert lean is not None and len(lean["pods"]) == len(whole["pods"]) > 0
    names = {"NVIDIA A100 80GB PCIe": "A100 80GB PCIe"}
    assert ([flatten_rest_pod(p, "team", names) for p in lean["pods"]]
            == [flatten_rest_pod(p, "team", names) for p in whole["pods"]])
    # Only the copied fields are read: the pod's env (often secrets), ssh and ports are not.
    assert any("env" in p for p in whole["pods"]) and not any("env" in p or "ssh" in p for p in lean["pods"])


def test_a_paged_reply_keeps_its_cursor_and_flags():
    body = {"items": [{"id": "abcdef123456", "status": "RUNNING", "runtime": {"uptime": 5, "ports": []},
                       "gpu": {"id": "x", "count": 1}, "cluster": {"id": "c1", "rank": 2}}],
            "pagination": {"nextCursor": "n2", "truncated": False}}
    lean = lean_pods_page(json.dumps(body).encode())
    assert lean == {"items": [{"id": "abcdef123456", "name": None, "status": "RUNNING", "cost": None,
                               "dataCenterId": None, "image": None, "runtime": {"uptime": 5},
                               "gpu": {"id": "x", "count": 1}, "cluster": {"id": "c1"}}],
                    "pagination": {"nextCursor": "n2", "truncated": False}}


@pytest.mark.parametrize("body", [
    b'{"pods": [1, {"id": "abcdef123456"}]}',          # a record that is not an object
    b'{"pods": [{"id": "abcdef123456", "runtime": "up"}]}',  # a field of another shape
    b'{"pods": {"id": "abcdef123456"}}',               # no list
    b'[{"id": "abcdef123456"}]', b'null', b'{"pods": [', b'{"pods": [{"cost": NaN}]}',
    '{"pods": [{"name": "caf\u00e9"}]}'.encode("latin-1"),  # not UTF-8
])
def test_what_the_lean_page_cannot_read_goes_to_the_whole_tree_path(body):
    assert lean_pods_page(body) is None


def test_equal_texts_of_a_page_are_one_string():
    """A poll keeps each pod's status, image, data center and GPU until the next: one string each
    per page, not one per pod (10,000 pods share a handful)."""
    pods = [{"id": f"pod{i:09d}", "status": "RUNNING", "image": "img:1", "dataCenterId": "US-KS-2",
             "gpu": {"id": "NVIDIA A100 80GB PCIe", "count": 1}} for i in range(3)]
    lean = lean_pods_page(json.dumps({"pods": pods}).encode())["pods"]
    for field in ("status", "image", "dataCenterId"):
        assert lean[0][field] is lean[2][field]
    assert lean[0]["gpu"]["id"] is lean[2]["gpu"]["id"] and lean[0]["id"] != lean[2]["id"]
