//! The document says what the server means: the requests the issue found
//! refused although the document called them valid (a run with neither
//! prompt nor task, a decision neither allow nor deny, a workflow without
//! its base folder, an empty provider filter) are invalid by the
//! document's own schemas, read by a JSON Schema validator; the requests
//! the server takes are valid. (`suite::serve_schemathesis` of the binary
//! checks the whole document against a running server.)

use serde_json::{Value, json};

#[expect(clippy::unwrap_used, reason = "a test's helper")]
fn document() -> Value {
    serde_json::from_str(&agentgate_server::openapi_json()).unwrap()
}

/// A validator of `schema` (a JSON Schema using the document's
/// components).
#[expect(clippy::unwrap_used, reason = "a test's helper")]
fn validator(doc: &Value, schema: Value) -> jsonschema::Validator {
    let mut root = schema;
    root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    root["components"] = doc["components"].clone();
    jsonschema::validator_for(&root).unwrap()
}

fn component(doc: &Value, name: &str) -> jsonschema::Validator {
    validator(doc, json!({"$ref": format!("#/components/schemas/{name}")}))
}

#[test]
fn a_run_needs_exactly_one_of_prompt_and_task_or_a_skill() {
    let doc = document();
    let run = component(&doc, "RunRequest");
    for valid in [
        json!({"prompt": "hi"}),
        json!({"task": {"prompt": "hi", "files": ["/a.md"]}}),
        json!({"skill": "review"}),
        json!({"skill": "review", "prompt": "and this"}),
        json!({"prompt": "hi", "providers": ["claude"], "priority": 1000, "warm": true, "session": "s"}),
        json!({"prompt": "hi", "timeout": "1h30m", "labels": {"chat": "42"}, "rotate_handoff": "prompt", "rotate_prompt": "go on"}),
    ] {
        assert!(run.is_valid(&valid), "{valid} should be valid");
    }
    for invalid in [
        json!({}),
        json!({"providers": ["claude"]}),
        json!({"prompt": "   "}),
        json!({"prompt": "hi", "task": {"prompt": "ho"}}),
        json!({"task": {"context": "no prompt"}}),
        json!({"prompt": "hi", "bogus": 1}),
        json!({"prompt": "hi", "priority": 1001}),
        json!({"prompt": "hi", "warm": true}),
        json!({"prompt": "hi", "session": "s", "resume": "r"}),
        json!({"prompt": "hi", "providers": ["claude"], "chain": "c"}),
        json!({"prompt": "hi", "cwd": "relative/path"}),
        json!({"prompt": "hi", "timeout": "soon"}),
        json!({"prompt": "hi", "permission_mode": "yolo"}),
        json!({"prompt": "hi", "labels": {"": "x"}}),
        json!({"prompt": "hi", "rotate_handoff": "prompt"}),
    ] {
        assert!(!run.is_valid(&invalid), "{invalid} should be invalid");
    }
}

#[test]
fn a_decision_is_allow_or_deny_and_a_workflow_has_its_base_folder_or_a_file() {
    let doc = document();
    let answer = component(&doc, "ApprovalAnswer");
    assert!(answer.is_valid(&json!({"decision": "allow"})));
    assert!(answer.is_valid(&json!({"decision": "deny", "message": "no"})));
    assert!(!answer.is_valid(&json!({"decision": "maybe"})));
    let workflow = component(&doc, "WorkflowSubmission");
    assert!(workflow.is_valid(&json!({"workflow": "version: 1", "base_dir": "/srv/w"})));
    assert!(workflow.is_valid(&json!({"file": "/srv/w/flow.yaml", "input": {"n": 1}})));
    assert!(!workflow.is_valid(&json!({"workflow": "version: 1"})));
    assert!(
        !workflow
            .is_valid(&json!({"file": "/srv/w/flow.yaml", "workflow": "x", "base_dir": "/srv"}))
    );
    assert!(!workflow.is_valid(&json!({})));
}

#[test]
fn an_empty_provider_filter_is_outside_the_document() {
    let doc = document();
    let params = doc["paths"]["/v1/runs"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let schema_of =
        |name: &str| params.iter().find(|p| p["name"] == name).unwrap()["schema"].clone();
    let provider = validator(&doc, schema_of("provider"));
    assert!(provider.is_valid(&json!("claude")));
    assert!(!provider.is_valid(&json!("")));
    let status = validator(&doc, schema_of("status"));
    assert!(status.is_valid(&json!("running")));
    assert!(!status.is_valid(&json!("sleeping")));
    let limit = validator(&doc, schema_of("limit"));
    assert!(limit.is_valid(&json!(500)));
    assert!(!limit.is_valid(&json!(501)));
}

#[test]
fn a_created_run_links_to_its_page_events_cancel_and_approvals() {
    let doc = document();
    let ids: std::collections::HashSet<String> = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|item| item.as_object().unwrap().values())
        .filter_map(|op| op["operationId"].as_str().map(str::to_owned))
        .collect();
    for (path, status) in [
        ("/v1/runs", "201"),
        ("/v1/workflows", "201"),
        ("/v1/runs/{id}/cancel", "202"),
    ] {
        let links = &doc["paths"][path]["post"]["responses"][status]["links"];
        for (link, target) in [
            ("GetRun", "get_run"),
            ("GetRunEvents", "run_events"),
            ("CancelRun", "cancel"),
            ("GetRunApprovals", "pending"),
        ] {
            assert_eq!(links[link]["operationId"], target, "{path} {status} {link}");
            assert_eq!(links[link]["parameters"]["id"], "$response.body#/run_id");
            assert!(ids.contains(target), "no operation {target}");
        }
    }
    // Every operation id is unique (the client generators name methods by them).
    let count: usize = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| item.as_object().unwrap().len())
        .sum();
    assert_eq!(ids.len(), count);
}
