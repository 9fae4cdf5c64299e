"""Settings: flags over environment over the TOML file in the user config dir over defaults."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path
from typing import Any, Literal, Mapping

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

APP_NAME = "sagan-tui"
DEFAULT_ACCOUNTS = ("team", "personal")
KEY_ENV_PREFIX = "RUNPOD_API_KEY_"
TRANSPORT_ENV_PREFIX = "RUNPOD_TRANSPORT_"
# DESIGN.md's names; every other setting is SAGAN_TUI_<NAME> (e.g. SAGAN_TUI_POLL_INTERVAL).
DIRECT_ENV = {"sagan_base_url", "sagan_api_token", "runpod_api_base_url", "runpod_rest_base_url", "sagan_tui_cache"}
Transport = Literal["graphql", "rest-v2"]


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """The TOML file: $SAGAN_TUI_CONFIG, else config.toml in the platform's user config dir."""
    override = (os.environ if environ is None else environ).get("SAGAN_TUI_CONFIG")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir(APP_NAME)) / "config.toml"


def default_cache_path() -> Path:
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "cache.sqlite"


def data_dir() -> Path:
    """Where exported reports go."""
    return Path(platformdirs.user_data_dir(APP_NAME))


class AccountConfig(BaseModel):
    """One RunPod account: its key and which of RunPod's APIs to speak."""

    name: str
    api_key: SecretStr | None = None
    transport: Transport = "graphql"

    @property
    def enabled(self) -> bool:
        # An empty key must disable the account: the runpod SDK would silently fall back
        # to its process-wide key, which may belong to the other account.
        return self.api_key is not None and bool(self.api_key.get_secret_value().strip())

    @property
    def disabled_reason(self) -> str | None:
        if self.enabled:
            return None
        return (f"account {self.name!r} disabled: no API key "
                f"(set {KEY_ENV_PREFIX}{self.name.upper()} or accounts.{self.name}.api_key)")

    def key(self) -> str:
        """The key, only for the transport's Authorization header."""
        if not self.enabled:
            raise RuntimeError(self.disabled_reason)
        assert self.api_key is not None
        return self.api_key.get_secret_value().strip()


def _read_toml(path: Path) -> dict[str, Any]:
    """The config file's settings (unknown keys dropped); a malformed file is a clear error."""
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path}: {exc}") from None
    return {k: v for k, v in data.items() if k in Settings.model_fields}


class ConfigError(ValueError):
    """A setting is wrong; the message names it (never its secret value)."""


class Settings(BaseModel):
    """Everything the panel, `sync`, `doctor` and the reports are configured with.

    A plain model, built only by load_settings, which layers the sources itself: the panel's
    first frame waits on this import, and pydantic-settings cost 0.1-0.2 s of it for no feature
    used here (the environment is read from the mapping load_settings is given).
    """

    model_config = ConfigDict(extra="ignore", validate_default=True)

    sagan_base_url: str = Field("http://127.0.0.1:8700", description="Sagan's API base URL.")
    sagan_api_token: SecretStr | None = Field(None, description="Bearer token for Sagan.")
    runpod_api_base_url: str = Field("https://api.runpod.io", description="RunPod API base (GraphQL at /graphql).")
    runpod_rest_base_url: str | None = Field(None, description="RunPod REST v2 base (routes /v2/...); defaults to runpod_api_base_url.")
    sagan_tui_cache: Path | None = Field(None, description="The SQLite cache file.")
    poll_interval: float = Field(5.0, description="Seconds between polls.", gt=0)
    request_timeout: float = Field(10.0, description="Seconds before one request is given up.", gt=0)
    read_only: bool = Field(False, description="Refuse every mutating action.")
    guard_minutes: float = Field(15.0, description="A wave is active this long after its last loss.")
    bell: bool = Field(True, description="Ring the terminal bell on a new owner-turn item or wave.")
    color_system: Literal["auto", "256", "truecolor", "standard"] = Field("auto", description="Colours when TERM says too little.")
    mouse: bool = Field(True, description="Ask the terminal for mouse events.")
    events_retention_days: float = Field(30.0, description="Events older than this are pruned from the cache.")
    observations_retention_days: float = Field(14.0, description="Pod observations older than this are pruned.")
    accounts: dict[str, AccountConfig] = Field(default_factory=dict, description="RunPod accounts by name.")

    @field_validator("accounts", mode="before")
    @classmethod
    def _accounts(cls, v: Any) -> Any:
        # The file may say `[accounts.team] api_key = "..."` or `accounts = {team = "key"}`.
        out: dict[str, Any] = {}
        for name, spec in (v or {}).items():
            if isinstance(spec, (str, SecretStr)) or spec is None:
                spec = {"api_key": spec}
            elif isinstance(spec, AccountConfig):
                spec = spec.model_dump()
            out[name] = {**spec, "name": name}
        return out

    @property
    def cache_path(self) -> Path:
        return self.sagan_tui_cache or default_cache_path()

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
        return out


