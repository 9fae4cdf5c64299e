"""The stop rule (sagan_tui/commands/stop_signals.py): the first stop signal asks the app to exit and starts
the grace period, whose end ends the process hard; a second SIGTERM or SIGINT ends it at once;
SIGHUP (one hang-up may be reported twice) never counts as the second."""

import signal

import pytest

from sagan_tui.commands.stop_signals import StopRule


def rule():
    asked, ended = [], []
    return StopRule(asked.append, ended.append, grace_s=5.0), asked, ended


def test_the_first_signal_asks_the_app_to_exit_once_and_does_not_end_the_process():
    r, asked, ended = rule()
    r.stop(signal.SIGTERM)
    r.signalled(signal.SIGTERM)
    r.stop(signal.SIGHUP)  # a later one is not asked again: the app is exiting
    assert asked == [signal.SIGTERM] and ended == [] and r.received == [signal.SIGTERM, signal.SIGHUP]


def test_the_grace_period_ends_the_process_with_the_first_signal():
    r, _, ended = rule()
    r.signalled(signal.SIGHUP)
    waited = []
    r.wait_grace(lambda s: waited.append(s) or False)  # the grace passed, the process still here
    assert waited == [5.0] and ended == [signal.SIGHUP]


def test_the_grace_period_does_not_end_it_twice():
    r, _, ended = rule()
    r.signalled(signal.SIGTERM)
    r.signalled(signal.SIGINT)  # ended at once
    r.wait_grace(lambda s: False)
    assert ended == [signal.SIGINT]


def test_the_grace_waits_for_a_first_signal():
    r, _, ended = rule()
    assert not r.asked.is_set()
    r.signalled(signal.SIGTERM)
    assert r.asked.is_set() and ended == []


@pytest.mark.parametrize("second", [signal.SIGTERM, signal.SIGINT])
@pytest.mark.parametrize("first", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_second_sigterm_or_sigint_ends_the_process_at_once(first, second):
    r, _, ended = rule()
    r.signalled(first)
    assert ended == []
    r.signalled(second)
    r.signalled(second)
    assert ended == [second]


@pytest.mark.parametrize("first", [signal.SIGTERM, signal.SIGHUP])
def test_sighup_is_never_the_second_request(first):
    r, _, ended = rule()
    r.signalled(first)
    r.signalled(signal.SIGHUP)
    r.signalled(signal.SIGHUP)
    assert ended == []
