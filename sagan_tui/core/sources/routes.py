"""Every Sagan route string, in one place so a deployment can adapt them (DESIGN.md's contract)."""

HEALTH = "/api/health"
EXPERIMENTS = "/api/experiments"
EXPERIMENT = "/api/experiments/{number}"
STATUS = "/api/experiments/{number}/status"
MARKERS = "/api/experiments/{number}/markers"
LAUNCH_POD = "/api/experiments/{number}/launch-pod"
PROMOTE = "/api/experiments/{number}/promote"
EVENTS = "/api/events"
APPROVALS = "/api/approval-requests"
DECISION = "/api/approval-requests/{id}/decision"
PODS = "/api/pods"

# RunPod
GRAPHQL = "/graphql"
REST_PODS = "/v2/pods"
REST_POD = "/v2/pods/{pod_id}"
REST_POD_ACTION = "/v2/pods/{pod_id}/action"
