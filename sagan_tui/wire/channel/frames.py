"""Length-prefixed frames: a 4-byte big-endian length, then that many bytes of MessagePack.

A frame longer than MAX_FRAME is refused before any of it is buffered: a peer cannot make the
reader hold more than one bounded frame, whatever length it claims.
"""

from __future__ import annotations

import asyncio
import struct

HEADER = struct.Struct(">I")
# A whole 10,000-pod update is a few MB; this leaves room and still bounds what a peer can make us hold.
MAX_FRAME = 64 * 1024 * 1024


class FrameError(Exception):
    """The peer sent something that is not a frame of this channel (said to it, then closed)."""


def pack(payload: bytes) -> bytes:
    if len(payload) > MAX_FRAME:
        raise FrameError(f"frame of {len(payload)} bytes is over the {MAX_FRAME}-byte bound")
    return HEADER.pack(len(payload)) + payload


class FrameReader:
    """Frames out of a byte stream fed in pieces (for a transport that is not a StreamReader)."""

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._need: int | None = None

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out: list[bytes] = []
        while True:
            if self._need is None:
                if len(self._buf) < HEADER.size:
                    return out
                (self._need,) = HEADER.unpack_from(self._buf)
                del self._buf[:HEADER.size]
                if self._need > self.limit:
                    raise FrameError(f"frame length {self._need} is over the {self.limit}-byte bound")
            if len(self._buf) < self._need:
                return out
            out.append(bytes(self._buf[:self._need]))
            del self._buf[:self._need]
            self._need = None


async def read_frame(reader: asyncio.StreamReader, limit: int = MAX_FRAME) -> bytes | None:
    """The next frame, or None at a clean end of stream (between frames)."""
    try:
        header = await reader.readexactly(HEADER.size)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise FrameError("the stream ended inside a frame's length") from None
    (size,) = HEADER.unpack(header)
    if size > limit:
        raise FrameError(f"frame length {size} is over the {limit}-byte bound")
    try:
        return await reader.readexactly(size)
    except asyncio.IncompleteReadError:
        raise FrameError(f"the stream ended inside a frame of {size} bytes") from None


def write_frame(writer: asyncio.StreamWriter, payload: bytes) -> None:
    writer.write(pack(payload))
