"""The settings' layers, gathered: flags over environment over the TOML file in the user config dir over defaults.

This module imports no pydantic and nothing of the panel: `gather` layers the sources into a
`Draft` (the values as given, not a settings type), and the one settings type, `Settings`, is
made from it once by `config_model.validate` (pydantic). The rules both sides share (the bounds,
the text and path checks) live here, so the dependency runs one way: config_model -> config.
`UiSettings` is the plain, frozen subset a UI reads (no pydantic, no secrets' wrappers): made
from validated Settings (`Settings.ui()`), or, for a frame drawn before the validation has run,
from a Draft (`Draft.ui()`), where a value the validation would refuse reads as its default.
"""

from __future__ import annotations

import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import platformdirs

APP_NAME = "sagan-tui"
DEFAULT_ACCOUNTS = ("team", "personal")
KEY_ENV_PREFIX = "RUNPOD_API_KEY_"
TRANSPORT_ENV_PREFIX = "RUNPOD_TRANSPORT_"
# Every setting Settings has (tests/test_config.py holds the two lists equal).
SETTING_NAMES = (
    "sagan_base_url", "sagan_api_token", "runpod_api_base_url", "runpod_rest_base_url", "sagan_tui_cache",
    "poll_interval", "request_timeout", "max_reply_mb", "read_only", "guard_minutes", "horizon_minutes", "away_minutes", "notice_seconds", "bell", "color_system", "mouse",
    "events_retention_days", "observations_retention_days", "accounts",
    "notify", "runway_warn_hours", "keymap",
    "page_urls", "auto_contain", "deadman_url", "deadman_minutes", "blind_polls",
)
# The command line's flag of each setting a flag sets (cli.py), named in an error about its value.
FLAGS = {"sagan_tui_cache": "--cache", "poll_interval": "--poll-interval", "read_only": "--read-only",
         "mouse": "--no-mouse", "bell": "--no-bell", "color_system": "--color"}
# DESIGN.md's names; every other setting is SAGAN_TUI_<NAME> (e.g. SAGAN_TUI_POLL_INTERVAL).
DIRECT_ENV = {"sagan_base_url", "sagan_api_token", "runpod_api_base_url", "runpod_rest_base_url", "sagan_tui_cache"}
COLOR_SYSTEMS = ("auto", "256", "truecolor", "standard")
NOTIFY_MODES = ("bell", "osc9", "osc777", "osc99", "off")
# (lowest, highest) of each numeric setting; config_model.Settings checks them, and Draft.ui()
# reads a value outside them as its default (so nothing acts on it before that check).
BOUNDS = {
    "poll_interval": (0.5, 3600.0),  # seconds: faster hammers the APIs, slower is not watching
    "request_timeout": (0.1, 600.0),
    "max_reply_mb": (0.01, 4096.0),
    "guard_minutes": (0.0, 7 * 24 * 60.0),
    # minutes across which lone losses of one kill time chain into one slow-burn wave: 0 turns it
    # off; past a day, unrelated losses of a common kill time would join a month-long "wave"
    "horizon_minutes": (0.0, 24 * 60.0),
    # minutes without a key that make an absence (the wave panel's "since you last looked"):
    # under a minute every pause to read would count; over a day the line would never show
    "away_minutes": (1.0, 24 * 60.0),
    # seconds a notification stays: under two it cannot be read; past ten minutes it is furniture
    "notice_seconds": (2.0, 600.0),
    "events_retention_days": (1.0, 36500.0),  # under a day would prune the incident being looked at
    "observations_retention_days": (1.0, 36500.0),
    # watch's dead-man's switch: under a minute it fires between two slow polls; a day is no switch
    "deadman_minutes": (1.0, 24 * 60.0),
    "blind_polls": (1.0, 10000.0),  # polls a source may fail before watch pages that it is blind
}
ACCOUNT_KEYS = ("api_key", "transport")
# What pydantic reads as a boolean, so the first frame reads a flag as the validated setting will.
_TRUE, _FALSE = {"1", "true", "t", "yes", "y", "on"}, {"0", "false", "f", "no", "n", "off"}


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The TOML file: $SAGAN_TUI_CONFIG, else config.toml in the platform's user config dir."""
    override = (os.environ if environ is None else environ).get("SAGAN_TUI_CONFIG")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_cache_path() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "cache.sqlite"


# Where `--demo` keeps its exports (its own temporary directory): a demo's made-up incident must
# never land among the owner's real tickets (#44).
DATA_DIR_ENV = "SAGAN_TUI_DATA_DIR"


def data_dir() -> Path:
    """Where exported reports go: $SAGAN_TUI_DATA_DIR, else the platform's user data dir."""
    override = os.environ.get(DATA_DIR_ENV)
    return Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME))


