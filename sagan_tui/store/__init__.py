"""The SQLite cache."""
