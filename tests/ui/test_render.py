"""Pure renderers: records to rows and the status line, tested without a screen."""

import math
from datetime import timedelta

import pytest

from sagan_tui.core.models import ErrorKind, Experiment, HealthState, Loss, RunPodPod, SourceHealth, WorkflowEvent
from sagan_tui.core.store.cache import CachedPod
from sagan_tui.wire import render
from sagan_tui.wire.render import compile_filter

from .frozen import NOW


def text(segments):
    return "".join(s for s, _ in segments)


def test_unknown_status_is_shown_marked_not_crashing():
    row = render.experiment_row(Experiment(id="x", number=7, status="quantum_pending", title="t"), 0, NOW)
    status = row.cells[1]
    assert status.text == "quantum_pending?" and status.style == render.UNKNOWN
    assert row.group == 1  # not the owner's


def test_owner_turn_rows_sort_first_and_say_you():
    mine = render.experiment_row(Experiment(id="a", number=1, status="plan_pending"), 0, NOW)
    theirs = render.experiment_row(Experiment(id="b", number=2, status="running"), 2, NOW)
    assert mine.group < theirs.group
    assert mine.cells[2].text == "YOU: approve plan"
    assert theirs.cells[2].text == "sagan: run / verify"
    assert theirs.cells[3].text == "2"


def test_title_markup_kept_as_text():
    row = render.experiment_row(Experiment(id="a", number=1, title="[b]x[/b]\x1b[2J"), 0, NOW)
    assert row.cells[-1].text == "[b]x[/b]"


def test_lost_pod_row_says_when_and_how():
    pod = RunPodPod(id="v0c7bx292xqvg4", account="team", gpu="NVIDIA A100 80GB PCIe", cost_per_hr=1.49)
    lost_at = NOW - timedelta(minutes=1)
    cp = CachedPod(pod, NOW - timedelta(minutes=3), NOW - timedelta(minutes=2), lost_at, lost_at, "vanished")
    loss = Loss(pod_id=pod.id, account="team", experiment=192, lost_at=lost_at, running_at=cp.running_at,
                reason="Pod v0c7bx292xqvg4 not found in account=team")
    row = render.pod_row(cp, loss, NOW)
    cols = {c.key: cell for c, cell in zip(render.POD_COLUMNS, row.cells)}
    assert cols["status"].text == "LOST"
    assert cols["seen"].text == "✗10:55:00"
    assert "not found in account=team" in cols["note"].text
    assert cols["gpu"].text == "A100 80GB PCIe"
    assert cols["uptime"].text == "1m"
    assert row.group == 1


def test_a_pod_the_owner_stopped_reads_as_an_end_not_a_loss():
    pod = RunPodPod(id="v0c7bx292xqvg4", account="team", gpu="NVIDIA A100 80GB PCIe", cost_per_hr=1.49)
    gone_at = NOW - timedelta(minutes=1)
    cp = CachedPod(pod, NOW - timedelta(minutes=3), NOW - timedelta(minutes=2), gone_at, gone_at,
                   "stopped on request")
    cols = {c.key: cell for c, cell in zip(render.POD_COLUMNS, render.pod_row(cp, None, NOW).cells)}
    assert cols["seen"].text == f"{render.END_MARK}10:55:00" and "✗" not in cols["seen"].text


def test_live_pod_of_stale_account_is_marked():
    pod = RunPodPod(id="f6n3kd9sa1qz4w", account="personal")
    cp = CachedPod(pod, None, NOW - timedelta(hours=1), NOW - timedelta(minutes=6), None, None)
    cols = {c.key: cell for c, cell in zip(render.POD_COLUMNS, render.pod_row(cp, None, NOW, stale=True).cells)}
    assert cols["seen"].text == "6m!" and cols["seen"].style == render.STALE
    assert cols["uptime"].text == "1h"


def test_status_line_health_money_and_flags():
    health = {
        "sagan": SourceHealth(source="sagan", state=HealthState.OK, last_success=NOW - timedelta(seconds=2)),
        "team": SourceHealth(source="team", state=HealthState.OK, last_success=NOW - timedelta(minutes=2),
                             balance=412.5, spend_per_hr=4.47),
        "personal": SourceHealth(source="personal", state=HealthState.ERROR, error_kind=ErrorKind.AUTH,
                                 last_success=NOW.replace(minute=50), under_balance=True, balance=1.0),
    }
    line = text(render.status_segments(health, NOW, poll_interval=5, paused=True, read_only=True))
    assert "sagan ✓" in line
    assert "team stale since 10:54" in line  # two minutes > 3 x 5 s
    assert "personal ✗401 since 10:50" in line
    assert "UNDER BALANCE" in line and "$412.50" in line and "-$4.47/h" in line
    assert "PAUSED" in line and "READ-ONLY" in line and "10:56 UTC" in line
    running = text(render.status_segments(health, NOW, poll_interval=5, paused=False, read_only=False))
    assert "poll 5s" in running and "READ-ONLY" not in running


