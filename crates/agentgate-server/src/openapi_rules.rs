//! What the server checks that the generated schemas do not say by
//! themselves, written into the OpenAPI document so that a request the
//! document calls valid is one the server takes (and the other way round):
//! which of `prompt`, `task` and `skill` a run needs (`oneOf`), enums of
//! the fixed sets (states, scopes, error types, sandbox levels, efforts),
//! bounds (priority, lengths, page sizes), the shapes of durations and of
//! absolute paths. (The `links` are
//! `openapi_links`'s.)
//!
//! Each rule names the schema or parameter it tightens; [`apply`] returns
//! the names it could not find, and the document's test fails on any (a
//! renamed field must not silently lose its rule).
//!
//! What the document cannot know stays unsaid: whether a provider, agent,
//! chain or tool is in the server's config, whether a path exists on the
//! server's disk, whether a cursor came from a previous page. Those
//! refusals name their field (`error.field`); the operations list them in
//! `x-agentgate-checked-beyond-schema` (with the query parameters that
//! need another: `coalesce_*` need `coalesce`).

use serde_json::{Value, json};

/// A duration as the server reads one: a number of seconds, or numbers
/// each with a unit (`1500ms`, `90s`, `10m`, `1h30m`).
const DURATION: &str = r"^([0-9]{1,6}|([0-9]{1,6}(ms|s|m|h))+)$";
/// A duration above zero.
const DURATION_ABOVE_ZERO: &str = r"^0*[1-9][0-9]{0,5}(ms|s|m|h)?$";
/// A label's key.
const LABEL_KEY: &str = "^[A-Za-z0-9][A-Za-z0-9._-]*$";
/// A label's value: no control character.
const LABEL_VALUE: &str = "^[^\\x00-\\x1f\\x7f-\\x9f]+$";
/// A task's file name: not blank, no control character.
const FILE_NAME: &str =
    "^[^\\x00-\\x1f\\x7f-\\x9f]*[^\\s\\x00-\\x1f\\x7f-\\x9f][^\\x00-\\x1f\\x7f-\\x9f]*$";
/// An absolute path.
const ABSOLUTE: &str = "^/";

/// The document with every rule applied; the names of the targets not
/// found (empty when every rule applied).
pub(crate) fn apply(doc: &mut Value) -> Vec<String> {
    let mut missing = Vec::new();
    if let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    {
        schemas.insert("TaskInput".to_owned(), task_input());
    }
    for (schema, field, patch) in property_rules() {
        let pointer = format!("/components/schemas/{schema}/properties/{field}");
        merge_at(doc, &pointer, patch, &mut missing);
    }
    for (schema, patch) in schema_rules() {
        merge_at(
            doc,
            &format!("/components/schemas/{schema}"),
            patch,
            &mut missing,
        );
    }
    for (method, path, name, schema) in parameter_rules() {
        set_parameter(doc, method, path, name, schema, &mut missing);
    }
    for (method, path, patch) in operation_rules() {
        let pointer = format!("/paths/{}/{method}", path.replace('/', "~1"));
        merge_at(doc, &pointer, patch, &mut missing);
    }
    merge_at(
        doc,
        "/paths/~1v1~1runs~1{id}~1events/get/responses/200/content/text~1event-stream",
        json!({"schema": server_sent_event()}),
        &mut missing,
    );
    bound_integers(doc);
    missing
}

