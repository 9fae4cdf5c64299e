"""panel/screens."""