class ConfigError(ValueError):
    """A setting is wrong; the message names it (never its secret value)."""


def disabled_reason(name: str) -> str:
    return (f"account {name!r} disabled: no API key "
            f"(set {KEY_ENV_PREFIX}{name.upper()} or accounts.{name}.api_key)")


def account_specs(value: Any) -> dict[str, dict[str, Any]]:
    """Accounts as `{name: {"api_key": .., "transport": ..}}`: the file may say
    `[accounts.team] api_key = "..."` or `accounts = {team = "key"}`."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"accounts: expected a table of accounts by name, got {type(value).__name__}")
    out: dict[str, dict[str, Any]] = {}
    for name, spec in value.items():
        if hasattr(spec, "model_dump"):  # an AccountConfig
            spec = spec.model_dump()
        out[str(name)] = dict(spec) if isinstance(spec, Mapping) else {"api_key": spec}
    return out


def _secret_text(value: Any) -> str:
    text = value.get_secret_value() if hasattr(value, "get_secret_value") else value
    return text.strip() if isinstance(text, str) else ""


def page_secrets(page_urls: Any, deadman_url: Any) -> list[str]:
    """The page URLs (`page_urls`, `deadman_url`) and their parts that may be keys (user, password,
    host of a token-as-host URL, path, query values), for redaction. Plain urllib, so a UI that
    redacts with these never imports the pages package."""
    from urllib.parse import parse_qsl, urlsplit

    def texts(value: Any) -> list[str]:
        if not value:
            return []
        if isinstance(value, str):
            return value.split()
        return [_secret_text(v) for v in value] if isinstance(value, (list, tuple)) else [_secret_text(value)]

    out = []
    for url in texts(page_urls) + texts(deadman_url):
        out.append(url)
        try:
            parts = urlsplit(url)
            pieces = [parts.username, parts.password, parts.path, parts.path.strip("/"),
                      *(v for _, v in parse_qsl(parts.query))]
            if parts.scheme not in ("ntfy", "ntfys", "http", "https", "json", "jsons", "form", "forms", "xml", "xmls"):
                pieces.append(parts.netloc)  # slack://TOKEN/..., pagerduty://KEY: the "host" is a key
        except ValueError:
            continue
        out += [p for p in pieces if p and len(p) >= 4]
    return out


def check_text(value: str, what: str, limit: int) -> str:
    """Refuse text no request header or file name can carry (ValueError, never repeating the value)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what} is not valid UTF-8") from None
    if len(value) > limit:
        raise ValueError(f"{what} is longer than {limit} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise ValueError(f"{what} contains a newline or another control character")
    return value


def check_cache_path(text: str) -> None:
    """The file system's own limits, said before SQLite says "unable to open database file"."""
    check_text(text, "the path", 4096)
    if any(len(part.encode("utf-8")) > 255 for part in Path(text).expanduser().parts):
        raise ValueError("a part of the path is longer than 255 bytes")


def check_cache_dir(text: str) -> None:
    """A cache path the owner set must name a file in a directory that is there: a missing one is
    more likely a typo than a wish for a new tree of directories, so none is made (#44)."""
    parent = Path(text).expanduser().parent
    try:
        if parent.is_dir():
            return
        exists = parent.exists()
    except OSError as exc:
        raise ValueError(f"its directory {parent}: {exc.strerror or type(exc).__name__}") from None
    why = "is not a directory (ENOTDIR)" if exists else "does not exist (ENOENT)"
    raise ValueError(f"its directory {parent} {why}; create it, or give another path")


def _unknown(key: str, known: tuple[str, ...], where: str) -> str:
    import difflib  # only when a key is unknown

    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else f" (known: {', '.join(known)})"
    return f"{where}: unknown setting {key!r} ignored{hint}"


def config_problem(environ: Mapping[str, str] | None = None) -> str | None:
    """Why the config file cannot be read as one (a directory, a device), or None: said by every
    command, never read as "no file" (#46: `sync` once ignored a directory)."""
    path = config_path(environ)
    try:
        if not path.exists() or path.is_file():
            return None
    except OSError as exc:
        return f"config file {path}: {exc.strerror or type(exc).__name__}"
    what = "a directory" if path.is_dir() else "not a regular file"
    named = "SAGAN_TUI_CONFIG names" if (os.environ if environ is None else environ).get("SAGAN_TUI_CONFIG") \
        else "the config file is"
    return f"{named} {path}, which is {what}: give the path of a TOML file"


def _read_toml(path: Path, warnings: list[str]) -> dict[str, Any]:
    """The config file's settings; an unknown key is dropped with a warning naming the closest
    known one; a malformed file is a clear error."""
    if not path.is_file():
        return {}
    import tomllib  # only when there is a file to read

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path}: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"config file {path}: cannot read it: {exc.strerror or exc}") from None
    warnings += [_unknown(k, SETTING_NAMES, f"config file {path}") for k in data if k not in SETTING_NAMES]
    accounts = data.get("accounts")
    if isinstance(accounts, Mapping):
        for name, spec in accounts.items():
            if isinstance(spec, Mapping):
                warnings += [_unknown(k, ACCOUNT_KEYS, f"config file {path}: [accounts.{name}]")
                             for k in spec if k not in ACCOUNT_KEYS]
    return {k: v for k, v in data.items() if k in SETTING_NAMES}


