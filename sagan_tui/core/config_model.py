"""The one settings type, `Settings` (pydantic), validated once from the gathered layers.

config.py gathers the layers (and holds the rules) without pydantic; `validate` makes a Draft
Settings, naming the setting that is wrong (never its value); `load_settings` is both steps.
This module imports config, never the other way; a UI reads `Settings.ui()`, plain values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Mapping

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from sagan_tui.wire.config import (  # noqa: F401 - SETTING_NAMES, ConfigError, gather: for the callers that validate
    BOUNDS, SETTING_NAMES, ConfigError, Draft, UiSettings, account_specs, check_cache_path,
    check_text as _text, default_cache_path, disabled_reason, gather,
)

# `auto`: pods, balance and actions over REST v2, machines from GraphQL while it answers (RunPod
# retires GraphQL in early 2027); `rest-v2`: REST v2 alone (no machines); `graphql`: the old way.
Transport = Literal["auto", "rest-v2", "graphql"]


def _bounded(default: float, name: str, description: str) -> Any:
    """A finite number within BOUNDS[name] (config.py holds them, pydantic-free, for the first frame)."""
    low, high = BOUNDS[name]
    return Field(default, description=description, ge=low, le=high, allow_inf_nan=False)


def _url(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    from urllib.parse import urlsplit

    _text(value, "the URL", 2048)
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises for a port that is not a number
    except ValueError as exc:
        raise ValueError(f"not a valid URL ({exc})") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("not an http(s) URL with a host (e.g. https://sagan.example.org)")
    if any(c.isspace() for c in value):
        raise ValueError("the URL contains a space")
    return value


def _secret(value: Any, what: str) -> Any:
    """Keys travel in an HTTP header: a newline or a byte that is not UTF-8 would fail every
    request with a misleading error ("unreachable", "bad-json"), so it is refused here."""
    text = value.get_secret_value() if isinstance(value, SecretStr) else value
    if isinstance(text, str):
        _text(text.strip(), what, 4096)
        if any(ord(c) > 126 for c in text):
            raise ValueError(f"{what} holds a character outside printable ASCII (a copy-paste error?)")
    return value


class AccountConfig(BaseModel):
    """One RunPod account: its key and which of RunPod's APIs to speak."""

    name: str
    api_key: SecretStr | None = None
    transport: Transport = "auto"

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        import re

        _text(v, "the account name", 64)
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", v):
            raise ValueError("an account name is letters, digits, '_', '-' and '.' (it names an environment variable)")
        return v

    @field_validator("api_key", mode="before")
    @classmethod
    def _key(cls, v: Any) -> Any:
        return _secret(v, "the key")

    @property
    def enabled(self) -> bool:
        # An empty key must disable the account: the runpod SDK would silently fall back
        # to its process-wide key, which may belong to the other account.
        return self.api_key is not None and bool(self.api_key.get_secret_value().strip())

    @property
    def disabled_reason(self) -> str | None:
        return None if self.enabled else disabled_reason(self.name)

    def key(self) -> str:
        """The key, only for the transport's Authorization header."""
        if not self.enabled:
            raise RuntimeError(self.disabled_reason)
        assert self.api_key is not None
        return self.api_key.get_secret_value().strip()


