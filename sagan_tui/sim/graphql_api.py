"""RunPod's GraphQL, the subset the SDK and the panel use: schema, resolvers, and the endpoint."""

from __future__ import annotations

from typing import Any

from graphql import (
    DocumentNode, FieldNode, GraphQLError, GraphQLList, GraphQLNonNull, GraphQLObjectType, OperationDefinitionNode,
    OperationType, SelectionSetNode, build_schema, execute_sync, is_leaf_type, parse, validate,
)
from starlette.responses import JSONResponse, Response

from . import actions
from .catalog import GPU_TYPES
from .state import SimState

# A subset of RunPod's published schema (tests/contracts/runpod.schema), each type, field,
# argument and enum value as RunPod declares it, non-null rules included: a pod that breaks
# one (a fixture's `null_fields`) is nulled in the list with an error naming the field, as
# RunPod's server does. tests/contracts checks this against the published schema.
SDL = """
enum PodStatus { CREATED RUNNING RESTARTING EXITED PAUSED DEAD TERMINATED }
enum PodType { INTERRUPTABLE RESERVED BID BACKGROUND }
enum CloudTypeEnum { SECURE COMMUNITY ALL }
scalar Void
scalar Port

type PodRuntimePorts { ip: String isIpPublic: Boolean privatePort: Int publicPort: Int type: String }
type PodRuntimeGpus { id: String gpuUtilPercent: Int memoryUtilPercent: Int }
type PodRuntime { uptimeInSeconds: Int ports: [PodRuntimePorts] gpus: [PodRuntimeGpus] }
type PodMachineInfo { gpuDisplayName: String dataCenterId: String podHostId: String location: String }

type Pod {
  id: String!
  name: String!
  desiredStatus: PodStatus!
  lastStatusChange: String
  uptimeSeconds: Int
  costPerHr: Float!
  adjustedCostPerHr: Float!
  gpuCount: Int!
  podType: PodType
  imageName: String!
  machineId: String!
  containerDiskInGb: Int
  dockerArgs: String
  dockerId: String
  env: [String]
  memoryInGb: Float!
  port: Port
  ports: String
  vcpuCount: Float!
  volumeInGb: Float
  volumeMountPath: String
  machine: PodMachineInfo
  runtime: PodRuntime
}

type NetworkVolume { id: String name: String size: Int dataCenterId: String }

type User {
  id: String
  pubKey: String
  pods: [Pod]
  clientBalance: Float
  currentSpendPerHr: Float
  spendLimit: Int
  underBalance: Boolean
  networkVolumes: [NetworkVolume]
}

type LowestPrice { minimumBidPrice: Float uninterruptablePrice: Float }
input GpuLowestPriceInput { gpuCount: Int! }
type GpuType {
  id: String displayName: String manufacturer: String memoryInGb: Int cudaCores: Int maxGpuCount: Int
  secureCloud: Boolean communityCloud: Boolean securePrice: Float communityPrice: Float
  oneMonthPrice: Float threeMonthPrice: Float oneWeekPrice: Float
  communitySpotPrice: Float secureSpotPrice: Float
  lowestPrice(input: GpuLowestPriceInput): LowestPrice
}
input GpuTypeFilter { id: String }

input PodFilter { podId: String! }
input PodStopInput { podId: String! incrementVersion: Boolean }
input PodResumeInput { podId: String! gpuCount: Int }
input PodTerminateInput { podId: String! }
input EnvironmentVariableInput { key: String! value: String! }
input PodFindAndDeployOnDemandInput {
  name: String imageName: String cloudType: CloudTypeEnum startSsh: Boolean gpuTypeId: String
  supportPublicIp: Boolean gpuCount: Int volumeInGb: Int containerDiskInGb: Int minVcpuCount: Int
  minMemoryInGb: Int allowedCudaVersions: [String] dataCenterId: String countryCode: String
  dockerArgs: String ports: String volumeMountPath: String env: [EnvironmentVariableInput]
  templateId: String networkVolumeId: String minDownload: Int minUpload: Int
}

type Query {
  myself: User
  pod(input: PodFilter): Pod
  gpuTypes(input: GpuTypeFilter): [GpuType]
}

type Mutation {
  podStop(input: PodStopInput!): Pod
  podResume(input: PodResumeInput!): Pod
  podTerminate(input: PodTerminateInput!): Void
  podFindAndDeployOnDemand(input: PodFindAndDeployOnDemandInput): Pod
}
"""

SCHEMA = build_schema(SDL)


