"""Stamps and stored JSON: the faster writers and readers give what the cache always held."""

import json
import string
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings, strategies as st

from sagan_tui.core.models import WorkflowEvent, as_utc
from sagan_tui.core.store.cache import Cache, parse_ts, ts

_TS = "%Y-%m-%dT%H:%M:%S.%fZ"


def old_ts(value):
    """ts() as it was (strftime), for years it wrote correctly."""
    v = as_utc(value)
    return None if v is None else v.strftime(_TS)


def old_parse_ts(value):
    """parse_ts() as it was: strptime first, then fromisoformat."""
    if not value:
        return None
    try:
        return datetime.strptime(value, _TS).replace(tzinfo=timezone.utc)
    except ValueError:
        return as_utc(datetime.fromisoformat(value.replace("Z", "+00:00")))


def outcome(fn, value):
    try:
        return fn(value)
    except ValueError:
        return ValueError


zones = st.sampled_from([timezone.utc, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30))])
aware = st.datetimes(min_value=datetime(1000, 1, 2), max_value=datetime(9999, 12, 30), timezones=zones)


@given(aware)
def test_stamp_is_the_same_text_as_before(d):
    assert ts(d) == old_ts(d)
    assert len(ts(d)) == 27 and ts(d).endswith("Z")
    assert parse_ts(ts(d)) == d


@given(st.datetimes(timezones=zones), st.datetimes(timezones=zones))
def test_stamp_text_order_is_time_order_for_every_year(a, b):
    # Before, strftime wrote year 999 as `999-...`: neither fixed width nor readable again.
    assert (ts(a) < ts(b)) == (as_utc(a) < as_utc(b))
    assert parse_ts(ts(a)) == a


def _formats(d: datetime) -> list[str]:
    u = as_utc(d)
    return [ts(d), u.isoformat(), d.isoformat(), u.isoformat().replace("+00:00", "Z"), u.strftime(_TS).lower(),
            u.strftime("%Y-%m-%dT%H:%M:%SZ"), u.strftime("%Y-%m-%d %H:%M:%S.%f"), u.date().isoformat(),
            d.isoformat(timespec="milliseconds"), f"{u.year}-{u.month}-{u.day}T{u.hour}:{u.minute}:{u.second}.{u.microsecond}Z"]


@settings(max_examples=300)
@given(aware)
def test_parse_reads_every_form_as_before(d):
    for text in _formats(d):
        assert outcome(parse_ts, text) == outcome(old_parse_ts, text), text


@settings(max_examples=500)
@given(st.one_of(st.text(alphabet=string.digits + "-:T.Zztz +W,", max_size=32),
                 aware.map(lambda d: ts(d)).flatmap(lambda s: st.integers(0, len(s)).map(lambda i: s[:i] + s[i + 1:]))))
def test_parse_refuses_what_it_refused(text):
    assert outcome(parse_ts, text) == outcome(old_parse_ts, text)


def test_parse_edges():
    assert parse_ts(None) is None and parse_ts("") is None
    assert parse_ts("2026-05-14T10:53:54Z") == datetime(2026, 5, 14, 10, 53, 54, tzinfo=timezone.utc)
    assert parse_ts("2026-05-14T12:53:54+02:00") == datetime(2026, 5, 14, 10, 53, 54, tzinfo=timezone.utc)
    assert parse_ts("2026-05-14t10:53:54.5z") == datetime(2026, 5, 14, 10, 53, 54, 500000, tzinfo=timezone.utc)
    for bad in ("yesterday", "2026-13-01T00:00:00Z", "2026-05-14T10:53:54.000000Q"):
        with pytest.raises(ValueError):
            parse_ts(bad)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(metadata=json_values, note=st.none() | st.text(), created=aware)
def test_stored_events_read_back_equal(tmp_path_factory, metadata, note, created):
    e = WorkflowEvent.model_validate({"id": "e1", "eventType": "epm:progress", "createdAt": created.isoformat(),
                                      "note": note, "metadata": metadata, "someExtra": 1})
    # The same values as the json.dumps(model_dump()) it replaces...
    assert json.loads(e.dump_json()) == json.loads(json.dumps(e.dump()))
    # ...and the cache gives back an equal record.
    c = Cache(tmp_path_factory.mktemp("c") / "c.sqlite")
    try:
        with c.transaction() as conn:
            c.upsert_events(conn, [e])
        back = c.events()
    finally:
        c.close()
    assert back == [WorkflowEvent.model_validate(e.dump())]


def test_lone_surrogate_in_metadata_is_still_stored(tmp_path):
    e = WorkflowEvent.model_validate({"id": "e1", "eventType": "note", "createdAt": "2026-05-14T10:00:00Z",
                                      "metadata": {"s": "\udc80", "deep": ["x\ud800"]}})
    c = Cache(tmp_path / "c.sqlite")
    with c.transaction() as conn:
        assert c.upsert_events(conn, [e]) == 1
    assert c.events()[0].metadata == {"s": "\udc80", "deep": ["x\ud800"]}


def test_lone_surrogate_as_a_metadata_key_is_stored_and_read_back(tmp_path):
    meta = {"\ud800": {"\udfff": ["\udc80"]}, "ok": "\u00e9"}
    raw = {"id": "e1", "eventType": "note", "createdAt": "2026-05-14T10:00:00Z", "metadata": meta}
    e = WorkflowEvent.model_validate(raw)
    plain = WorkflowEvent.model_validate({**raw, "metadata": None})
    # The same JSON as pydantic writes for every other field (its datetimes too), the key escaped.
    assert json.loads(e.dump_json()) == {**json.loads(plain.dump_json()), "metadata": meta}
    c = Cache(tmp_path / "c.sqlite")
    try:
        with c.transaction() as conn:
            assert c.upsert_events(conn, [e]) == 1
        assert c.events() == [e]
    finally:
        c.close()
