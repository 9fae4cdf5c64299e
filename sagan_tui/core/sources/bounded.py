"""Every httpx request's overall deadline and reply size bound (Sagan, RunPod REST v2).

httpx's timeout is per read: a server that trickles a valid reply one byte every 2 s never
trips it, and a reply is read whole into memory however large it is. Here the whole request
(connect, headers, body) has one deadline, and the body is streamed and counted, abandoned
past the bound: memory stays near the bound, not the size the server chose to send.
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from typing import Any, Callable

import httpx

from sagan_tui.core.sources.errors import BadEncoding, ReplyTooLarge, SourceTimeout, Unreachable

DEFAULT_MAX_REPLY_BYTES = 64 * 1024 * 1024
# Headers the body already went through: the bytes handed on are decoded and complete.
_SPENT_HEADERS = {"content-encoding", "content-length", "transfer-encoding"}


@functools.lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """The one TLS context every client verifies with: httpx's default (certifi's bundle, or
    SSL_CERT_FILE / SSL_CERT_DIR), built once. Left to httpx, each client loads the whole CA
    bundle again, and the panel makes one client per source, and again for each event loop."""
    return httpx.create_ssl_context()


class LoopClient:
    """An httpx.AsyncClient for the event loop it is used on.

    A client's pooled connections belong to the loop that opened them. A poller polled once on one
    loop and then handed to another (the tests' rigs poll on pytest's loop, then give the poller
    to the panel, whose session runs its own loop) reused such a connection and every request of
    the source failed: "Event ... is bound to a different event loop". On a new loop a new client
    is made; the old one's connections are left to the loop that opened them.
    """

    def __init__(self, make: Callable[[], httpx.AsyncClient]) -> None:
        self._make = make
        self._client = make()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    def get(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._loop is not loop and not self._closed:
            if self._loop is not None:
                self._client = self._make()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        self._closed = True
        if self._loop in (None, asyncio.get_running_loop()):
            await self._client.aclose()


def bad_encoding(source: str, where: str) -> BadEncoding:
    return BadEncoding(source, f"{where}: bad encoding: the reply's body does not decode as its Content-Encoding says")


def too_large(source: str, where: str, max_bytes: int) -> ReplyTooLarge:
    return ReplyTooLarge(source, f"{where}: reply too large (over {max_bytes / 2**20:g} MB); not read further")


async def bounded_request(client: httpx.AsyncClient, method: str, url: str, *, source: str, where: str,
                          deadline_s: float, max_bytes: int, **kw: Any) -> httpx.Response:
    """The reply, read whole within `deadline_s` and `max_bytes`, or a typed SourceError."""

    async def read() -> httpx.Response:
        async with client.stream(method, url, **kw) as resp:
            declared = resp.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > max_bytes:
                raise too_large(source, where, max_bytes)
            body, size = [], 0
            async for chunk in resp.aiter_bytes():  # decoded bytes: a gzip bomb is counted as it inflates
                size += len(chunk)
                if size > max_bytes:
                    raise too_large(source, where, max_bytes)
                body.append(chunk)
            return _read_whole(resp, body)

    return await _within(read(), source, where, deadline_s)


def _read_whole(resp: httpx.Response, body: list[bytes]) -> httpx.Response:
    """A streamed reply as one read: its body joined, the headers that described the transfer gone."""
    headers = [(k, v) for k, v in resp.headers.multi_items() if k.lower() not in _SPENT_HEADERS]
    return httpx.Response(resp.status_code, headers=headers, content=b"".join(body), request=resp.request)


async def _within(read: Any, source: str, where: str, deadline_s: float) -> httpx.Response:
    """`read` awaited within `deadline_s`, httpx's failures as the typed SourceErrors."""
    try:
        return await asyncio.wait_for(read, deadline_s)
    except (httpx.TimeoutException, asyncio.TimeoutError):
        raise SourceTimeout(source, f"{where}: timed out, no complete reply within {deadline_s:g} s") from None
    except httpx.DecodingError:
        raise bad_encoding(source, where) from None
    except httpx.HTTPError as exc:
        raise Unreachable(source, f"{where}: request failed: {type(exc).__name__}") from None


async def bounded_stream(client: httpx.AsyncClient, method: str, url: str, *, source: str, where: str,
                         deadline_s: float, quiet_s: float, max_bytes: int, **kw: Any) -> httpx.Response:
    """As bounded_request, for a reply that may never end (server-sent events that follow a log):
    the body so far once it has been quiet for `quiet_s`, or at the deadline if some came."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline_s

    async def read() -> httpx.Response:
        async with client.stream(method, url, **kw) as resp:
            body, size = [], 0
            chunks = resp.aiter_bytes()
            while True:
                left = end - loop.time()
                try:
                    chunk = await asyncio.wait_for(anext(chunks), min(left, quiet_s) if body else left)
                except StopAsyncIteration:
                    break
                except asyncio.TimeoutError:
                    if body:
                        break  # an open stream has said what it had: the rest is for the next read
                    raise
                size += len(chunk)
                if size > max_bytes:
                    raise too_large(source, where, max_bytes)
                body.append(chunk)
            return _read_whole(resp, body)

    # The headers' wait is bounded here too (httpx times each read, not the whole request).
    return await _within(read(), source, where, deadline_s + quiet_s)
