"""The fixture format of DESIGN.md as pydantic models, and the loader that checks a fixture."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator, with_config
from pydantic.alias_generators import to_camel

from sagan_tui.core.models import ApprovalRequest, Experiment, valid_pod_id

# The last three answer as RunPod does (sim/faults.py): GraphQL's 200 + `errors` for a key it
# does not accept and for its rate limit, and REST v2's 403 on a pod action the key may not do.
# `billing-403` and `audit-403`: a key without billing:read (the balance and billing history
# answer 403) or without the audit log's scope; `truncated-page`: a page of `GET /v2/pods` that
# ends early without a cursor (the reply says `truncated`), the defence's test, not RunPod's list.
FaultKind = Literal["401", "429", "500", "timeout", "bad-json", "410", "graphql-auth", "graphql-rate-limit", "403",
                    "billing-403", "audit-403", "truncated-page"]
DEFAULT_IMAGE = "runpod/pytorch:2.4.0-py3.11-cuda12.4.1-devel-ubuntu22.04"


class FixtureError(ValueError):
    """A fixture that cannot be served; the message names the bad field path."""


class _Strict(BaseModel):
    # Typos in a hand-written fixture ("lostAt") should fail loudly, not be ignored.
    # NaN and Infinity parse as JSON numbers: a time or a price that is one would poison the clock.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


class FailureWindow(_Strict):
    start: float = Field(alias="from")
    end: float = Field(math.inf, alias="to")
    kind: FaultKind

    @field_validator("kind", mode="before")
    @classmethod
    def _kind_as_text(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) else v  # {"kind": 401} means "401"


class SaganSpec(_Strict):
    token: str = "sagan-demo-token"
    failures: list[FailureWindow] = Field(default_factory=list)


class BalanceStep(_Strict):
    """From scenario second `at` on, the account's balance is `balance` (until the next step)."""

    at: float
    balance: float


class AccountSpec(_Strict):
    api_key: str | None = None
    # A number, or steps in time: `[{"at": 0, "balance": 2.4}, {"at": 30, "balance": 0.0}]`.
    balance: float | list[BalanceStep] = 100.0
    spend_limit: float | None = None
    failures: list[FailureWindow] = Field(default_factory=list)
    # What REST v2's balance route says: a POSTPAID account is invoiced, its balance stops nothing.
    billing_mode: Literal["PREPAID", "POSTPAID"] = "PREPAID"
    page_size: int | None = Field(None, ge=1)  # pages `GET /v2/pods` (else the fixture's, else one page)

    @field_validator("balance", mode="before")
    @classmethod
    def _steps_have_times(cls, v: Any) -> Any:
        # Named here: pydantic's own text for a union lists both branches' complaints.
        if isinstance(v, list):
            for i, step in enumerate(v):
                if not isinstance(step, dict) or "at" not in step:
                    raise ValueError(f"step {i} has no at (scenario seconds)")
                if "balance" not in step:
                    raise ValueError(f"step {i} has no balance (USD)")
        return v

    @field_validator("balance")
    @classmethod
    def _steps_in_order(cls, v: float | list[BalanceStep]) -> float | list[BalanceStep]:
        if isinstance(v, list):
            if not v:
                raise ValueError("a balance given as steps needs at least one step")
            if any(b.at < a.at for a, b in zip(v, v[1:])):
                raise ValueError("balance steps must be in order of `at`")
        return v

    def balance_at(self, t: float) -> float:
        """The balance in force at scenario second t (before the first step, the first step's)."""
        if not isinstance(self.balance, list):
            return self.balance
        now = self.balance[0].balance
        for step in self.balance:
            if step.at > t:
                break
            now = step.balance
        return now


class ExperimentSpec(BaseModel):
    """An experiment: any Experiment field (camelCase); times are scenario seconds."""

    model_config = ConfigDict(extra="allow", alias_generator=to_camel, populate_by_name=True, allow_inf_nan=False)

    number: int
    title: str | None = None
    status: str = "proposed"
    runpod_account: str | None = None
    created_at: float | None = None
    updated_at: float | None = None


class ApprovalSpec(ApprovalRequest):
    """An approval request: ApprovalRequest's fields, an experiment number, and when it was made."""

    id: str | None = None  # type: ignore[assignment]  # made up from the seed when not given
    experiment: int | None = None
    requested_by: str | None = "agent"
    at: float = 0.0


@with_config(ConfigDict(extra="forbid", allow_inf_nan=False))
class EventSpec(TypedDict):
    """An event at scenario time `at`. A TypedDict, not a model: large fixtures hold 100k of them."""

    at: float
    eventType: str
    experiment: NotRequired[int | None]
    id: NotRequired[str | None]
    entityKind: NotRequired[str | None]
    entityId: NotRequired[str | None]
    fromStatus: NotRequired[str | None]
    toStatus: NotRequired[str | None]
    actorKind: NotRequired[str | None]  # default "system"
    actorUserId: NotRequired[str | None]
    note: NotRequired[str | None]
    metadata: NotRequired[Any]


