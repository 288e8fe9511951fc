//! The document's OpenAPI `links`: from the answer that names a run (a
//! submitted run or workflow, a cancel) to the operations on that run, so
//! a client, or a fuzzer's stateful phase, goes from a created run to its
//! page, its events, its cancel and its approvals without knowing the
//! paths; and from a created token to its revoke.

use serde_json::{Value, json};

/// The links of one answer that holds a run's `run_id`.
fn run_links() -> Value {
    let id = json!({"id": "$response.body#/run_id"});
    json!({
        "GetRun": {"operationId": "get_run", "parameters": id, "description": "The run: its state, request and envelope"},
        "GetRunEvents": {"operationId": "run_events", "parameters": id, "description": "The run's events (SSE), from its start"},
        "CancelRun": {"operationId": "cancel", "parameters": id, "description": "Cancel the run"},
        "GetRunApprovals": {"operationId": "pending", "parameters": id, "description": "The run's requests waiting for a person's answer"},
    })
}

/// Adds the links to the answers that name a run or a token; the answers
/// not found go to `missing`.
pub(crate) fn add(doc: &mut Value, missing: &mut Vec<String>) {
    let run_answers = [
        ("/v1/runs", "post", "201"),
        ("/v1/runs", "post", "200"),
        ("/v1/workflows", "post", "201"),
        ("/v1/workflows", "post", "200"),
        ("/v1/runs/{id}/cancel", "post", "200"),
        ("/v1/runs/{id}/cancel", "post", "202"),
    ];
    for (path, method, status) in run_answers {
        let pointer = format!(
            "/paths/{}/{method}/responses/{status}",
            path.replace('/', "~1")
        );
        crate::openapi_rules::merge_at(doc, &pointer, json!({"links": run_links()}), missing);
    }
    crate::openapi_rules::merge_at(
        doc,
        "/paths/~1v1~1tokens/post/responses/201",
        json!({"links": {"RevokeToken": {
            "operationId": "revoke_token",
            "parameters": {"name": "$response.body#/name"},
            "description": "Revoke the token just made"
        }}}),
        missing,
    );
}
