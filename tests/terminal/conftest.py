"""The panel fixtures of tests/ui, for the terminal's tests (notify, keymap, runway, help, SSH)."""

from tests.ui.conftest import panel  # noqa: F401 - a fixture, used by name