class Settings(BaseModel):
    """Everything the panel, `sync`, `doctor` and the reports are configured with.

    A plain model, built only by `validate` / `load_settings` from config.gather's layers:
    pydantic-settings would layer the sources itself, for no feature used here.
    """

    model_config = ConfigDict(extra="ignore", validate_default=True)

    sagan_base_url: str = Field("http://127.0.0.1:8700", description="Sagan's API base URL.")
    sagan_api_token: SecretStr | None = Field(None, description="Bearer token for Sagan.")
    runpod_api_base_url: str = Field("https://api.runpod.io", description="RunPod API base (GraphQL at /graphql).")
    runpod_rest_base_url: str | None = Field(None, description="RunPod REST v2 base (routes /v2/...); defaults to runpod_api_base_url.")
    sagan_tui_cache: Path | None = Field(None, description="The SQLite cache file.")
    poll_interval: float = _bounded(5.0, "poll_interval", "Seconds between polls.")
    request_timeout: float = _bounded(10.0, "request_timeout", "Seconds before one request is given up (the whole request, however slowly it trickles).")
    max_reply_mb: float = _bounded(64.0, "max_reply_mb", "A reply larger than this many MB is abandoned unread.")
    read_only: bool = Field(False, description="Refuse every mutating action.")
    guard_minutes: float = _bounded(15.0, "guard_minutes", "A wave is active this long after its last loss.")
    horizon_minutes: float = _bounded(30.0, "horizon_minutes", "Lone losses killed at one time after RUNNING "
                                      "chain into one wave (a slow burn) while each comes within this many "
                                      "minutes of the last; 0 turns it off.")
    away_minutes: float = _bounded(10.0, "away_minutes", "No key this many minutes is an absence: the wave "
                                   "panel then counts what happened since (\"since you last looked\").")
    notice_seconds: float = _bounded(10.0, "notice_seconds", "Seconds a notification stays in the panel's "
                                     "notification area (the incident's stays until acknowledged; ctrl+l "
                                     "clears them all).")
    bell: bool = Field(True, description="Deprecated (use notify): false is notify = \"off\" unless notify is set.")
    color_system: Literal["auto", "256", "truecolor", "standard"] = Field("auto", description="Colours when TERM says too little.")
    mouse: bool = Field(True, description="Ask the terminal for mouse events.")
    events_retention_days: float = _bounded(30.0, "events_retention_days",
                                            "Events older than this are pruned from the cache.")
    observations_retention_days: float = _bounded(14.0, "observations_retention_days",
                                                  "Pod observations older than this are pruned.")
    accounts: dict[str, AccountConfig] = Field(default_factory=dict, description="RunPod accounts by name.")
    # --- the owner's terminal (panel/notify.py, keymap.py, runway.py) ---
    notify: Literal["bell", "osc9", "osc777", "osc99", "off"] = Field(
        "bell", description="How a new owner-turn item, a new wave or a short runway reaches the terminal.")
    runway_warn_hours: float = Field(12.0, ge=0, le=24 * 365, allow_inf_nan=False,
                                     description="Warn when an account's balance lasts less (0: never).")
    keymap: dict[str, str] = Field(default_factory=dict, description="Binding id -> keys, e.g. panel.quit = \"ctrl+q\".")
    # --- `sagan-tui watch` (pages/, core/actions/auto_contain.py; docs/watch.md) ---
    page_urls: list[SecretStr] = Field(default_factory=list, description=(
        "Where watch pages go: ntfy(s)://host/topic, pagerduty://ROUTING_KEY, or any apprise URL, each "
        "optionally ending in kinds=wave,withdrawn (environment: separated by spaces). Secrets."))
    auto_contain: list[str] = Field(default_factory=list, description=(
        "Rules cause:min_confidence (e.g. platform-reaper:medium) under which watch holds a wave's "
        "experiments and stops their starting and doomed pods (the containment of W), once per wave; "
        "empty: never."))
    deadman_url: SecretStr | None = Field(None, description=(
        "watch's dead-man's switch: an ntfy(s):// topic for a scheduled message it keeps pushing back, "
        "or an http(s) heartbeat URL it pings. A secret."))
    deadman_minutes: float = _bounded(10.0, "deadman_minutes", "The dead-man's message fires this long after "
                                      "watch's last check-in.")
    blind_polls: int = Field(3, ge=1, le=10000, description="Failed polls of a source before watch pages that "
                             "it cannot see it.")

    @field_validator("keymap", mode="before")
    @classmethod
    def _keymap(cls, v: Any) -> Any:
        from sagan_tui.wire.keymap import check_keymap

        return check_keymap(v)  # a KeymapError names the entry; nothing is half-applied

    @model_validator(mode="after")
    def _bell_is_notify_off(self) -> "Settings":
        # The older `bell = false` (and --no-bell) still silences the panel when notify is not set.
        if not self.bell and "notify" not in self.model_fields_set:
            self.notify = "off"
        return self

    @field_validator("sagan_base_url", "runpod_api_base_url", "runpod_rest_base_url", mode="before")
    @classmethod
    def _urls(cls, v: Any) -> Any:
        return _url(v)

    @field_validator("sagan_api_token", mode="before")
    @classmethod
    def _token(cls, v: Any) -> Any:
        return _secret(v, "the token")

    @field_validator("sagan_tui_cache", mode="before")
    @classmethod
    def _cache(cls, v: Any) -> Any:
        if isinstance(v, (str, Path)):
            check_cache_path(str(v))
        return v

    @field_validator("accounts", mode="before")
    @classmethod
    def _accounts(cls, v: Any) -> Any:
        # The file may say `[accounts.team] api_key = "..."` or `accounts = {team = "key"}`.
        return {name: {**spec, "name": name} for name, spec in account_specs(v).items()}

    @field_validator("page_urls", mode="before")
    @classmethod
    def _page_urls(cls, v: Any) -> Any:
        from sagan_tui.core.pages.targets import parse_targets, split_urls

        urls = split_urls(v)
        try:
            parse_targets(urls)
        except ValueError as exc:  # names the entry and its scheme, never the URL
            raise ValueError(str(exc).removeprefix("page_urls: ")) from None
        return urls

    @field_validator("deadman_url", mode="before")
    @classmethod
    def _deadman_url(cls, v: Any) -> Any:
        from sagan_tui.core.pages.deadman import parse_deadman

        text = v.get_secret_value() if isinstance(v, SecretStr) else v
        if isinstance(text, str) and text.strip():
            try:
                parse_deadman(text.strip())
            except ValueError as exc:
                raise ValueError(str(exc).removeprefix("deadman_url: ")) from None
            return text.strip()
        return None

    @field_validator("auto_contain", mode="before")
    @classmethod
    def _auto_contain(cls, v: Any) -> Any:
        from sagan_tui.core.actions.auto_rules import parse_rules

        return [r.text for r in parse_rules(v)]

    def page_targets(self) -> list:
        from sagan_tui.core.pages.targets import parse_targets

        return parse_targets([u.get_secret_value() for u in self.page_urls])

    @property
    def cache_path(self) -> Path:
        return self.sagan_tui_cache or default_cache_path()

    @property
    def max_reply_bytes(self) -> int:
        return int(self.max_reply_mb * 1024 * 1024)

    @property
    def rest_base_url(self) -> str:
        if self.runpod_rest_base_url:
            return self.runpod_rest_base_url.rstrip("/")
        # REST v2 lives beside GraphQL on api.runpod.io under /v2 (rest.runpod.io was the retired v1),
        # so one base serves both, and a simulator serving both answers both.
        return self.runpod_api_base_url.rstrip("/")

    def secrets(self) -> list[str]:
        """Every configured secret, for redaction and for the tests that grep artefacts."""
        out = []
        if self.sagan_api_token and self.sagan_api_token.get_secret_value():
            out.append(self.sagan_api_token.get_secret_value())
        for acc in self.accounts.values():
            if acc.enabled:
                out.append(acc.key())
        from sagan_tui.wire.config import page_secrets

        out += page_secrets([u.get_secret_value() for u in self.page_urls],
                            self.deadman_url.get_secret_value() if self.deadman_url else None)
        return out

    def as_draft(self) -> Draft:
        """These settings as layers again (the values given, secrets in clear), for a session
        process to validate: a caller that built Settings itself (a test, an embedding) starts
        the panel in process mode with them as the `sagan-tui` command does with its Draft."""
        def plain(value: Any) -> Any:
            if isinstance(value, SecretStr):
                return value.get_secret_value()
            return str(value) if isinstance(value, Path) else value

        values = {name: plain(getattr(self, name)) for name in self.model_fields_set if name != "accounts"}
        accounts = {name: {k: plain(getattr(acc, k)) for k in acc.model_fields_set if k != "name"}
                    for name, acc in self.accounts.items()}
        return Draft(values, accounts)

    def ui(self) -> UiSettings:
        """The plain values a UI reads (config.UiSettings)."""
        return UiSettings(cache_path=self.cache_path, poll_interval=self.poll_interval, read_only=self.read_only,
                          guard_minutes=self.guard_minutes, color_system=self.color_system, mouse=self.mouse,
                          notify=self.notify, runway_warn_hours=self.runway_warn_hours,
                          notice_seconds=self.notice_seconds, keymap=tuple(self.keymap.items()), secrets=tuple(self.secrets()),
                          request_timeout=self.request_timeout)


