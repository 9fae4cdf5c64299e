"""KeyHold without a screen: what a dialog's burst holds, hands on, and drops after a refusal."""

from __future__ import annotations

from textual import events

from sagan_tui.panel.key_hold import BURST_S, KeyHold


def key(name: str, at: float) -> events.Key:
    k = events.Key(name, name)
    k.time = at
    return k


def test_keys_read_while_a_dialog_opens_are_handed_on_in_order_with_their_arrival_times():
    hold = KeyHold()
    assert not hold.take(key("a", 10.0))
    opening = hold.begin()
    assert hold.take(key("x", 10.01)) and hold.take(key("y", 10.02))
    out = hold.end(opening, opened=True)
    assert [(k.key, k.time) for k in out] == [("x", 10.01), ("y", 10.02)]
    assert not hold.take(key("z", 10.03))  # nothing opening, no refusal: the App handles it


def test_a_refusal_drops_its_burst_and_a_key_after_a_pause_goes_on():
    hold = KeyHold()
    hold.take(key("r", 5.0))
    opening = hold.begin()
    hold.take(key("1", 5.01))
    assert hold.end(opening, opened=False) == []
    assert hold.take(key("9", 5.02)) and hold.take(key("enter", 5.02 + BURST_S * 0.9))
    assert not hold.take(key("enter", 5.02 + BURST_S * 0.9 + BURST_S * 1.5))  # a pause: the owner's next key
    assert not hold.take(key("j", 5.2))


def test_a_refusal_with_no_key_held_drops_from_the_key_that_asked():
    hold = KeyHold()
    hold.take(key("h", 7.0))
    hold.end(hold.begin(), opened=False)
    assert hold.take(key("a", 7.0 + BURST_S / 2))


def test_two_dialogs_opening_hand_the_keys_on_once_both_are_open():
    hold = KeyHold()
    first, second = hold.begin(), hold.begin()
    hold.take(key("x", 1.0))
    assert hold.end(first, opened=True) == []
    assert hold.end(first, opened=True) == []  # an opening ends once (its timer and its mount both say so)
    assert [k.key for k in hold.end(second, opened=True)] == ["x"]
