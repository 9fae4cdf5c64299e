"""panel/widgets."""
