"""The private channel between the panel (UI process) and its session process.

Length-prefixed MessagePack frames (frames.py) of msgspec Structs (messages.py, intents.py,
views.py) over a Unix socket in an owner-only runtime directory (runtime_dir.py). The UI side
imports only this package, never the session's internals. docs/channel.md says what it carries.
"""
