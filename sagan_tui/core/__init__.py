"""The core: the session process (session, sync, sources, store, triage, actions, pages, models). Imports no panel module."""
