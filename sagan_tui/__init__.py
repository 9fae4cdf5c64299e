"""sagan-tui: a terminal control panel for Sagan's experiments and RunPod pods."""

__version__ = "0.1.0"