def _env_accounts(environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for var, value in environ.items():
        upper = var.upper()
        for prefix, key in ((KEY_ENV_PREFIX, "api_key"), (TRANSPORT_ENV_PREFIX, "transport")):
            if upper.startswith(prefix) and len(upper) > len(prefix):
                out.setdefault(upper[len(prefix):].lower(), {})[key] = value
    return out


def load_settings(environ: Mapping[str, str] | None = None, **flags: Any) -> tuple[Settings, list[str]]:
    """Build Settings and the warnings worth telling the user (disabled accounts, open perms).

    Layers, lowest first: defaults, the TOML file, the environment, flags (None means unset).
    `environ` stands in for os.environ (tests and --demo pass the simulator's), never mutated.
    Accounts merge per name: file, then RUNPOD_API_KEY_<NAME> / RUNPOD_TRANSPORT_<NAME>, then flags.
    """
    env = dict(os.environ if environ is None else environ)
    warnings: list[str] = []
    path = config_path(env)
    if path.is_file():
        mode = path.stat().st_mode
        if mode & (stat.S_IRGRP | stat.S_IROTH):
            warnings.append(f"config file {path} is readable by others (chmod 600 it): it may hold keys")
    values: dict[str, Any] = {}
    for name in Settings.model_fields:
        var = name.upper() if name in DIRECT_ENV else f"SAGAN_TUI_{name.upper()}"
        if name != "accounts" and env.get(var, "") != "":
            values[name] = env[var]
    values.update({k: v for k, v in flags.items() if v is not None and k != "accounts"})
    file = _read_toml(path)  # beneath the environment and the flags
    try:
        base = Settings.model_validate({**file, **values})
    except Exception as exc:
        raise ConfigError(_explain(exc)) from None
    merged: dict[str, dict[str, Any]] = {n: {} for n in DEFAULT_ACCOUNTS}
    for name, acc in base.accounts.items():
        merged.setdefault(name, {}).update(
            {k: v for k, v in acc.model_dump().items() if k != "name" and v is not None})
    for name, spec in _env_accounts(env).items():
        merged.setdefault(name, {}).update(spec)
    for name, spec in (flags.get("accounts") or {}).items():
        merged.setdefault(name, {}).update(spec if isinstance(spec, dict) else {"api_key": spec})
    try:
        accounts = {n: AccountConfig.model_validate(a) for n, a in Settings._accounts(merged).items()}
    except Exception as exc:
        raise ConfigError(_explain(exc)) from None
    settings = base.model_copy(update={"accounts": accounts})
    for acc in settings.accounts.values():
        if not acc.enabled:
            warnings.append(acc.disabled_reason or "")
    return settings, warnings


def _explain(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        parts = []
        for e in errors():
            loc = ".".join(str(p) for p in e.get("loc", ()))
            parts.append(f"{loc}: {e.get('msg')}")  # never the input: it may be a secret
        return "invalid configuration: " + "; ".join(parts)
    return f"invalid configuration: {type(exc).__name__}"
