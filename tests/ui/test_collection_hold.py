"""The `sagan-tui` command's collection hold (panel/collection_hold.py): released only if it was taken
here, so a collector someone else stopped stays stopped, and a panel in a test never turns it on."""

from __future__ import annotations

import gc

import pytest

from sagan_tui.panel import collection_hold


@pytest.fixture(autouse=True)
def collector_as_it_was():
    was = gc.isenabled()
    yield
    collection_hold.release()
    (gc.enable if was else gc.disable)()


def test_the_hold_stops_collection_until_its_release():
    gc.enable()
    collection_hold.hold()
    assert not gc.isenabled()
    collection_hold.release()
    assert gc.isenabled()
    collection_hold.release()  # released once: a second release changes nothing
    assert gc.isenabled()


def test_a_collector_someone_else_stopped_stays_stopped():
    gc.disable()  # an embedding program, a profiler
    collection_hold.hold()
    collection_hold.release()
    assert not gc.isenabled()