def validate(draft: Draft) -> Settings:
    """The Settings a Draft's values make; ConfigError naming the setting (never its value)."""
    try:
        base = Settings.model_validate({k: v for k, v in draft.values.items() if k != "accounts"})
    except Exception as exc:
        raise ConfigError(_explain(exc, origins=draft.origins)) from None
    accounts = {}
    for name, spec in draft.accounts.items():
        try:
            accounts[name] = AccountConfig.model_validate({**spec, "name": name})
        except Exception as exc:
            raise ConfigError(_explain(exc, f"accounts.{_printable(name)}.",
                                       {k.removeprefix(f"accounts.{name}."): v for k, v in draft.origins.items()
                                        if k.startswith(f"accounts.{name}.")})) from None
    return base.model_copy(update={"accounts": accounts})


def load_settings(environ: Mapping[str, str] | None = None, **flags: Any) -> tuple[Settings, list[str]]:
    """Settings and the warnings worth telling the user (disabled accounts, open perms): `gather`
    then `validate`."""
    draft = gather(environ, **flags)
    return validate(draft), draft.warnings


def _printable(name: str, limit: int = 40) -> str:
    """A name as it can be printed: bytes that are not UTF-8 escaped, control characters too, cut short."""
    text = name.encode("utf-8", "backslashreplace").decode("ascii", "backslashreplace")
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit] + "..."


def _explain(exc: Exception, prefix: str = "", origins: Mapping[str, str] | None = None) -> str:
    """Each error as `setting: what is wrong (set by <layer>)`: the layer says where to mend it."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        parts = []
        for e in errors():
            loc = ".".join(str(p) for p in e.get("loc", ()))
            msg = str(e.get("msg", "")).removeprefix("Value error, ")
            origin = (origins or {}).get(loc)
            by = f" (set by {origin})" if origin else ""
            parts.append(f"{prefix}{loc}: {msg}{by}")  # never the input: it may be a secret
        return "invalid configuration: " + "; ".join(parts)
    return f"invalid configuration: {type(exc).__name__}"
