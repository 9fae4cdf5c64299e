"""ui/widgets."""
