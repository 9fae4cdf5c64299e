"""The channel's frames and messages: every intent round-trips, results decode as their declared
type, and a frame over the bound is refused before it is buffered."""

from __future__ import annotations

import asyncio
import math
import typing
from datetime import datetime, timezone

import msgspec
import pytest

from sagan_tui.wire.basics import HealthState, SourceHealth
from sagan_tui.wire.channel import intents as I
from sagan_tui.wire.channel.frames import HEADER, MAX_FRAME, FrameError, FrameReader, pack, read_frame
from sagan_tui.wire.channel.messages import TO_PANEL, TO_SESSION, Reply, Request, Update, encode, reply, result_of
from sagan_tui.wire.channel.views import ActionResultView, CellView, RowView, StopTargetView, UpdateView

# One instance of every intent, each field set to something other than its default.
SAMPLES: dict[type, I.Intent] = {
    I.Open: I.Open({"poll_interval": 3.0, "sagan_tui_cache": "/tmp/c.sqlite"}, {"team": {"api_key": "k"}}, poll=False,
                    clock=datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)),
    I.PreOpen: I.PreOpen({"poll_interval": 3.0}, {"team": {"api_key": "k"}}, {"poll_interval": "flag --poll-interval"}),
    I.Refresh: I.Refresh(), I.Pause: I.Pause(True), I.SetInterval: I.SetInterval(30.0),
    I.WatchTimeline: I.WatchTimeline("detail", 7, "losses"), I.ForgetTimeline: I.ForgetTimeline("detail"),
    I.WatchHeatmap: I.WatchHeatmap("experiment", 1800.0, 96), I.WaveResponse: I.WaveResponse(),
    I.FollowPod: I.FollowPod("v0c7bx292xqvg4", "team"), I.ForgetPod: I.ForgetPod("v0c7bx292xqvg4"),
    I.ViewPod: I.ViewPod("v0c7bx292xqvg4"), I.Tick: I.Tick(), I.KeyPressed: I.KeyPressed(), I.Dismiss: I.Dismiss("pod-1"),
    I.ToggleDismissed: I.ToggleDismissed(), I.AcknowledgeWave: I.AcknowledgeWave(), I.StartCanary: I.StartCanary(4),
    I.HeldNow: I.HeldNow(), I.CanaryRest: I.CanaryRest(), I.BlockedBy: I.BlockedBy((1, 2)), I.StopTargets: I.StopTargets((1, 2)), I.HoldNote: I.HoldNote(),
    I.DispatchVerdict: I.DispatchVerdict(9), I.DispatchGuard: I.DispatchGuard("release", (3, 4)), I.ApprovalsOf: I.ApprovalsOf(9, "deferred"), I.AuditLog: I.AuditLog(20),
    I.BalanceHistory: I.BalanceHistory(), I.ViewExperiment: I.ViewExperiment(12),
    I.ExportReport: I.ExportReport("/tmp/out"), I.Refuse: I.Refuse("hold"),
    I.Decide: I.Decide("ap-1", "approve", {"why": "ok"}, "note"), I.Hold: I.Hold((3, 4), "held", "W", ("pod1keepaaaaaa",)),
    I.Release: I.Release((3,), "go", "3"), I.ReleaseRefused: I.ReleaseRefused(5), I.Canary: I.Canary(6, "6"),
    I.Redispatch: I.Redispatch(7, "again", "7"), I.Promote: I.Promote(8),
    I.Stop: I.Stop((StopTargetView("pod-2", "team", "RUNNING", 8, "p2"),)),
    I.RecordCancelled: I.RecordCancelled("stop", "pod-2", account="team", detail="backed out"),
}


def test_every_registered_intent_has_a_sample_and_a_distinct_tag():
    assert set(SAMPLES) == set(I.INTENTS)
    tags = [msgspec.inspect.type_info(k).tag for k in I.INTENTS]
    assert len(set(tags)) == len(tags)


@pytest.mark.parametrize("kind", I.INTENTS, ids=lambda k: k.__name__)
def test_every_intent_round_trips_in_a_request(kind):
    sample = SAMPLES[kind]
    back = TO_SESSION.decode(encode(Request(41, sample)))
    assert back == Request(41, sample)
    assert type(back.intent) is kind


def test_a_reply_decodes_as_the_intents_declared_type_and_a_wrong_answer_is_caught_on_the_sending_side():
    r = TO_PANEL.decode(encode(reply(1, I.Hold, ActionResultView(True, "held #3", parts=(ActionResultView(False, "x"),)))))
    assert isinstance(r, Reply)
    got = result_of(I.Hold, r.result)
    assert got.parts[0].ok is False and got.message == "held #3"
    assert result_of(I.BlockedBy, TO_PANEL.decode(encode(reply(2, I.BlockedBy, {3: "the owner"}))).result) == {3: "the owner"}
    with pytest.raises(msgspec.ValidationError):
        reply(3, I.Dismiss, 12)  # Dismiss answers in words
    with pytest.raises(msgspec.ValidationError):
        result_of(I.HeldNow, msgspec.Raw(encode("not a tuple")))


def test_an_update_carries_rows_and_health_as_they_are():
    row = RowView((CellView("a", "bold", 3.5), CellView("b")), group=1, order=2)
    health = SourceHealth("team", HealthState.OK, balance=12.5)
    u = UpdateView(pods={"p": row}, health={"team": health}, polls=3, in_flight={"sagan": 1.5})
    back = TO_PANEL.decode(encode(Update(u)))
    assert back.update == u
    assert back.update.pods["p"].until == math.inf and back.update.pods["p"].cells[1].sort_value == "b"
    assert back.update.health["team"].state is HealthState.OK


def test_the_frame_reader_splits_a_stream_fed_in_any_pieces():
    data = pack(b"one") + pack(b"") + pack(b"three")
    for step in (1, 2, 5, len(data)):
        reader, got = FrameReader(), []
        for i in range(0, len(data), step):
            got += reader.feed(data[i:i + step])
        assert got == [b"one", b"", b"three"]


def test_a_length_over_the_bound_is_refused_from_the_header_alone():
    reader = FrameReader(limit=1000)
    with pytest.raises(FrameError, match="over the 1000-byte bound"):
        reader.feed(HEADER.pack(1001))
    with pytest.raises(FrameError):
        pack(b"x" * (MAX_FRAME + 1))


async def test_read_frame_ends_cleanly_between_frames_and_says_so_inside_one():
    r = asyncio.StreamReader()
    r.feed_data(pack(b"ab") + HEADER.pack(10) + b"abc")
    r.feed_eof()
    assert await read_frame(r) == b"ab"
    with pytest.raises(FrameError, match="inside a frame of 10 bytes"):
        await read_frame(r)
    empty = asyncio.StreamReader()
    empty.feed_eof()
    assert await read_frame(empty) is None


def test_the_result_types_are_channel_types_only():
    """A result never names a record type of the core (pydantic models, triage objects)."""
    for kind in I.INTENTS:
        for arg in typing.get_args(kind.result) or (kind.result,):
            module = getattr(arg, "__module__", "builtins")
            assert module in ("builtins", "datetime", "sagan_tui.wire.channel.views", "typing"), (kind, arg)
