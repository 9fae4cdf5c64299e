"""The channel's version: a panel attaches only to a `watch` that speaks it.

A watch listens at a socket named for its version (runtime_dir.watch_socket_name), so a panel of
another install, or one upgraded while an old watch runs, finds no socket of its own version on
the cache: it says which version answers there and polls on its own, instead of sending messages
the watch would misread or refuse.

Rule: WIRE_VERSION moves whenever a message's shape does. tests/channel/test_wire_version.py
describes every message and result type (msgspec.inspect) and fails while WIRE_DIGEST is not that
description's digest: bump WIRE_VERSION and record the new digest in the same change.
"""

WIRE_VERSION = 1
WIRE_DIGEST = "52dbeb56c3830458"  # the description's sha256, its first 16 hex digits
