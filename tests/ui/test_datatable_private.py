"""The DataTable internals KeyedTable's fast paths rely on exist in the installed Textual, by name and signature."""

import textual

from sagan_tui.ui.widgets import datatable_private, keyed_table
from sagan_tui.ui.widgets.datatable_private import mismatches


def test_the_installed_textual_has_every_datatable_internal_the_adapter_uses():
    missing = mismatches()
    assert not missing, (
        f"Textual {textual.__version__} changed DataTable internals that "
        f"sagan_tui/ui/widgets/datatable_private.py relies on: " + "; ".join(missing)
        + ". Adapt that module (and only it), or pin textual to a version that has them.")


def test_the_check_names_what_is_missing(monkeypatch):
    from textual.widgets import DataTable

    monkeypatch.delattr(DataTable, "_get_styles_to_render_cell")
    assert "DataTable has no method _get_styles_to_render_cell" in mismatches()


def test_only_the_adapter_touches_datatable_private_members():
    import inspect
    import re

    source = inspect.getsource(keyed_table)
    private = [name for name in (*datatable_private.PRIVATE_ATTRS, *datatable_private.PRIVATE_METHODS)
               if re.search(rf"\b{name}\b", source)]
    assert private == [], f"keyed_table.py uses DataTable internals directly: {private}"
    assert "textual._" not in source
