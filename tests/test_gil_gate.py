"""Background work waits while the UI loop is busy, goes on when it waits for input, never waits
longer than HOLD_S for one busy stretch, and never waits on the UI thread itself (gil_gate.py)."""

from __future__ import annotations

import asyncio
import threading

from sagan_tui import gil_gate


class Recorder:
    """Stands in for the gate's Event: records waits instead of blocking."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def wait(self, timeout: float) -> bool:
        self.waits.append(timeout)
        return False

    def set(self) -> None:
        pass

    def clear(self) -> None:
        pass


def background(returned: threading.Event) -> threading.Thread:
    t = threading.Thread(target=lambda: (gil_gate.yield_to_ui(), returned.set()), daemon=True)
    t.start()
    return t


async def test_background_work_waits_while_the_loop_is_busy_and_goes_on_when_it_waits(monkeypatch):
    monkeypatch.setattr(gil_gate, "HOLD_S", 60.0)  # only the loop's wait can let it go
    undo = gil_gate.install(asyncio.get_running_loop())
    try:
        returned = threading.Event()
        t = background(returned)
        t.join(0.05)  # the loop's thread blocked here is still "busy": the worker must still wait
        assert t.is_alive() and not returned.is_set()
        await asyncio.sleep(0.01)  # the loop waits for input (select with a timeout): idle
        assert await asyncio.to_thread(returned.wait, 30)
    finally:
        undo()


async def test_a_busy_stretch_holds_background_work_for_hold_s_at_most(monkeypatch):
    monkeypatch.setattr(gil_gate, "HOLD_S", 0.05)
    undo = gil_gate.install(asyncio.get_running_loop())
    try:
        returned = threading.Event()
        t = background(returned)
        t.join(30)  # the loop never waits meanwhile: the worker goes once HOLD_S has passed
        assert returned.is_set()
    finally:
        undo()


async def test_the_ui_thread_itself_never_waits_and_undo_leaves_the_loop_as_it_was(monkeypatch):
    loop = asyncio.get_running_loop()
    recorder = Recorder()
    monkeypatch.setattr(gil_gate, "_idle", recorder)
    monkeypatch.setattr(gil_gate, "HOLD_S", 60.0)
    undo = gil_gate.install(loop)
    assert "select" in vars(loop._selector)
    gil_gate.yield_to_ui()  # on the loop's own thread
    assert recorder.waits == []

    returned = threading.Event()
    background(returned).join(30)
    assert len(recorder.waits) == 1 and 0 < recorder.waits[0] <= 60.0  # another thread does wait

    undo()
    assert "select" not in vars(loop._selector)
    recorder.waits.clear()
    background(threading.Event()).join(30)
    assert recorder.waits == []  # no panel: nothing to wait for


def test_without_a_panel_yield_returns_at_once(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(gil_gate, "_idle", recorder)
    gil_gate.yield_to_ui()
    assert recorder.waits == []
