"""JSON Lines in (bad lines named by number, the rest kept), waves as DESIGN.md's JSON out."""

from __future__ import annotations

import json
from pathlib import Path

from sagan_tui.core.triage import TriageContext, find_waves, parse_loss_lines, parse_record_lines, waves_to_json

from .conftest import R5

DOCS = Path(__file__).resolve().parents[2] / "docs"
GOOD = ('{"pod_id": "v0c7bx292xqvg4", "account": "team", "experiment": 192, "running_at": "2026-05-14T10:53:54Z", '
        '"lost_at": "2026-05-14T10:54:55Z", "gpu": "A100 80GB", "datacenter": "US-KS-2", "cost_per_hr": 1.49}')


def test_design_md_record_parses():
    (x,), errors = parse_loss_lines([GOOD])
    assert errors == [] and x.pod_id == "v0c7bx292xqvg4" and x.gap_s == 61 and x.lost_at.tzinfo is not None


def test_each_bad_line_is_named_and_the_rest_kept():
    lines = [GOOD, "", "{not json", "[1, 2]", '{"pod_id": "abcdefabcdef12", "account": "team"}',
             '{"type": "alien", "x": 1}', '{"pod_id": "m1ayhl6nsbxw04", "account": "team", "lost_at": "yesterday"}',
             GOOD.replace("v0c7bx292xqvg4", "m1ayhl6nsbxw04")]
    losses, errors = parse_loss_lines(lines)
    assert [x.pod_id for x in losses] == ["v0c7bx292xqvg4", "m1ayhl6nsbxw04"]
    assert [e.split(":")[0] for e in errors] == ["line 3", "line 4", "line 5", "line 6", "line 7"]
    assert "not JSON" in errors[0] and "expected a JSON object" in errors[1]
    assert "lost_at" in errors[2] and "unknown record type 'alien'" in errors[3] and "lost_at" in errors[4]


def test_sighting_and_health_lines():
    parsed = parse_record_lines((DOCS / "reaping-wave-losses.jsonl").read_text().splitlines())
    assert parsed.errors == [] and len(parsed.losses) == 8
    assert [s.pod_id for s in parsed.sightings] == ["j18eiux6ccekyj"]
    assert parsed.health["team"].balance == 412.5 and parsed.health["personal"].under_balance is False


def test_waves_json_has_design_md_keys():
    out = waves_to_json(find_waves(R5, context=TriageContext(accounts_polled=("team", "personal"))))
    json.dumps(out)  # serialisable as is
    (w,) = out["waves"]
    assert set(w) == {"start", "end", "losses", "accounts", "experiments", "datacenters", "gpu_types",
                      "gap_median_s", "burn_usd", "verdict", "diagnosis", "bursts",
                      "signature", "unrelated"}  # DESIGN.md's keys, and issue 42's cause signature
    assert set(w["verdict"]) == {"cause", "confidence", "for", "against", "next_step", "runner_up", "unrelated"}
    assert list(w).index("verdict") < list(w).index("diagnosis")
    assert w["start"] == "2026-05-14T10:54:54Z" and w["end"] == "2026-05-14T10:54:55Z"
    assert len(w["losses"]) == 5 and w["losses"][0]["lost_at"].endswith("Z")
    assert w["bursts"] == [{"start": w["start"], "end": w["end"], "pod_ids": [x["pod_id"] for x in w["losses"]],
                            "accounts": ["team", "personal"]}]
    assert out["forming"] == []
    assert set(w["diagnosis"][0]) == {"kind", "statement", "evidence"}
    assert w["diagnosis"][0]["statement"].startswith("gaps cluster")  # heaviest toward the verdict first
