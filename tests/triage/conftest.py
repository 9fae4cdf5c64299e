"""The 2026-05-14 incident of DOMAIN.md as records: r4 (team only) and r5 (both accounts)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from sagan_tui.core.models import Loss, PodSighting, SourceHealth

DAY = (2026, 5, 14)


def at(hms: str) -> datetime:
    h, m, s = map(int, hms.split(":"))
    return datetime(*DAY, h, m, s, tzinfo=timezone.utc)


def loss(pod: str, account: str = "team", exp: int | None = 192, running: str | None = "10:53:54",
         lost: str = "10:54:55", run: str | None = None, gpu: str | None = "A100 80GB",
         dc: str | None = "US-KS-2", cost: float | None = 1.49, **kw) -> Loss:
    return Loss(pod_id=pod, account=account, experiment=exp, running_at=at(running) if running else None,
                lost_at=at(lost), run_id=run, gpu=gpu, datacenter=dc, cost_per_hr=cost, **kw)


# DOMAIN.md's table, row for row (#333's two pods as two rows).
R5 = [
    loss("v0c7bx292xqvg4", "team", 192, "10:53:54", "10:54:55", "3d8f3042"),
    loss("m1ayhl6nsbxw04", "team", 363, "10:53:54", "10:54:54", "6e8a0593"),
    loss("lqpfpmbytlgded", "team", 366, "10:44:53", "10:54:54", "9e039246"),
    loss("j0xvy1q82ryo8m", "personal", 333, "10:53:55", "10:54:54", "32e93989", dc="EU-RO-1"),
    loss("cv13x9s487tvwn", "personal", 333, "10:53:55", "10:54:54", "32e93989", dc="EU-RO-1"),
]
# r4: three of four sibling A100 dispatches on team, within ~3 minutes.
R4 = [
    loss("x3k9qa7m2tbw5e", "team", 192, "10:40:01", "10:41:02", "a41c9e07"),
    loss("h8d2vn4q6pzc1u", "team", 333, "10:41:19", "10:42:20", "5b2f81d3"),
    loss("f5w7ye0s3kgm9r", "team", 363, "10:42:40", "10:43:41", "c7e04a96"),
]
CONTROL = PodSighting(pod_id="j18eiux6ccekyj", account="team", experiment=365, first_seen_at=at("10:20:00"),
                      running_at=at("10:20:41"), last_seen_at=at("10:57:10"), desired_status="RUNNING",
                      gpu="A100 80GB", datacenter="US-KS-2", cost_per_hr=1.49)
HEALTH = {
    "team": SourceHealth(source="team", state="ok", last_success=at("10:57:10"), balance=412.5,
                         spend_per_hr=7.45, spend_limit=80, under_balance=False),
    "personal": SourceHealth(source="personal", state="ok", last_success=at("10:57:10"), balance=35.0,
                             under_balance=False),
}


@pytest.fixture
def r5() -> list[Loss]:
    return [x.model_copy() for x in R5]


@pytest.fixture
def r4() -> list[Loss]:
    return [x.model_copy() for x in R4]
