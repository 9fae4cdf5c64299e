"""The collector's full passes wait for a pause in the keys, and what they skip is swept (gc_settle.py)."""

from __future__ import annotations

import gc
import weakref

import pytest

from sagan_tui.gc_settle import EVERY_S, IDLE_S, MAX_S, NO_AUTO_FULL, Settler


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Cycle:
    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def settler():
    s = Settler(Clock())
    yield s
    s.release()


def test_the_first_update_freezes_the_heap_and_a_frozen_cycle_waits_for_the_next_sweep(settler):
    cycle = Cycle()
    settler.settle()
    assert settler.sweeps == 1 and gc.get_freeze_count() > 0
    gone = weakref.ref(cycle)
    del cycle
    gc.collect()  # an automatic or explicit full pass does not look at frozen objects
    assert gone() is not None
    settler.clock.now += EVERY_S + IDLE_S  # a minute on, the owner not typing
    settler.settle()
    assert settler.sweeps == 2 and gone() is None


def test_no_sweep_while_keys_come_nor_before_a_minute(settler):
    settler.settle()
    settler.clock.now += EVERY_S + 10
    settler.key()
    settler.clock.now += IDLE_S / 2
    assert settler.sweep_if_due() is False  # the owner is typing
    settler.clock.now += IDLE_S
    assert settler.sweep_if_due() is True  # a pause
    settler.clock.now += IDLE_S
    assert settler.sweep_if_due() is False and settler.sweeps == 2  # the last was just now


def test_five_minutes_of_typing_without_a_pause_are_swept_anyway(settler):
    settler.settle()
    for _ in range(int(MAX_S / 0.25) - 1):  # a key every quarter second
        settler.clock.now += 0.25
        settler.key()
        settler.settle()
    assert settler.sweeps == 1
    settler.clock.now += 0.5
    settler.settle()
    assert settler.sweeps == 2


def test_automatic_full_passes_wait_for_the_sweeps_and_release_restores_everything(settler):
    before = gc.get_threshold()
    settler.settle()
    assert gc.get_threshold() == (before[0], before[1], NO_AUTO_FULL)
    settler.release()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