def test_a_panel_attaching_to_a_watch_claims_no_interval_and_no_staleness_before_the_watch_answers():
    health = {"team": SourceHealth(source="team", state=HealthState.OK, last_success=NOW - timedelta(minutes=2))}
    line = text(render.status_segments(health, NOW, poll_interval=math.inf, paused=False, read_only=False))
    assert "attaching to watch" in line and "poll" not in line and "stale" not in line
    assert "attaching" in text(render.status_segments(health, NOW, poll_interval=math.inf, paused=False,
                                                      read_only=False, width=30))


def test_status_line_drops_spend_rates_and_utc_where_it_would_wrap():
    health = {
        "sagan": SourceHealth(source="sagan", state=HealthState.OK, last_success=NOW),
        "team": SourceHealth(source="team", state=HealthState.OK, last_success=NOW, balance=412.5, spend_per_hr=1.49),
        "personal": SourceHealth(source="personal", state=HealthState.OK, last_success=NOW, balance=35.0,
                                 spend_per_hr=1.49),
    }

    def line(width):
        return text(render.status_segments(health, NOW, poll_interval=5, paused=False, read_only=False, width=width))

    wide = line(198)
    assert wide == line(None) and "-$1.49/h" in wide and wide.endswith("10:56 UTC")
    narrow = line(78)  # 80 columns less the bar's padding: the full line is 83 cells
    assert len(wide) > 78 >= len(narrow)
    assert "-$1.49/h" not in narrow and narrow.endswith("10:56") and "$412.50" in narrow and "$35.00" in narrow


def test_disabled_and_never_polled_sources():
    h = {"x": SourceHealth(source="x", state=HealthState.DISABLED), "y": SourceHealth(source="y")}
    line = text(render.status_segments(h, NOW, poll_interval=5, paused=False, read_only=False))
    assert "x off" in line and "y …" in line


def test_a_poll_is_named_only_once_it_runs_long():
    h = {"x": SourceHealth(source="x", state=HealthState.OK, last_success=NOW)}

    def line(polling_for):
        return render.status_segments(h, NOW, poll_interval=5, paused=False, read_only=False,
                                      polling_for=polling_for)

    # An ordinary poll leaves the line exactly as it was: no rewrite at its start and end.
    assert line(None) == line(0.0) == line(render.SLOW_POLL_S - 0.1)
    slow = text(line(render.SLOW_POLL_S + 2.5))
    assert "poll 5s · polling for 12s" in slow


def test_event_rows_date_when_not_today_and_kind():
    ev = WorkflowEvent(id="1", event_type="epm:plan", created_at=NOW - timedelta(days=1), experiment_number=3)
    row = render.event_row(ev, NOW)
    assert row.cells[0].text == "05-13 10:56" and render.event_kind("epm:plan") == "markers"
    assert render.event_row(ev.model_copy(update={"created_at": NOW}), NOW).cells[0].text == "10:56:00"
    assert render.event_kind("runpod_stopped") == "pods" and render.event_kind("state_changed") == "state"


def test_account_colours_are_stable_and_distinct():
    assert render.account_colour("team") != render.account_colour("personal")
    assert render.account_colour("lab") == render.account_colour("lab")


@pytest.mark.parametrize("query,hits,misses", [
    ("a100", ["NVIDIA A100"], ["H100"]),
    ("re:^#19\\d", ["#192 x"], ["#361 x"]),
    ("!lost", ["running"], ["lost pod"]),
    ("!re:run+ing", ["blocked"], ["running"]),
])
def test_filter(query, hits, misses):
    pred = compile_filter(query)
    assert all(pred(h.lower()) for h in hits) and not any(pred(m.lower()) for m in misses)


def test_filter_bad_regex_and_empty():
    with pytest.raises(ValueError, match="bad regex"):
        compile_filter("re:([")
    assert compile_filter("  ") is None and compile_filter("!") is None


