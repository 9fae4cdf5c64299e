"""Simulator of Sagan and RunPod on loopback; imported by the panel only for --demo."""

from .clock import SimClock
from .fixture import FixtureError, load_fixture
from .scenarios import SCENARIOS, build_scenario
from .server import RecordedRequest, SimServer

__all__ = ["SCENARIOS", "FixtureError", "RecordedRequest", "SimClock", "SimServer", "build_scenario", "load_fixture"]