/// Gives every unsigned integer schema (`minimum: 0` with an `int32` or
/// `int64` format, as utoipa writes `u32` and `u64`) the maximum its
/// type holds: the server refuses a larger number.
fn bound_integers(value: &mut Value) {
    match value {
        Value::Object(map) => {
            let unsigned = map.get("minimum").and_then(Value::as_u64).is_some();
            let integer = map.get("type").is_some_and(|t| {
                t == "integer"
                    || t.as_array()
                        .is_some_and(|a| a.iter().any(|t| t == "integer"))
            });
            let format = map.get("format").and_then(Value::as_str).map(str::to_owned);
            // utoipa writes `u32` as `int32` and `u64` as `int64` with a
            // minimum of 0, but those formats are signed: `int64` holds a
            // `u32`, and a `u64` gets no format.
            match format.as_deref() {
                Some("int32") if unsigned => {
                    map.insert("format".to_owned(), Value::from("int64"));
                }
                Some("int64") if unsigned => {
                    map.remove("format");
                }
                _ => {}
            }
            let max = match format.as_deref() {
                // `usize`: utoipa writes no format.
                None if integer && unsigned => Some(Value::from(u64::MAX)),
                Some("int32") if unsigned => Some(Value::from(u32::MAX)),
                Some("int64") if unsigned => Some(Value::from(u64::MAX)),
                Some("int32") => Some(Value::from(i32::MAX)),
                Some("int64") => Some(Value::from(i64::MAX)),
                _ => None,
            };
            if let Some(max) = max
                && !map.contains_key("maximum")
            {
                map.insert("maximum".to_owned(), max);
            }
            if !unsigned
                && !map.contains_key("minimum")
                && let Some(min) = match format.as_deref() {
                    Some("int32") => Some(Value::from(i32::MIN)),
                    Some("int64") => Some(Value::from(i64::MIN)),
                    _ => None,
                }
            {
                map.insert("minimum".to_owned(), min);
            }
            map.values_mut().for_each(bound_integers);
        }
        Value::Array(items) => items.iter_mut().for_each(bound_integers),
        _ => {}
    }
}

/// Merges `patch`'s keys into the object at `pointer` (a key of `null`
/// removes it).
pub(crate) fn merge_at(doc: &mut Value, pointer: &str, patch: Value, missing: &mut Vec<String>) {
    let Some(target) = doc.pointer_mut(pointer).and_then(Value::as_object_mut) else {
        missing.push(pointer.to_owned());
        return;
    };
    if let Value::Object(patch) = patch {
        for (key, value) in patch {
            if value.is_null() {
                target.remove(&key);
            } else {
                target.insert(key, value);
            }
        }
    }
}

/// Replaces the schema of the parameter `name` of `method path`.
fn set_parameter(
    doc: &mut Value,
    method: &str,
    path: &str,
    name: &str,
    schema: Value,
    missing: &mut Vec<String>,
) {
    let pointer = format!("/paths/{}/{method}/parameters", path.replace('/', "~1"));
    let found = doc
        .pointer_mut(&pointer)
        .and_then(Value::as_array_mut)
        .and_then(|params| params.iter_mut().find(|p| p["name"] == name));
    match found {
        Some(param) => param["schema"] = schema,
        None => missing.push(format!("{method} {path} ?{name}")),
    }
}

/// A string or null, with `extra` on the string.
fn nullable_string(extra: Value) -> Value {
    let mut string = json!({"type": "string"});
    if let (Some(s), Value::Object(extra)) = (string.as_object_mut(), extra) {
        s.extend(extra);
    }
    json!({"oneOf": [string, {"type": "null"}]})
}

/// The recoverable error types (`retry_on` takes only those).
fn recoverable_error_types() -> Vec<Value> {
    agentgate_protocol::ErrorKind::ALL
        .iter()
        .filter(|k| k.recoverable())
        .filter_map(|k| serde_json::to_value(k).ok())
        .collect()
}

