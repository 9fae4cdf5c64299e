"""Where pages go: the `page_urls` setting parsed into targets, each with the alert kinds it takes.

A URL is a secret (a topic, a routing key, a webhook token): a target shows its scheme and, for
a server we talk to ourselves (ntfy, a JSON/form webhook), its host, never more; every error
names the setting, the entry's position and its scheme, never the URL.

    ntfy://[user:pass@]host[:port]/topic[?token=tk_...]   plain http (a loopback or LAN server)
    ntfys://[user:pass@]host[:port]/topic[?token=...]     https (ntfy.sh or a server of yours)
    pagerduty://ROUTING_KEY[?events_url=https://...]      PagerDuty Events v2 (the endpoint overridable)
    anything apprise knows (slack://, tgram://, json://host/path, mailto://, ...)

Any of them may end in `kinds=wave,withdrawn` (a query parameter, removed before sending): only
pages of those kinds or events go there (EVENTS and the alert kinds); none means all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from sagan_tui.core.pages.alerts import EVENTS

ALERT_KINDS = ("forming", "wave", "blind", "runway")
KINDS = tuple(dict.fromkeys((*ALERT_KINDS, *EVENTS)))
PAGERDUTY_EVENTS_URL = "https://events.pagerduty.com/v2/enqueue"
# Apprise schemes whose host is a server we name (a webhook's), not a token: shown with the host.
HOST_SHOWN = {"json", "jsons", "form", "forms", "xml", "xmls", "ntfy", "ntfys"}


@dataclass(frozen=True)
class Target:
    scheme: str
    shown: str  # "ntfy 127.0.0.1", "pagerduty", "slack": all that is ever printed of it
    kinds: frozenset[str]
    url: str = field(repr=False)  # without kinds=; the secret
    base: str = field(default="", repr=False)  # ntfy: the server's base URL; pagerduty: the events endpoint
    path: str = field(default="", repr=False)  # ntfy: the topic; pagerduty: the routing key
    auth: tuple = field(default=(), repr=False)  # ntfy: ("basic", user, password) or ("bearer", token)

    def accepts(self, kind: str, event: str) -> bool:
        return not self.kinds or kind in self.kinds or event in self.kinds

    def secrets(self) -> list[str]:
        """The texts to scrub from anything written: the URL and its parts that are keys."""
        return [s for s in (self.url, self.path, *self.auth[1:]) if s and len(s) >= 4]


class TargetError(ValueError):
    """A `page_urls` entry that cannot be used; the text names the entry and scheme, never the URL."""


def split_urls(value) -> list[str]:
    """A list as given in the TOML file, or the environment's whitespace-separated text (a URL
    holds no space; commas belong to `kinds=`)."""
    if value is None:
        return []
    if isinstance(value, str):
        return value.split()
    return [v.get_secret_value() if hasattr(v, "get_secret_value") else str(v) for v in value]


def parse_targets(urls, setting: str = "page_urls") -> list[Target]:
    return [parse_target(u, i, setting) for i, u in enumerate(split_urls(urls), 1)]


def parse_target(url: str, position: int = 1, setting: str = "page_urls") -> Target:
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    where = f"{setting}: entry {position}"
    if not scheme or not scheme.replace("+", "").isalnum():
        raise TargetError(f"{where}: not a URL (expected scheme://...)")
    where += f" (scheme {scheme!r})"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is not a number
    except ValueError:
        raise TargetError(f"{where}: not a valid URL") from None
    query = parse_qsl(parts.query, keep_blank_values=True)
    kinds = frozenset(k.strip() for name, v in query if name == "kinds" for k in v.split(",") if k.strip())
    unknown = sorted(kinds - set(KINDS))
    if unknown:
        raise TargetError(f"{where}: unknown kind {unknown[0]!r} in kinds= (known: {', '.join(KINDS)})")
    rest = [(k, v) for k, v in query if k != "kinds"]
    bare = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(rest), parts.fragment))
    if scheme in ("ntfy", "ntfys"):
        return _ntfy(parts, rest, bare, kinds, where)
    if scheme == "pagerduty":
        return _pagerduty(parts, rest, bare, kinds, where)
    shown = f"{scheme} {parts.hostname}" if scheme in HOST_SHOWN and parts.hostname else scheme
    return Target(scheme, shown, kinds, bare, path=parts.path if scheme in HOST_SHOWN else parts.netloc + parts.path)


def _ntfy(parts, query, bare, kinds, where) -> Target:
    topic = parts.path.strip("/")
    if not parts.hostname:
        raise TargetError(f"{where}: no server (ntfy://host/topic)")
    if not topic or "/" in topic:
        raise TargetError(f"{where}: expected one topic after the server (ntfy://host/topic)")
    token = dict(query).get("token", "")
    auth = ("bearer", token) if token else ("basic", parts.username or "", parts.password or "") \
        if parts.username else ()
    http = "https" if parts.scheme.lower() == "ntfys" else "http"
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    base = f"{http}://{host}" + (f":{parts.port}" if parts.port else "")
    return Target(parts.scheme.lower(), f"ntfy {parts.hostname}", kinds, bare, base, topic, auth)


def _pagerduty(parts, query, bare, kinds, where) -> Target:
    key = parts.netloc
    if not key or not all(c.isalnum() or c in "-_" for c in key):
        raise TargetError(f"{where}: expected pagerduty://ROUTING_KEY (letters and digits)")
    events = dict(query).get("events_url", PAGERDUTY_EVENTS_URL)
    e = urlsplit(events)
    if e.scheme not in ("http", "https") or not e.hostname:
        raise TargetError(f"{where}: events_url is not an http(s) URL")
    return Target("pagerduty", "pagerduty", kinds, bare, events, key)


def check_with_apprise(targets: list[Target], setting: str = "page_urls") -> None:
    """The entries left to apprise, each known to it (TargetError otherwise): at `watch`'s and
    `doctor`'s start, where importing apprise costs nothing the panel waits for."""
    left = [(i, t) for i, t in enumerate(targets, 1) if t.scheme not in ("ntfy", "ntfys", "pagerduty")]
    if not left:
        return
    import apprise

    for i, t in left:
        if apprise.Apprise.instantiate(t.url) is None:
            raise TargetError(f"{setting}: entry {i} (scheme {t.scheme!r}): not a URL apprise can send to")