class TerminatedBy(_Strict):
    """Who stopped or terminated a pod, as the account's audit log names them."""

    actor: str
    action: Literal["terminate", "stop"] = "terminate"


class PodSpec(_Strict):
    """A pod and its timeline: camelCase pod fields, snake_case scenario times (DESIGN.md)."""

    model_config = ConfigDict(extra="forbid", alias_generator=to_camel, populate_by_name=True, allow_inf_nan=False)

    id: str
    account: str = "team"
    experiment: int | None = None
    name: str | None = None
    gpu: str = "NVIDIA A100 80GB PCIe"
    gpu_count: int = 1
    datacenter: str = "US-KS-2"
    cost_per_hr: float = 1.49
    adjusted_cost_per_hr: float | None = None
    pod_type: str = "RESERVED"
    image_name: str = DEFAULT_IMAGE
    docker_args: str = ""
    env: dict[str, str] = Field(default_factory=dict)
    vcpu_count: int = 16
    memory_in_gb: int = 125
    volume_in_gb: int = 100
    container_disk_in_gb: int = 100
    agent_run_id: str | None = None
    run_id: str | None = None
    tracked: bool = True  # whether Sagan has a pod_lifecycle row for it
    created_at: float = Field(0.0, alias="created_at")
    running_at: float | None = Field(None, alias="running_at")
    lost_at: float | None = Field(None, alias="lost_at")
    exited_at: float | None = Field(None, alias="exited_at")
    exit_reason: str | None = Field(None, alias="exit_reason")
    stopped_at: float | None = Field(None, alias="stopped_at")
    cluster: str | None = None  # an Instant Cluster's id: REST v2 lists the pod only with includeClusterPods
    # GraphQL fields served null although RunPod's schema declares them non-null (e.g. ["name"]):
    # RunPod then nulls the whole pod entry and names the field in `errors`.
    null_fields: list[str] = Field(default_factory=list)
    host: str | None = Field(None, alias="host")  # served as machine.podHostId (else one per pod)
    # Whether it has a network volume, for RunPod's stop at $0 (balance_stop.py): with one it is
    # stopped (EXITED), without it terminated (gone from the list); None: its script decides.
    network_volume: bool | None = Field(None, alias="network_volume")
    # A user or API key of the account ended the pod at lost_at (terminate) or exited_at (stop):
    # the audit log has the entry; RunPod's pod list shows only what happened.
    terminated_by: TerminatedBy | None = Field(None, alias="terminated_by")
    # Container log lines served verbatim while it runs (one every 5 s), in place of made-up ones:
    # how a test puts hostile text (escape sequences) into a pod's log.
    log_lines: list[str] | None = Field(None, alias="log_lines")

    @field_validator("host", mode="before")
    @classmethod
    def _host_is_text(cls, v: Any) -> Any:
        # A number would be coerced by nothing and read as a different machine: refuse it outright.
        if v is not None and not isinstance(v, str):
            raise ValueError(f"host must be a string (the machine's podHostId), got {type(v).__name__}")
        return v

    @field_validator("id")
    @classmethod
    def _pod_id(cls, v: str) -> str:
        if not valid_pod_id(v):
            raise ValueError("pod id must match ^[a-z0-9]{6,32}$")
        return v

    @model_validator(mode="after")
    def _timeline(self) -> "PodSpec":
        ends = [n for n in ("lost_at", "exited_at", "stopped_at") if getattr(self, n) is not None]
        if len(ends) > 1:
            raise ValueError(f"a pod ends one way only, got {' and '.join(ends)}")
        for name in ("running_at", *ends):
            value = getattr(self, name)
            if value is not None and value < self.created_at:
                raise ValueError(f"{name} is before created_at")
        return self


