"""Clients of the sources the panel watches: Sagan's HTTP API and one RunPod transport per account."""