class Root:
    """Root value of one request: the account the key picked, at one scenario time."""

    def __init__(self, state: SimState, account: str, t: float) -> None:
        self.state, self.account, self.t = state, account, t

    def _view(self, pod: Any) -> dict[str, Any] | None:
        return pod.runpod_view(self.t, self.state.clock)

    def _run(self, action: Any, *args: Any) -> Any:
        try:
            return action(self.state, self.account, *args, self.t)
        except actions.ActionError as exc:
            raise GraphQLError(exc.message) from None

    # queries
    def myself(self, _info: Any) -> dict[str, Any]:
        acc = self.state.accounts[self.account]
        pods = self.state.account_pods(self.account, self.t)
        spend = round(sum(p.cost_now(self.t) for p in pods), 4)
        return {
            "id": f"user-{self.account}", "pubKey": "", "networkVolumes": [],
            "pods": [p.lazy_view(self.t, self.state.clock) for p in pods], "clientBalance": acc.balance_at(self.t), "currentSpendPerHr": spend,
            "spendLimit": None if acc.spend_limit is None else round(acc.spend_limit),
            "underBalance": acc.balance_at(self.t) <= 0,
        }

    def pod(self, _info: Any, input: dict[str, Any] | None = None) -> dict[str, Any] | None:  # noqa: A002
        pod = self.state.pods.get((input or {}).get("podId", ""))
        if pod is None or pod.spec.account != self.account:
            return None
        return self._view(pod)

    def gpuTypes(self, _info: Any, input: dict[str, Any] | None = None) -> list[dict[str, Any]]:  # noqa: N802
        wanted = (input or {}).get("id")
        return [{
            "id": name, "displayName": name, "manufacturer": "Nvidia", "memoryInGb": vram, "cudaCores": 0,
            "maxGpuCount": 8, "secureCloud": True, "communityCloud": True, "securePrice": price,
            "communityPrice": round(price * 0.8, 2), "oneMonthPrice": None, "threeMonthPrice": None,
            "oneWeekPrice": None, "communitySpotPrice": None, "secureSpotPrice": None,
            "lowestPrice": {"minimumBidPrice": round(price * 0.6, 2), "uninterruptablePrice": price},
        } for name, (vram, price) in GPU_TYPES.items() if wanted in (None, name)]

    # mutations
    def podStop(self, _info: Any, input: dict[str, Any]) -> dict[str, Any] | None:  # noqa: N802, A002
        return self._view(self._run(actions.stop_pod, input["podId"]))

    def podResume(self, _info: Any, input: dict[str, Any]) -> dict[str, Any] | None:  # noqa: N802, A002
        return self._view(self._run(actions.resume_pod, input["podId"]))

    def podTerminate(self, _info: Any, input: dict[str, Any]) -> None:  # noqa: N802, A002
        self._run(actions.terminate_pod, input["podId"])

    def podFindAndDeployOnDemand(self, _info: Any, input: dict[str, Any]) -> dict[str, Any] | None:  # noqa: N802, A002
        return self._view(self._run(actions.deploy_pod, input or {}))


class _Slow(Exception):
    """The fast path cannot answer exactly as graphql-core would: execute the query instead."""


def _plain_fields(selection_set: SelectionSetNode) -> bool:
    keys = []
    for node in selection_set.selections:
        if not isinstance(node, FieldNode) or node.directives or node.arguments or node.name.value.startswith("__"):
            return False
        keys.append((node.alias or node.name).value)
        if node.selection_set is not None and not _plain_fields(node.selection_set):
            return False
    return len(keys) == len(set(keys))  # graphql-core merges a repeated key: leave that to it


def _complete(type_: Any, value: Any, node: FieldNode) -> Any:
    """One field's value as graphql-core's executor completes it (leaves through their own serialize)."""
    if isinstance(type_, GraphQLNonNull):
        if value is None:
            raise _Slow
        type_ = type_.of_type
    if value is None:
        return None
    if isinstance(type_, GraphQLList):
        return [_complete(type_.of_type, v, node) for v in value]
    if is_leaf_type(type_):
        out = type_.serialize(value)
        if out is None:
            raise _Slow
        return out
    if not isinstance(type_, GraphQLObjectType) or node.selection_set is None:
        raise _Slow
    out = {}
    for field in node.selection_set.selections:
        name = field.name.value
        v = value.get(name) if isinstance(value, dict) else getattr(value, name, None)
        if callable(v):
            raise _Slow
        out[(field.alias or field.name).value] = _complete(type_.fields[name].type, v, field)
    return out


def fast_data(document: DocumentNode, root: Root, operation_name: Any) -> dict[str, Any] | None:
    """The data of a plain query (fields only: no arguments, fragments, directives or variables), built
    from the resolvers' dicts the way execute_sync builds it; None when it is not that plain.

    graphql-core's executor is slow on a large pod list and runs one request at a time: two
    accounts polled at once would wait on each other here, which no real RunPod does.
    """
    ops = document.definitions
    if len(ops) != 1 or not isinstance(ops[0], OperationDefinitionNode) or ops[0].operation != OperationType.QUERY:
        return None
    op = ops[0]
    if op.variable_definitions or op.directives or operation_name not in (None, op.name and op.name.value):
        return None
    if not _plain_fields(op.selection_set):
        return None
    query = SCHEMA.query_type
    try:
        data = {}
        for field in op.selection_set.selections:
            resolver = getattr(root, field.name.value)
            data[(field.alias or field.name).value] = _complete(query.fields[field.name.value].type, resolver(None),
                                                                field)
        return data
    except Exception:  # noqa: BLE001 - anything unusual is graphql-core's to answer, errors included
        return None


def _errors(errors: list[GraphQLError]) -> list[dict[str, Any]]:
    return [e.formatted for e in errors]


def graphql_reply(state: SimState, account: str, body: Any, t: float) -> Response:
    """Answer one GraphQL POST: 400 with `errors` when it does not parse or validate, else 200."""
    if not isinstance(body, dict) or not isinstance(body.get("query"), str):
        return JSONResponse({"errors": [{"message": "POST body must be JSON with a string 'query'."}]}, 400)
    try:
        document = parse(body["query"])
    except GraphQLError as exc:
        return JSONResponse({"errors": _errors([exc])}, 400)
    problems = validate(SCHEMA, document)
    if problems:
        return JSONResponse({"errors": _errors(problems)}, 400)
    variables = body.get("variables") if isinstance(body.get("variables"), dict) else None
    with state.lock:
        data = fast_data(document, Root(state, account, t), body.get("operationName"))
        if data is not None:
            return JSONResponse({"data": data}, 200)
        result = execute_sync(SCHEMA, document, root_value=Root(state, account, t), variable_values=variables,
                              operation_name=body.get("operationName"))
    reply: dict[str, Any] = {"data": result.data}
    if result.errors:
        reply["errors"] = _errors(result.errors)
    return JSONResponse(reply, 200)
