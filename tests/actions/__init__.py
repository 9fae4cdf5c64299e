"""Owner actions: core against the simulator, screens under Pilot, snapshots."""
