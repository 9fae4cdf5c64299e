"""Pure analysis of pod losses: waves, heatmap grid, diagnosis, report, dispatch guard. No I/O."""
