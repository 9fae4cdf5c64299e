"""The channel's envelopes and their one encoder and decoders (MessagePack via msgspec: typed,
and decoding runs no code of the peer's: no pickle on a socket).

UI to session: Request (an intent and the id its Reply carries back).
Session to UI: Reply (the result, decoded by the caller as its intent's `result` type, or the
error), Update (view data), Refused (what was wrong with what the peer sent; then it is closed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Union

import msgspec

from sagan_tui.wire.channel.intents import AnyIntent, Intent
from sagan_tui.wire.channel.views import UpdateView


class Request(msgspec.Struct, frozen=True, tag="request"):
    id: int
    intent: AnyIntent  # type: ignore[valid-type]


class Reply(msgspec.Struct, frozen=True, tag="reply"):
    id: int
    result: msgspec.Raw = msgspec.Raw(b"\xc0")  # MessagePack nil
    error: str | None = None  # the session could not answer: a bug of ours, in one line


class Update(msgspec.Struct, frozen=True, tag="update"):
    update: UpdateView


class Refused(msgspec.Struct, frozen=True, tag="refused"):
    """The peer sent what is not a message of this channel; the session closes that connection."""

    reason: str


ToSession = Request
ToPanel = Union[Reply, Update, Refused]


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, Path):
        return str(obj)
    raise NotImplementedError(f"cannot send a {type(obj).__name__} on the channel")


def _dec_hook(kind: type, obj: Any) -> Any:
    if kind is Path and isinstance(obj, str):
        return Path(obj)
    raise NotImplementedError(f"cannot read a {kind!r} from the channel")


ENCODER = msgspec.msgpack.Encoder(enc_hook=_enc_hook)
TO_SESSION = msgspec.msgpack.Decoder(ToSession, dec_hook=_dec_hook)
TO_PANEL = msgspec.msgpack.Decoder(ToPanel, dec_hook=_dec_hook)
_RESULTS: dict[type, msgspec.msgpack.Decoder] = {}


def encode(message: Any) -> bytes:
    return ENCODER.encode(message)


def result_of(intent: Intent | type[Intent], raw: msgspec.Raw) -> Any:
    """A Reply's result as the intent's declared type (a ValidationError if it is not one)."""
    kind = intent if isinstance(intent, type) else type(intent)
    dec = _RESULTS.get(kind)
    if dec is None:
        dec = _RESULTS[kind] = msgspec.msgpack.Decoder(kind.result, dec_hook=_dec_hook)
    return dec.decode(raw)


def reply(request_id: int, intent: Intent | type[Intent], value: Any) -> Reply:
    """A Reply carrying `value`, checked here against the intent's type (a wrong answer is the
    session's bug, caught on its side, not a puzzle for the UI)."""
    raw = msgspec.Raw(ENCODER.encode(value))
    result_of(intent, raw)
    return Reply(request_id, raw)
