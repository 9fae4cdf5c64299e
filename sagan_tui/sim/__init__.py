"""Simulator of Sagan and RunPod on loopback; imported by the panel only for --demo."""