def test_coarse_durations():
    assert [render.coarse(s) for s in (None, 5, 61, 3599, 3600, 36000, 200000)] == \
        ["—", "<1m", "1m", "59m", "1h", "10h", "2d"]
    # Past the first hour an age changes once an hour: 1h59m still reads 1h.
    assert render.coarse(2 * 3600 - 1) == "1h" and render.coarse(47 * 3600 + 3599) == "47h"
    # coarse_left says when the text next changes, and it does change exactly then.
    for s in (0, 59.5, 60, 61, 3599, 3600, 7000, 47 * 3600 + 10, 3 * 86400 + 5):
        left = render.coarse_left(s)
        assert render.coarse(s + left - 0.01) == render.coarse(s) != render.coarse(s + left), s
    assert render.coarse_left(None) == float("inf")



@pytest.mark.parametrize(("from_status", "to_status", "what"), [
    ("queued", "running", "queued → running"),
    (None, "approved", "→ approved"),   # no "?" for a from-status the event does not give
    ("blocked", "blocked", "agent"),    # no transition text when nothing changed: the actor instead
    (None, None, "agent"),
])
def test_an_event_row_shows_only_a_real_transition(from_status, to_status, what):
    ev = WorkflowEvent(id="e1", experiment_number=5, event_type="approval_decided", from_status=from_status,
                       to_status=to_status, actor_kind="agent", created_at=NOW)
    assert render.event_row(ev, NOW).cells[3].text == what


def test_an_exited_pod_shows_no_hourly_price():
    def row(status):
        pod = RunPodPod(id="exitedpod00001", account="team", desired_status=status, cost_per_hr=2.99)
        return render.pod_row(CachedPod(pod, NOW, NOW, NOW, None, None), None, NOW)

    assert row("RUNNING").cells[6].text == "2.99"
    exited = row("EXITED").cells[6]
    assert exited.text == "—" and exited.style == render.DIM


def test_the_detail_view_gives_times_with_their_date():
    from sagan_tui.panel.screens.detail import fields_text

    exp = Experiment(id="a", number=5, title="t", status="running", created_at=NOW - timedelta(days=2),
                     updated_at=NOW)
    shown = fields_text(exp).plain
    day_before = (NOW - timedelta(days=2)).strftime("%Y-%m-%d")
    assert f"created at {day_before} " in shown and f"updated at {NOW:%Y-%m-%d %H:%M:%S} UTC" in shown


def test_a_missing_pod_reads_missing_with_since_when_and_a_flag_is_said_on_its_row():
    pod = RunPodPod(id="m1ss1ngpod001", account="team", desired_status="RUNNING", uptime_seconds=60)
    missing = CachedPod(pod=pod, first_seen_at=NOW, running_at=NOW, last_seen_at=NOW, gone_at=None,
                        gone_reason=None, missing_since=NOW.replace(hour=10, minute=54, second=55))
    row = render.pod_row(missing, None, NOW)
    texts = [c.text for c in row.cells]
    assert "MISSING?" in texts and "LOST" not in texts
    assert any(t.startswith("MISSING? since 10:54:55") for t in texts)
    flagged = CachedPod(pod=pod, first_seen_at=NOW, running_at=NOW, last_seen_at=NOW, gone_at=None,
                        gone_reason=None, flag="listed by both team and personal keys")
    texts = [c.text for c in render.pod_row(flagged, None, NOW).cells]
    assert "RUNNING" in texts and "⚠ listed by both team and personal keys" in texts


def test_an_account_with_an_unreadable_record_is_never_a_plain_ok():
    h = SourceHealth(source="team", state=HealthState.OK, last_success=NOW, unreadable=1,
                     unreadable_since=NOW.replace(hour=10, minute=12))
    said = text(render.source_segments(h, NOW, poll_interval=5))
    assert "team ⚠ 1 record unreadable since 10:12" in said and render.OK_MARK not in said


def test_status_line_says_watch_for_a_forming_cluster_and_wave_over_it():
    health = {"sagan": SourceHealth(source="sagan", state=HealthState.OK, last_success=NOW)}
    watch = "WATCH: 2 pods lost 6 s apart, both ~60 s after RUNNING"

    def line(**kw):
        return text(render.status_segments(health, NOW, poll_interval=5, paused=False, read_only=False, **kw))

    assert watch in line(watch=watch)
    assert "WATCH" not in line()
    both = line(watch=watch, wave=("WAVE 3 lost · guard until 11:11", "WAVE 3 · guard 11:11"))
    assert "WAVE 3 lost" in both and "WATCH" not in both  # a wave says more than its early warning
    narrow = line(watch=watch, width=40)
    assert "WATCH" in narrow and watch not in narrow  # where the line does not fit: the word alone