def _env_accounts(environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for var, value in environ.items():
        upper = var.upper()
        for prefix, key in ((KEY_ENV_PREFIX, "api_key"), (TRANSPORT_ENV_PREFIX, "transport")):
            if upper.startswith(prefix) and len(upper) > len(prefix):
                out.setdefault(upper[len(prefix):].lower(), {})[key] = value
    return out


@dataclass(frozen=True)
class UiSettings:
    """What a UI reads of the settings, as plain values: no pydantic type, safe to send to another
    process. `secrets` are the texts the UI redacts from what it shows, never shown themselves."""

    cache_path: Path
    poll_interval: float = 5.0
    read_only: bool = False
    guard_minutes: float = 15.0
    color_system: str = "auto"
    mouse: bool = True
    notify: str = "bell"
    runway_warn_hours: float = 12.0
    notice_seconds: float = 10.0  # a notification's time in the notification area
    keymap: tuple[tuple[str, str], ...] = ()  # (binding id, keys), as Settings.keymap holds them
    secrets: tuple[str, ...] = ()
    request_timeout: float = 10.0  # the status line says a poll is slow past this


class Draft:
    """The settings' layers as gathered: values as given, not yet validated.

    `config_model.validate` makes them Settings, once. A frame drawn before that reads the few
    values it needs through `ui()` and the properties below, leniently (a value that will not
    validate reads as its default: the validation then stops the panel with the error). Not a
    dataclass: every command's start makes this class, and a dataclass compiles its generated
    methods when it is made (docs/performance.md, `start_to_first_frame`).
    """

    def __init__(self, values: dict[str, Any], accounts: dict[str, dict[str, Any]],
                 warnings: list[str] | None = None, origins: dict[str, str] | None = None) -> None:
        self.values = values  # the file's settings, then the environment's and the flags' over them
        self.accounts = accounts  # by name, each merged the same way (keys as given)
        self.warnings: list[str] = [] if warnings is None else warnings
        # The layer that set each value ("accounts.team.api_key" for an account's), for an error to
        # name where to mend it: "the environment's SAGAN_TUI_CACHE", "config file PATH", "flag --cache".
        self.origins: dict[str, str] = {} if origins is None else origins

    def check_cache_path(self) -> None:
        """ConfigError if the cache path cannot be a file: the first frame reads that path
        before the validation (the one other check of it) runs."""
        value = self.values.get("sagan_tui_cache")
        if isinstance(value, (str, Path)) and str(value):
            try:
                check_cache_path(str(value))
            except ValueError as exc:
                raise ConfigError(f"invalid configuration: sagan_tui_cache: {exc}") from None

    def check_cache_dir(self) -> None:
        """ConfigError, naming the layer that set it, if the owner's cache path lies in a directory
        that is not there: the commands refuse it before anything would make it (#44)."""
        self.check_cache_path()  # a path too long to be a file is said as that, before its directory
        value = self.values.get("sagan_tui_cache")
        if isinstance(value, (str, Path)) and str(value):
            try:
                check_cache_dir(str(value))
            except ValueError as exc:
                origin = self.origins.get("sagan_tui_cache")
                by = f" (set by {origin})" if origin else ""
                raise ConfigError(f"invalid configuration: sagan_tui_cache: {exc}{by}") from None

    # --- lenient reads, for the first frame ------------------------------------------------

    @property
    def cache_path(self) -> Path:
        value = self.values.get("sagan_tui_cache")
        return Path(value) if isinstance(value, (str, Path)) and str(value) else default_cache_path()

    @property
    def poll_interval(self) -> float:
        return self._number("poll_interval", 5.0, BOUNDS["poll_interval"])

    @property
    def read_only(self) -> bool:
        return self._flag("read_only", False)

    @property
    def bell(self) -> bool:
        return self._flag("bell", True)

    @property
    def mouse(self) -> bool:
        return self._flag("mouse", True)

    @property
    def color_system(self) -> str:
        value = self.values.get("color_system", "auto")
        return value if value in COLOR_SYSTEMS else "auto"

    @property
    def notify(self) -> str:
        value = self.values.get("notify")
        if value in NOTIFY_MODES:
            return value
        return "off" if not self.bell else "bell"  # the older `bell = false`, as Settings reads it

    @property
    def runway_warn_hours(self) -> float:
        return self._number("runway_warn_hours", 12.0, (0.0, 24 * 365.0))

    @property
    def guard_minutes(self) -> float:
        return self._number("guard_minutes", 15.0, BOUNDS["guard_minutes"])

    @property
    def away_minutes(self) -> float:
        return self._number("away_minutes", 10.0, BOUNDS["away_minutes"])

    @property
    def notice_seconds(self) -> float:
        return self._number("notice_seconds", 10.0, BOUNDS["notice_seconds"])

    def ui(self) -> UiSettings:
        """The UI's values, read leniently: `keymap` only when every entry is valid (else none,
        and the validation names the bad one)."""
        from sagan_tui.wire.keymap import KeymapError, check_keymap

        try:
            keymap = tuple(check_keymap(self.values.get("keymap") or {}).items())
        except KeymapError:
            keymap = ()
        return UiSettings(cache_path=self.cache_path, poll_interval=self.poll_interval, read_only=self.read_only,
                          guard_minutes=self.guard_minutes, color_system=self.color_system, mouse=self.mouse,
                          notify=self.notify, runway_warn_hours=self.runway_warn_hours, keymap=keymap,
                          notice_seconds=self.notice_seconds,
                          secrets=tuple(self.secrets()))

    def _number(self, name: str, default: float, bounds: tuple[float, float]) -> float:
        try:
            value = float(self.values.get(name, default))
        except (TypeError, ValueError):
            return default
        return value if math.isfinite(value) and bounds[0] <= value <= bounds[1] else default

    def secrets(self) -> list[str]:
        """What Settings.secrets() will be: the token and every key that enables its account."""
        texts = [_secret_text(self.values.get("sagan_api_token"))]
        texts += [_secret_text(spec.get("api_key")) for spec in self.accounts.values()]
        texts += page_secrets(self.values.get("page_urls"), self.values.get("deadman_url"))
        return [t for t in texts if t]

    def _flag(self, name: str, default: bool) -> bool:
        value = self.values.get(name, default)
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        return True if text in _TRUE else False if text in _FALSE else default


def gather(environ: Mapping[str, str] | None = None, **flags: Any) -> Draft:
    """The layers, lowest first: defaults, the TOML file, the environment, flags (None means unset).

    `environ` stands in for os.environ (tests and --demo pass the simulator's), never mutated.
    Accounts merge per name: file, then RUNPOD_API_KEY_<NAME> / RUNPOD_TRANSPORT_<NAME>, then
    flags. A malformed file is a ConfigError here; a bad value is one at `config_model.validate`.
    """
    env = dict(os.environ if environ is None else environ)
    warnings: list[str] = []
    problem = config_problem(env)
    if problem:
        raise ConfigError(problem)
    path = config_path(env)
    if path.is_file():
        mode = path.stat().st_mode
        if mode & (stat.S_IRGRP | stat.S_IROTH):
            warnings.append(f"config file {path} is readable by others (chmod 600 it): it may hold keys")
    values = _read_toml(path, warnings)  # beneath the environment and the flags
    origins = {k: f"config file {path}" for k in values}
    file_accounts = account_specs(values.pop("accounts", None))
    for name in SETTING_NAMES:
        var = name.upper() if name in DIRECT_ENV else f"SAGAN_TUI_{name.upper()}"
        if name != "accounts" and env.get(var, "") != "":
            values[name], origins[name] = env[var], f"the environment's {var}"
    for k, v in flags.items():
        if v is not None and k != "accounts":
            values[k], origins[k] = v, f"flag {FLAGS[k]}" if k in FLAGS else "the command line"
    accounts: dict[str, dict[str, Any]] = {n: {} for n in DEFAULT_ACCOUNTS}
    for name, spec in file_accounts.items():
        given = {k: v for k, v in spec.items() if v is not None}
        accounts.setdefault(name, {}).update(given)
        origins.update({f"accounts.{name}.{k}": f"config file {path}" for k in given})
    for name, spec in _env_accounts(env).items():
        accounts.setdefault(name, {}).update(spec)
        origins.update({f"accounts.{name}.{k}": "the environment's "
                        + (KEY_ENV_PREFIX if k == "api_key" else TRANSPORT_ENV_PREFIX) + name.upper() for k in spec})
    for name, spec in (flags.get("accounts") or {}).items():
        accounts.setdefault(name, {}).update(spec if isinstance(spec, dict) else {"api_key": spec})
    warnings += [disabled_reason(name) for name, spec in accounts.items() if not _secret_text(spec.get("api_key"))]
    return Draft(values, accounts, warnings, origins)
