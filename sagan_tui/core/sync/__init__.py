"""Polling the sources into the cache."""
