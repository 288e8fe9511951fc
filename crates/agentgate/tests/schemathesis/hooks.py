"""Schemathesis hooks for agentgate's API document test (suite::serve_schemathesis).

One check, `valid_request_accepted`, stands in for schemathesis's own
`positive_data_acceptance` (which the test turns off): a request the document
calls valid must not be refused. It allows exactly what that check allows
(2xx, 3xx, 401, 403, 404, 409, 429; a 5xx is `not_a_server_error`'s), and one
thing more: a 400 or 422 whose `error.field` is one of the fields the
operation lists in `x-agentgate-checked-beyond-schema`, the fields whose validity
depends on what the document cannot know (a name of the server's config, a
path on its disk, a cursor of an earlier page). Any other refusal of valid
data fails, naming the field.

And one hook, `map_case`: half of the valid bodies of `POST /v1/runs`
(chosen by a hash of the body, so a replay is the same) lose the fields that
name things of the server's config or disk (agents, chain, model, tools,
paths, sandbox, workspace, callback_url, persona, the task's files and
persona) and name the test's provider, `claude` (its stand-in). Those draws
are runs the server takes, so the fuzzer reaches the run's page, events,
cancel and approvals through the document's links; the other half still try
every field. The fields dropped depend on no other field, so a body stays valid.
"""

import hashlib
import json

import schemathesis
from schemathesis.specs.openapi.checks import is_unexpected_http_status_case

ACCEPTED = {401, 403, 404, 409, 429}


def _state_fields(case):
    raw = getattr(case.operation.definition, "raw", None) or {}
    return set(raw.get("x-agentgate-checked-beyond-schema", []))


@schemathesis.check
def valid_request_accepted(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or is_unexpected_http_status_case(case):
        return None
    status = response.status_code
    if 200 <= status < 400 or status in ACCEPTED or status >= 500:
        return None
    field = None
    try:
        field = response.json().get("error", {}).get("field")
    except Exception:  # not JSON: content_type_conformance says so
        pass
    if status in (400, 422) and field is not None:
        allowed = _state_fields(case)
        if field in allowed or field.split(".")[0] in allowed:
            return None
    raise AssertionError(
        f"Valid data was refused: {status} on field {field!r} "
        f"(not in the operation's x-agentgate-checked-beyond-schema)"
    )


# Fields of a run that name what the server's config or disk holds; no other
# field of the document depends on them.
_CONFIG_FIELDS = (
    "providers", "agents", "chain", "model", "tools", "binary", "cwd", "system_file",
    "agent_file", "context", "context_dir", "add_dirs", "output_schema", "callback_url",
    "sandbox", "workspace", "persona",
)


@schemathesis.hook
def map_case(context, case):
    if case.method.upper() != "POST" or case.path != "/v1/runs" or not isinstance(case.body, dict):
        return case
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return case
    digest = hashlib.sha256(json.dumps(case.body, sort_keys=True, default=str).encode()).digest()
    if digest[0] % 2:
        return case
    body = {k: v for k, v in case.body.items() if k not in _CONFIG_FIELDS}
    body["providers"] = ["claude"]
    task = body.get("task")
    if isinstance(task, dict):
        body["task"] = {k: v for k, v in task.items() if k not in ("files", "persona")}
    case.body = body
    return case