/// Rules on one property of a component schema: (schema, property, keys
/// merged into its schema).
fn property_rules() -> Vec<(&'static str, &'static str, Value)> {
    let duration = || nullable_string(json!({"pattern": DURATION}));
    let absolute = || nullable_string(json!({"pattern": ABSOLUTE}));
    let at_least_one = || json!({"minimum": 1});
    let labels = json!({
        "maxProperties": agentgate_protocol::LABELS_MAX,
        "propertyNames": {
            "minLength": 1,
            "maxLength": agentgate_protocol::LABEL_KEY_MAX,
            "pattern": LABEL_KEY
        },
        "additionalProperties": {"type": "string", "minLength": 1, "maxLength": agentgate_protocol::LABEL_VALUE_MAX, "pattern": LABEL_VALUE}
    });
    let priority = json!({"minimum": -1000, "maximum": 1000});
    let idempotency_key =
        nullable_string(json!({"minLength": 1, "maxLength": agentgate_core::IDEMPOTENCY_KEY_MAX}));
    let names = || json!({"items": {"type": "string", "pattern": "\\S"}});
    let mut rules = vec![
        ("RunRequest", "priority", priority.clone()),
        ("RunRequest", "idempotency_key", idempotency_key.clone()),
        ("RunRequest", "labels", labels.clone()),
        (
            "RunRequest",
            "task",
            json!({"type": null, "oneOf": [{"$ref": "#/components/schemas/TaskInput"}, {"type": "null"}]}),
        ),
        ("RunRequest", "providers", names()),
        ("RunRequest", "agents", names()),
        (
            "RunRequest",
            "permission_mode",
            json!({"oneOf": [{"enum": ["default", "plan", "acceptEdits", "bypass"]}, {"type": "null"}], "type": null}),
        ),
        (
            "RunRequest",
            "reasoning_effort",
            json!({"oneOf": [{"enum": ["none", "minimal", "low", "medium", "high", "xhigh", "max"]}, {"type": "null"}], "type": null}),
        ),
        (
            "RunRequest",
            "sandbox",
            json!({"oneOf": [{"enum": agentgate_protocol::SandboxLevel::ALL.iter().filter_map(|l| serde_json::to_value(l).ok()).collect::<Vec<_>>()}, {"type": "null"}], "type": null}),
        ),
        (
            "RunRequest",
            "rotate_handoff",
            json!({"oneOf": [{"enum": ["none", "summary", "prompt"]}, {"type": "null"}], "type": null}),
        ),
        (
            "RunRequest",
            "retry_on",
            json!({"items": {"enum": recoverable_error_types()}}),
        ),
        (
            "RunRequest",
            "timeout_warn",
            nullable_string(json!({"pattern": "^(off|none|[1-9][0-9]?%(,[1-9][0-9]?%)*)$"})),
        ),
        ("RunRequest", "max_turns", at_least_one()),
        ("RunRequest", "max_context_tokens", at_least_one()),
        ("RunRequest", "max_model_calls", at_least_one()),
        ("RunRequest", "max_input_tokens", at_least_one()),
        ("RunRequest", "max_output_tokens", at_least_one()),
        ("RunRequest", "max_tokens", at_least_one()),
        (
            "RunRequest",
            "max_cost_usd",
            json!({"exclusiveMinimum": 0, "maximum": 1_000_000}),
        ),
        (
            "RunRequest",
            "max_model_time",
            nullable_string(json!({"pattern": DURATION_ABOVE_ZERO})),
        ),
        (
            "RunRequest",
            "env",
            json!({"propertyNames": {"minLength": 1, "pattern": "^[^=]*$"}}),
        ),
        (
            "RunRequest",
            "file_name",
            nullable_string(json!({"pattern": FILE_NAME, "maxLength": 255})),
        ),
        (
            "RunRequest",
            "skill",
            nullable_string(
                json!({"minLength": 1, "maxLength": 128, "pattern": "^[^\\s/\\\\$\\x00-\\x1f\\x7f-\\x9f]+$"}),
            ),
        ),
        (
            "RunRequest",
            "callback_url",
            nullable_string(
                json!({"format": "uri", "pattern": "^https?://[^\\s/?#@]+(/[^\\s]*)?$"}),
            ),
        ),
        (
            "RunRequest",
            "not_before",
            nullable_string(json!({"format": "date-time"})),
        ),
        ("WorkflowSubmission", "priority", priority),
        ("WorkflowSubmission", "idempotency_key", idempotency_key),
        ("WorkflowSubmission", "labels", labels.clone()),
        ("WorkflowSubmission", "base_dir", absolute()),
        (
            "WorkflowSubmission",
            "file",
            nullable_string(json!({"pattern": "^/.*\\.(yaml|yml|json)$"})),
        ),
        (
            "ApprovalAnswer",
            "decision",
            json!({"enum": ["allow", "deny"], "type": "string"}),
        ),
        ("LabelCancel", "labels", {
            let mut l = labels;
            l["minProperties"] = json!(1);
            l
        }),
        (
            "TokenRequest",
            "scopes",
            json!({"minItems": 1, "items": {"enum": agentgate_store::Scope::ALL.iter().map(|s| s.name()).collect::<Vec<_>>()}}),
        ),
        (
            "TokenRequest",
            "name",
            json!({"minLength": 1, "maxLength": 64, "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]*$", "not": {"const": "serve"}, "description": "Its unique name (letters, digits, `.`, `_`, `-`); not `serve`, the server's own token's name."}),
        ),
        ("TokenRequest", "max_running", at_least_one()),
    ];
    for field in [
        "timeout",
        "idle_timeout",
        "extend_on_activity",
        "max_timeout",
        "warm_idle",
    ] {
        rules.push(("RunRequest", field, duration()));
    }
    for field in [
        "system_file",
        "agent_file",
        "context_dir",
        "cwd",
        "binary",
        "output_schema",
    ] {
        rules.push(("RunRequest", field, absolute()));
    }
    for field in ["context", "add_dirs"] {
        rules.push((
            "RunRequest",
            field,
            json!({"items": {"type": "string", "pattern": ABSOLUTE}}),
        ));
    }
    rules
}

