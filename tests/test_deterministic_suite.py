"""`make test` is deterministic on any machine: every property runs derandomized, with no example database."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

pytestmark = pytest.mark.skipif(os.environ.get("SAGAN_TUI_FUZZ") == "1", reason="`make fuzz` (SAGAN_TUI_FUZZ=1) draws at random on purpose")


def test_properties_run_derandomized_without_ci_set():
    # Not only under CI=true: a fresh clone's `make test` drew at random and failed on what it drew.
    assert settings.default.derandomize is True
    assert settings.default.database is None


def test_settings_a_test_module_builds_inherit_the_derandomized_profile():
    from tests.reliability.test_fuzz import FUZZ

    assert FUZZ.derandomize is True and FUZZ.max_examples >= 1