class ReaperSpec(_Strict):
    """Kills every pod of `accounts` that reaches RUNNING in [from, to] (scenario seconds),
    `kill_after_s` after RUNNING: scripted pods and pods launched while serving alike (a pod
    whose script already ends it keeps its script)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    accounts: list[str] = Field(default_factory=lambda: ["team", "personal"])
    kill_after_s: float = Field(60.0, gt=0)
    start: float = Field(0.0, alias="from")
    end: float = Field(float("inf"), alias="to")


class RecoverySpec(_Strict):
    """Sagan's recovery loop: `after_s` after a tracked pod of an experiment is lost, unless the
    experiment is blocked then, it re-dispatches (a new pod, RUNNING `running_after_s` later) while
    the experiment's `budget` lasts; losses of one experiment within `dedupe_s` make one
    re-dispatch. `experiments` limits it (all when empty); `pod_ids` names the new pods in order
    (then generated); `dispatch: false` queues the experiment for implementing instead of
    creating a pod."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)

    after_s: float = Field(52.0, ge=0)
    running_after_s: float = Field(40.0, ge=0)
    budget: int = Field(2, ge=0)
    dedupe_s: float = Field(5.0, ge=0)
    experiments: list[int] = Field(default_factory=list)
    dispatch_experiments: list[int] | None = None  # these get pods; the rest are queued (None: all)
    pod_ids: list[str] = Field(default_factory=list)


class Fixture(_Strict):
    name: str | None = None
    sagan: SaganSpec = Field(default_factory=SaganSpec)
    accounts: dict[str, AccountSpec] | None = None
    experiments: list[ExperimentSpec] = Field(default_factory=list)
    approvalRequests: list[ApprovalSpec] = Field(default_factory=list)
    events: list[EventSpec] = Field(default_factory=list)
    pods: list[PodSpec]
    page_size: int | None = Field(None, ge=1)  # pages `GET /v2/pods` of every account (cursor pagination)
    # REST v2 requests per account per minute (RunPod's published window is the default): a bench
    # that reads every reply twice (once as the poller, once to time the server) needs twice that.
    rest_per_minute: int | None = Field(None, ge=1, le=100_000)
    reapers: list[ReaperSpec] = Field(default_factory=list)
    recovery: RecoverySpec | None = None


def default_accounts() -> dict[str, AccountSpec]:
    return {
        "team": AccountSpec(api_key="rk-team-demo", balance=412.5, spend_limit=80),
        "personal": AccountSpec(api_key="rk-personal-demo", balance=35.0),
    }


def _path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(p) for p in loc) or "fixture"


def load_fixture(source: dict[str, Any] | str | Path | Fixture) -> Fixture:
    """Validate a fixture (a dict, or the path of a JSON file) and fill its defaults.

    Raises FixtureError naming the first bad field paths, e.g.
    `pods.3.running_at: Input should be a valid number`.
    """
    if isinstance(source, Fixture):
        return source
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            source = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise FixtureError(f"fixture {path}: cannot read: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise FixtureError(f"fixture {path}: not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    if not isinstance(source, dict):
        raise FixtureError(f"fixture: expected a JSON object, got {type(source).__name__}")
    try:
        fx = Fixture.model_validate(source)
    except ValidationError as exc:
        parts = [f"{_path(e['loc'])}: {e['msg']}" for e in exc.errors()[:5]]
        more = exc.error_count() - len(parts)
        raise FixtureError("invalid fixture: " + "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")) from None
    if fx.accounts is None:
        fx.accounts = default_accounts()
    for name, acc in fx.accounts.items():
        acc.api_key = acc.api_key or f"rk-{name}-demo"
    _check_references(fx)
    return fx


def _check_references(fx: Fixture) -> None:
    problems: list[str] = []
    for i, spec in enumerate(fx.experiments):  # the Experiment fields a fixture passes through
        fields = spec.model_dump(by_alias=True, exclude={"created_at", "updated_at"}, exclude_none=True)
        try:
            Experiment.model_validate({"id": "fixture", **fields})
        except ValidationError as exc:
            problems += [f"experiments.{i}.{_path(e['loc'])}: {e['msg']}" for e in exc.errors()]
    keys = [a.api_key for a in fx.accounts.values()]
    if len(set(keys)) != len(keys):
        problems.append("accounts: two accounts share one api_key")
    numbers = [e.number for e in fx.experiments]
    seen: set[int] = set()
    for i, n in enumerate(numbers):
        if n in seen:
            problems.append(f"experiments.{i}.number: duplicate experiment #{n}")
        seen.add(n)
        if fx.experiments[i].runpod_account not in (None, *fx.accounts):
            problems.append(f"experiments.{i}.runpodAccount: unknown account {fx.experiments[i].runpod_account!r}")
    pod_ids: set[str] = set()
    for i, pod in enumerate(fx.pods):
        if pod.account not in fx.accounts:
            problems.append(f"pods.{i}.account: unknown account {pod.account!r} (have {', '.join(fx.accounts)})")
        if pod.id in pod_ids:
            problems.append(f"pods.{i}.id: duplicate pod id {pod.id}")
        pod_ids.add(pod.id)
    ids = [a.id for a in fx.approvalRequests if a.id]
    if len(set(ids)) != len(ids):
        problems.append("approvalRequests: duplicate id")
    if problems:
        raise FixtureError("invalid fixture: " + "; ".join(problems[:5]))