/// One message of a run's event stream, as OpenAPI 3.1 describes an
/// event stream: each event's fields.
fn server_sent_event() -> Value {
    json!({
        "type": "object",
        "description": "One SSE message: a protocol event (`event` absent or `message`, `id` its `seq`, `data` its JSON line, an `Event`), an answer chunk (no `id`), `requeued` (the job runs again) or `end` (a `StreamEnd`)",
        "required": ["data"],
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9]+$"},
            "event": {"type": "string", "enum": ["message", "requeued", "end"]},
            "data": {"type": "string"},
            "retry": {"type": "integer", "minimum": 0}
        }
    })
}

/// The task input object of a run (`task`), as `agentgate run` reads one.
fn task_input() -> Value {
    json!({
        "type": "object",
        "description": "A task input: what `agentgate run` reads from stdin as JSON.",
        "additionalProperties": false,
        "required": ["prompt"],
        "properties": {
            "prompt": {"type": "string", "pattern": "\\S", "description": "What to do (not blank)."},
            "context": {"description": "Context for the task: a string as is, other JSON pretty-printed."},
            "persona": {"type": ["string", "null"], "description": "The persona (unless the run's `persona` gives one)."},
            "files": {"type": "array", "items": {"type": "string", "pattern": ABSOLUTE}, "description": "Context files (absolute paths)."},
            "file_name": {"type": ["string", "null"], "pattern": FILE_NAME, "maxLength": 255, "description": "The name of the file the task came from."}
        }
    })
}

