//! The OpenAPI 3.1 document of the API, generated from the handlers'
//! `#[utoipa::path]` annotations and the types of [`crate::views`] (and the
//! library types they hold), served at `GET /v1/openapi.json` and checked in
//! as `docs/openapi.json`.
//!
//! **Adding a route to the document** is one line: its handler, annotated
//! with `#[utoipa::path(...)]` like the others, goes in the `paths(...)` list
//! of [`ApiDoc`]. Then regenerate the checked-in file:
//!
//! ```text
//! AGENTGATE_BLESS=1 cargo test -p agentgate-server --test openapi
//! ```
//!
//! (without `AGENTGATE_BLESS=1` that test fails when the file drifts from
//! the generated document).

use std::sync::LazyLock;

use axum::Json;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};

use crate::error::ErrorBody;
use crate::views::StreamEnd;
use crate::{events, info, routes, runs};

/// The document's definition: every route, the shared schemas, bearer auth
/// on everything but `/healthz`.
#[derive(Debug, OpenApi)]
#[openapi(
    info(
        title = "agentgate",
        description = "agentgate as a service: submit, list and follow runs of AI coding-agent \
                       CLIs behind one contract (JSONL events, a JSON envelope). Every /v1 route \
                       needs `Authorization: Bearer TOKEN`; errors are `{\"error\": {\"type\", \
                       \"message\"}}`."
    ),
    paths(
        routes::healthz,
        routes::v1_health,
        runs::list_runs,
        runs::get_run,
        events::run_events,
        info::queue,
        info::list_sessions,
        info::delete_session,
        info::quota,
        info::providers,
        openapi_json,
    ),
    components(schemas(ErrorBody, StreamEnd)),
    modifiers(&BearerAuth),
    security(("bearer" = [])),
    tags(
        (name = "runs", description = "Runs: list, one, their events, the queue"),
        (name = "sessions", description = "Logical sessions (`--session`)"),
        (name = "providers", description = "The agent CLIs: installed, healthy, their quota"),
        (name = "server", description = "The server itself"),
    ),
)]
pub struct ApiDoc;

/// Declares the `bearer` security scheme the document's `security` names.
struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)),
        );
    }
}

/// The document as JSON, as checked in: pretty, with a final newline.
pub fn document_json() -> String {
    let mut text = ApiDoc::openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"the OpenAPI document failed: {e}\"}}"));
    text.push('\n');
    text
}

static DOCUMENT: LazyLock<serde_json::Value> =
    LazyLock::new(|| serde_json::to_value(ApiDoc::openapi()).unwrap_or(serde_json::Value::Null));

/// `GET /v1/openapi.json`: this document.
#[utoipa::path(
    get,
    path = "/v1/openapi.json",
    tag = "server",
    responses(
        (status = 200, description = "The OpenAPI 3.1 document of this API", body = Object),
        (status = 401, description = "No valid bearer token", body = ErrorBody),
    ),
)]
pub async fn openapi_json() -> Json<serde_json::Value> {
    Json(DOCUMENT.clone())
}
