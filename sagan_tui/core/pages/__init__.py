"""Pages to the owner: alerts with a lifecycle (alerts.py), where they go (targets.py, senders.py),
how they are sent (pager.py) and the dead-man's switch (deadman.py). No Textual; the UI never
imports this package."""