/// Rules on a whole component schema.
fn schema_rules() -> Vec<(&'static str, Value)> {
    vec![
        (
            "RunRequest",
            json!({
                "example": {"prompt": "Say hello in one word.", "providers": ["claude"], "labels": {"origin": "example"}},
                "description": "A run: exactly one of `prompt` (a non-blank text) and `task` (a task input object), or neither with a `skill`; then the fields of `agentgate run`'s flags (paths absolute) and the queue's own (priority, idempotency_key, not_before, callback_url). Unknown fields are refused. Names of the config (providers, agents, chain, tools, model) and paths on the server's disk are checked against the server's config and files: see the operation's `x-agentgate-checked-beyond-schema`.",
                "oneOf": [
                    {"title": "RunWithPrompt", "required": ["prompt"], "properties": {"prompt": {"type": "string", "pattern": "\\S"}, "task": {"type": "null"}}},
                    {"title": "RunWithTask", "required": ["task"], "properties": {"task": {"$ref": "#/components/schemas/TaskInput"}, "prompt": {"type": "null"}}},
                    {"title": "RunWithSkill", "required": ["skill"], "properties": {"skill": {"type": "string"}, "prompt": {"type": ["string", "null"], "pattern": "^\\s*$"}, "task": {"type": "null"}}}
                ],
                "not": {"anyOf": [
                    {"required": ["file_name", "task"], "properties": {"file_name": {"type": "string"}, "task": {"required": ["file_name"], "properties": {"file_name": {"type": "string"}}}}},
                    {"required": ["rotate_handoff", "rotate_prompt"], "properties": {"rotate_handoff": {"enum": ["none", "summary"]}, "rotate_prompt": {"type": "string", "pattern": "\\S"}}},
                    {"required": ["rotate_handoff"], "properties": {"rotate_handoff": {"const": "prompt"}}, "not": {"required": ["rotate_prompt"], "properties": {"rotate_prompt": {"type": "string", "pattern": "\\S"}}}},
                    {"required": ["warm"], "properties": {"warm": {"const": true}}, "not": {"required": ["session"], "properties": {"session": {"type": "string"}}}},
                    {"required": ["session_busy"], "properties": {"session_busy": {"type": "string"}}, "not": {"required": ["session"], "properties": {"session": {"type": "string"}}}},
                    {"required": ["warm_idle"], "properties": {"warm_idle": {"type": "string"}}, "not": {"required": ["warm"], "properties": {"warm": {"const": true}}}},
                    {"required": ["input"], "properties": {"input": {"not": {"type": "null"}}}, "not": {"required": ["skill"], "properties": {"skill": {"type": "string"}}}},
                    {"required": ["session", "resume"], "properties": {"session": {"type": "string"}, "resume": {"type": "string"}}},
                    {"required": ["providers", "agents"], "properties": {"providers": {"minItems": 1}, "agents": {"minItems": 1}}},
                    {"required": ["providers", "chain"], "properties": {"providers": {"minItems": 1}, "chain": {"type": "string"}}},
                    {"required": ["agents", "chain"], "properties": {"agents": {"minItems": 1}, "chain": {"type": "string"}}}
                ]}
            }),
        ),
        (
            "WorkflowSubmission",
            json!({
                "description": "A workflow: `workflow` (its text, YAML or JSON, or the workflow as a JSON object) with `base_dir` (the absolute folder its relative paths are found from), or `file` (the absolute path of a workflow file on the server's machine) alone; then its input and the queue's fields. `base_dir` and `file` must lie in the server's folders (the folder it was started in, its config file's folder).",
                "oneOf": [
                    {"title": "WorkflowWithDefinition", "required": ["workflow", "base_dir"], "properties": {"workflow": {"oneOf": [{"type": "string"}, {"type": "object", "title": "WorkflowObject", "additionalProperties": true}]}, "base_dir": {"type": "string"}, "file": {"type": "null"}}},
                    {"title": "WorkflowFromFile", "required": ["file"], "properties": {"file": {"type": "string"}, "workflow": {"type": "null"}, "base_dir": {"type": "null"}}}
                ]
            }),
        ),
    ]
}

