"""How one page reaches one target: ntfy and PagerDuty Events v2 over httpx, anything else through apprise.

ntfy (2.16+): every page of an alert carries the alert's sequence id (`X-Sequence-ID`), so growth
replaces the phone's notification; the end of the alert clears it (`PUT /<topic>/<seq>/clear`).
PagerDuty: `trigger` with the sequence id as `dedup_key`, `resolve` at the end. apprise cannot
replace what it sent: the end is a follow-up naming the first page ("withdrawn: false alarm").
A failure raises PageFailed with a short reason ("ntfy 403"), never the URL.
"""

from __future__ import annotations

import asyncio
import logging

import httpx

from sagan_tui.core.pages.alerts import Page
from sagan_tui.core.pages.targets import Target

NTFY_PRIORITY = {"urgent": "5", "high": "4", "default": "3", "low": "2", "min": "1"}
PD_SEVERITY = {"urgent": "critical", "high": "error", "default": "warning", "low": "info", "min": "info"}
NTFY_TAGS = {"wave": "rotating_light", "growth": "rotating_light", "forming": "warning", "blind": "see_no_evil",
             "runway": "money_with_wings", "contained": "lock", "resolved": "white_check_mark",
             "withdrawn": "leftwards_arrow_with_hook"}


class PageFailed(Exception):
    """A page not delivered; the text is what watch prints after "paging failed:"."""


def _answer(who: str, reply: httpx.Response, ok=(200, 201, 202)) -> None:
    if reply.status_code not in ok:
        raise PageFailed(f"{who} {reply.status_code}")


async def _request(who: str, client: httpx.AsyncClient, method: str, url: str, **kw) -> httpx.Response:
    try:
        return await client.request(method, url, **kw)
    except httpx.TimeoutException:
        raise PageFailed(f"{who} timeout") from None
    except httpx.HTTPError as exc:
        raise PageFailed(f"{who} unreachable ({type(exc).__name__})") from None


def _ntfy_headers(target: Target) -> dict[str, str]:
    if not target.auth:
        return {}
    if target.auth[0] == "bearer":
        return {"Authorization": f"Bearer {target.auth[1]}"}
    import base64

    pair = f"{target.auth[1]}:{target.auth[2]}".encode()
    return {"Authorization": f"Basic {base64.b64encode(pair).decode()}"}


class NtfySender:
    def __init__(self, target: Target, client: httpx.AsyncClient):
        self.t, self.client = target, client

    async def send(self, page: Page) -> None:
        topic = f"{self.t.base}/{self.t.path}"
        if page.ends:
            reply = await _request("ntfy", self.client, "PUT", f"{topic}/{page.seq}/clear", headers=_ntfy_headers(self.t))
            return _answer("ntfy", reply)
        headers = {**_ntfy_headers(self.t), "X-Title": _header(page.title), "X-Priority": NTFY_PRIORITY[page.priority],
                   "X-Tags": NTFY_TAGS.get(page.event, "bell"), "X-Sequence-ID": page.seq}
        reply = await _request("ntfy", self.client, "POST", topic, headers=headers, content=page.text.encode())
        _answer("ntfy", reply)

    async def schedule(self, seq: str, title: str, text: str, delay_s: int) -> None:
        """The dead-man's message: the one scheduled before is cancelled, a new one is due in
        `delay_s` (ntfy's X-Delay), under the same sequence id."""
        topic = f"{self.t.base}/{self.t.path}"
        reply = await _request("ntfy", self.client, "DELETE", f"{topic}/{seq}", headers=_ntfy_headers(self.t))
        _answer("ntfy", reply, ok=(200, 201, 202, 404))
        headers = {**_ntfy_headers(self.t), "X-Title": _header(title), "X-Priority": "5", "X-Tags": "skull",
                   "X-Sequence-ID": seq, "X-Delay": f"{max(10, int(delay_s))}s"}
        reply = await _request("ntfy", self.client, "POST", topic, headers=headers, content=text.encode())
        _answer("ntfy", reply)

    async def cancel(self, seq: str) -> None:
        topic = f"{self.t.base}/{self.t.path}"
        reply = await _request("ntfy", self.client, "DELETE", f"{topic}/{seq}", headers=_ntfy_headers(self.t))
        _answer("ntfy", reply, ok=(200, 201, 202, 404))


class PagerDutySender:
    def __init__(self, target: Target, client: httpx.AsyncClient):
        self.t, self.client = target, client

    async def send(self, page: Page) -> None:
        body = {"routing_key": self.t.path, "dedup_key": page.seq,
                "event_action": "resolve" if page.ends else "trigger"}
        if not page.ends:
            body["payload"] = {"summary": page.title[:1024], "source": "sagan-tui watch",
                               "severity": PD_SEVERITY[page.priority], "component": page.kind,
                               "custom_details": {"details": page.text}}
        reply = await _request("pagerduty", self.client, "POST", self.t.base, json=body)
        _answer("pagerduty", reply)


class AppriseSender:
    def __init__(self, target: Target):
        self.t = target

    async def send(self, page: Page) -> None:
        title, text = page.title, page.text
        if page.ends and page.first_title and page.first_title not in title:
            text = f"{text}\n(ends the page: {page.first_title})"
        ok = await asyncio.to_thread(self._notify, title, text)
        if not ok:
            raise PageFailed(f"{self.t.shown} not delivered")

    def _notify(self, title: str, text: str) -> bool:
        import apprise

        quiet_apprise()
        a = apprise.Apprise()
        if not a.add(self.t.url):
            return False
        return bool(a.notify(body=text, title=title))


def quiet_apprise() -> None:
    """apprise logs a failure with the URL's parts: watch says it itself, without them."""
    logging.getLogger("apprise").setLevel(logging.CRITICAL)


def sender_for(target: Target, client: httpx.AsyncClient):
    if target.scheme in ("ntfy", "ntfys"):
        return NtfySender(target, client)
    if target.scheme == "pagerduty":
        return PagerDutySender(target, client)
    return AppriseSender(target)


def _header(text: str) -> str:
    """HTTP headers carry Latin-1: what does not fit is replaced (ntfy reads UTF-8 titles from
    the body only)."""
    return text.encode("latin-1", "replace").decode("latin-1")[:250]
