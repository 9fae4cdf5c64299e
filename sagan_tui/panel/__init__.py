"""The panel: the UI process (Textual App, screens, widgets, the first frame's peek). Imports no core module."""