/// Rules on the parameters of an operation: (method, path, parameter,
/// its schema).
fn parameter_rules() -> Vec<(&'static str, &'static str, &'static str, Value)> {
    let states: Vec<&str> = agentgate_store::JobState::ALL
        .iter()
        .map(|s| s.as_str())
        .collect();
    let non_empty = || json!({"type": "string", "minLength": 1});
    let label = json!({"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._-]{0,62}=[^\\x00-\\x1f\\x7f-\\x9f]{1,256}$"});
    let page = json!({"type": "integer", "minimum": 1, "maximum": crate::runs::MAX_PAGE});
    let duration = json!({"type": "string", "pattern": DURATION});
    let time_bound =
        || json!({"type": "string", "anyOf": [{"format": "date"}, {"format": "date-time"}]});
    vec![
        (
            "get",
            "/v1/runs",
            "status",
            json!({"type": "string", "enum": states}),
        ),
        ("get", "/v1/runs", "provider", non_empty()),
        ("get", "/v1/runs", "session", non_empty()),
        ("get", "/v1/runs", "label", label),
        ("get", "/v1/runs", "since", time_bound()),
        ("get", "/v1/runs", "until", time_bound()),
        ("get", "/v1/runs", "limit", page.clone()),
        (
            "get",
            "/v1/runs/{id}/events",
            "coalesce",
            json!({"type": "string", "enum": ["paragraph", "sentence", "size"]}),
        ),
        (
            "get",
            "/v1/runs/{id}/events",
            "coalesce_min_interval",
            duration.clone(),
        ),
        ("get", "/v1/runs/{id}/events", "coalesce_idle", duration),
        (
            "get",
            "/v1/runs/{id}/events",
            "coalesce_max_chars",
            json!({"type": "integer", "minimum": 1, "maximum": u64::MAX}),
        ),
        (
            "get",
            "/v1/runs/{id}/events",
            "Last-Event-ID",
            // Empty is no Last-Event-ID.
            json!({"oneOf": [{"type": "integer", "minimum": 0, "maximum": u64::MAX}, {"type": "string", "maxLength": 0}]}),
        ),
        (
            "get",
            "/v1/usage",
            "by",
            json!({"type": "string", "enum": ["day", "week", "month"]}),
        ),
        (
            "get",
            "/v1/usage",
            "group",
            json!({"type": "string", "pattern": "^(provider|model|agent|chain|session|label|label:[A-Za-z0-9][A-Za-z0-9._-]{0,62})$"}),
        ),
        ("get", "/v1/usage", "since", time_bound()),
        ("get", "/v1/usage", "until", time_bound()),
        (
            "get",
            "/v1/webhooks/deliveries",
            "status",
            json!({"type": "string", "enum": ["pending", "delivered", "refused", "failed"]}),
        ),
        ("get", "/v1/webhooks/deliveries", "limit", page),
        (
            "get",
            "/v1/skills",
            "cwd",
            json!({"type": "string", "pattern": ABSOLUTE}),
        ),
    ]
}

/// Rules on whole operations: what their refusals may depend on beyond
/// the document.
fn operation_rules() -> Vec<(&'static str, &'static str, Value)> {
    let state = |fields: &[&str]| json!({"x-agentgate-checked-beyond-schema": fields});
    vec![
        (
            "post",
            "/v1/runs",
            state(&[
                "providers",
                "agents",
                "chain",
                "model",
                "tools",
                "binary",
                "cwd",
                "system_file",
                "agent_file",
                "context",
                "context_dir",
                "add_dirs",
                "output_schema",
                "task.files",
                "sandbox",
                "session",
                "resume",
                "skill",
                "workspace",
                "callback_url",
                "gateway",
                "max_model_calls",
                "max_input_tokens",
                "max_output_tokens",
                "max_model_time",
                "record_model_calls",
                "rotate_prompt",
                "input",
            ]),
        ),
        (
            "post",
            "/v1/workflows",
            state(&["workflow", "base_dir", "file", "sandbox"]),
        ),
        // `until` must be after `since`.
        ("get", "/v1/runs", state(&["cursor", "since", "until"])),
        (
            "get",
            "/v1/runs/{id}/events",
            state(&[
                "coalesce_min_interval",
                "coalesce_max_chars",
                "coalesce_idle",
            ]),
        ),
        ("get", "/v1/webhooks/deliveries", state(&["cursor"])),
        ("get", "/v1/skills", state(&["provider", "cwd"])),
        ("get", "/v1/models", state(&["provider"])),
        ("get", "/v1/usage", state(&["group", "since", "until"])),
        ("post", "/v1/tokens", state(&["expires", "team"])),
    ]
}
