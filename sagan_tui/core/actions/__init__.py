"""Owner actions: approve, hold, re-dispatch, stop, promote; audit, read-only, guard."""
