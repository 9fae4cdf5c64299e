"""gc_paused: the collector off while a reply is decoded, on again after the last pause, never turned on by us."""

from __future__ import annotations

import gc
import threading

import pytest

from sagan_tui.gc_pause import gc_paused


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_nested_pauses_keep_the_collector_off_until_the_last_one_ends():
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_that_raises_still_turns_the_collector_back_on():
    with pytest.raises(ValueError):
        with gc_paused():
            raise ValueError("bad reply")
    assert gc.isenabled()


def test_a_collector_someone_else_stopped_stays_stopped():
    gc.disable()  # as the panel's start-up does until its first frame
    with gc_paused():
        pass
    assert not gc.isenabled()


def test_pauses_in_two_threads_overlap_without_turning_the_collector_on_early():
    inside, release, seen = threading.Event(), threading.Event(), []

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(10)
    with gc_paused():
        pass
    seen.append(gc.isenabled())  # the other thread's pause is still open
    release.set()
    t.join(10)
    assert seen == [False] and gc.isenabled()
