"""The validated settings (pydantic): built by config.Draft.validate, imported only then.

config.py gathers the layers without pydantic, so the panel's first frame can be drawn from
them; everything here runs in the panel's load, after that frame.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator, model_validator

from sagan_tui.config import account_specs, default_cache_path, disabled_reason

Transport = Literal["graphql", "rest-v2"]


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
        return None if self.enabled else disabled_reason(self.name)

    def key(self) -> str:
        """The key, only for the transport's Authorization header."""
        if not self.enabled:
            raise RuntimeError(self.disabled_reason)
        assert self.api_key is not None
        return self.api_key.get_secret_value().strip()


class Settings(BaseModel):
    """Everything the panel, `sync`, `doctor` and the reports are configured with.

    A plain model, built only by config.load_settings / Draft.validate, which layer the sources
    themselves: pydantic-settings cost 0.1-0.2 s of the start for no feature used here.
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
    bell: bool = Field(True, description="Deprecated (use notify): false is notify = \"off\" unless notify is set.")
    color_system: Literal["auto", "256", "truecolor", "standard"] = Field("auto", description="Colours when TERM says too little.")
    mouse: bool = Field(True, description="Ask the terminal for mouse events.")
    events_retention_days: float = Field(30.0, description="Events older than this are pruned from the cache.")
    observations_retention_days: float = Field(14.0, description="Pod observations older than this are pruned.")
    accounts: dict[str, AccountConfig] = Field(default_factory=dict, description="RunPod accounts by name.")
    # --- the owner's terminal (ui/notify.py, keymap.py, runway.py) ---
    notify: Literal["bell", "osc9", "osc777", "osc99", "off"] = Field(
        "bell", description="How a new owner-turn item, a new wave or a short runway reaches the terminal.")
    runway_warn_hours: float = Field(12.0, ge=0, description="Warn when an account's balance lasts less (0: never).")
    keymap: dict[str, str] = Field(default_factory=dict, description="Binding id -> keys, e.g. panel.quit = \"ctrl+q\".")

    @field_validator("keymap", mode="before")
    @classmethod
    def _keymap(cls, v: Any) -> Any:
        from sagan_tui.keymap import check_keymap

        return check_keymap(v)  # a KeymapError names the entry; nothing is half-applied

    @model_validator(mode="after")
    def _bell_is_notify_off(self) -> "Settings":
        # The older `bell = false` (and --no-bell) still silences the panel when notify is not set.
        if not self.bell and "notify" not in self.model_fields_set:
            self.notify = "off"
        return self

    @field_validator("accounts", mode="before")
    @classmethod
    def _accounts(cls, v: Any) -> Any:
        # The file may say `[accounts.team] api_key = "..."` or `accounts = {team = "key"}`.
        return {name: {**spec, "name": name} for name, spec in account_specs(v).items()}

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
