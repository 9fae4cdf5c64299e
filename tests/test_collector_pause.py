"""collector_paused: the collector off while a reply is decoded or read, on again after the last pause,
never turned on by us, never held across an await."""

from __future__ import annotations

import gc
import threading

import pytest

from sagan_tui.core.collector_pause import collector_paused


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_nested_pauses_keep_the_collector_off_until_the_last_one_ends():
    with collector_paused():
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_pause_that_raises_still_turns_the_collector_back_on():
    with pytest.raises(ValueError):
        with collector_paused():
            raise ValueError("bad reply")
    assert gc.isenabled()


def test_a_collector_someone_else_stopped_stays_stopped():
    gc.disable()  # by someone else: an embedding program, a profiler
    with collector_paused():
        pass
    assert not gc.isenabled()


def test_pauses_in_two_threads_overlap_without_turning_the_collector_on_early():
    inside, release, seen = threading.Event(), threading.Event(), []

    def other() -> None:
        with collector_paused():
            inside.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    assert inside.wait(10)
    with collector_paused():
        pass
    seen.append(gc.isenabled())  # the other thread's pause is still open
    release.set()
    t.join(10)
    assert seen == [False] and gc.isenabled()


def test_no_pause_is_held_across_an_await():
    """The rule of collector_pause.py: a pause covers a synchronous step only (never a request)."""
    import ast
    from pathlib import Path

    import sagan_tui

    uses = []
    for path in Path(sagan_tui.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.With, ast.AsyncWith)) and any(
                    isinstance(i.context_expr, ast.Call) and getattr(i.context_expr.func, "id", "") == "collector_paused"
                    for i in node.items):
                uses.append(path.name)
                awaits = [n for b in node.body for n in ast.walk(b) if isinstance(n, (ast.Await, ast.AsyncFor, ast.AsyncWith))]
                assert not awaits, f"{path.name}:{node.lineno}: a collector pause held across an await"
    assert len(uses) >= 3  # the pauses the fleet's poll figure measured are still there


def test_what_a_pause_leaves_alive_is_not_walked_by_the_next_young_collection():
    """The step's survivors join the oldest generation as the pause ends: the young count starts
    from nothing, so the next allocation sets off no collection of everything the step built."""
    gc.collect()
    with collector_paused():
        kept = [[i] for i in range(5000)]  # tracked containers: each counts as a young allocation
        assert gc.get_count()[0] >= 5000
    assert gc.get_count()[0] < gc.get_threshold()[0]
    assert gc.is_tracked(kept[0]) and gc.get_freeze_count() == 0


def test_objects_someone_else_froze_stay_frozen():
    """The panel freezes its imports' objects: a pause never unfreezes them (that process takes no
    pause, but the rule holds wherever one is taken)."""
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with collector_paused():
            _ = [[i] for i in range(100)]
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
