//! The dashboard: one HTML page, a style sheet and its scripts (the page's
//! panels, the runs list's cells, the New run form, a run's transcript
//! with its Markdown renderer and failover timeline, a workflow's steps,
//! and the usage charts drawn as SVG from `GET /v1/usage`), compiled into
//! the binary (no build step, nothing fetched), served open at `/` and
//! `/assets/*`. The page holds no data: it asks for the token once, keeps
//! it in the browser's localStorage, and reads everything from the `/v1`
//! API with it, as any other client does. A strict Content-Security-Policy
//! allows only this server's own scripts, styles and requests.

use axum::Router;
use axum::http::header::{self, HeaderName, HeaderValue};
use axum::response::IntoResponse;
use axum::routing::get;

/// The page.
const INDEX_HTML: &str = include_str!("index.html");
/// Its script.
const APP_JS: &str = include_str!("app.js");
/// The runs list's cells (durations, costs, relative times).
const RUNS_JS: &str = include_str!("runs.js");
/// The New run form.
const SUBMIT_JS: &str = include_str!("submit.js");
/// A run's transcript (its events as they come).
const TRANSCRIPT_JS: &str = include_str!("transcript.js");
/// The transcript's Markdown, rendered as DOM nodes.
const MARKDOWN_JS: &str = include_str!("markdown.js");
/// A workflow run as its steps.
const WORKFLOW_JS: &str = include_str!("workflow.js");
/// A run's failover timeline.
const TIMELINE_JS: &str = include_str!("timeline.js");
/// The page's keys.
const KEYS_JS: &str = include_str!("keys.js");
/// The usage view's script (its charts).
const USAGE_JS: &str = include_str!("usage.js");
/// Its style sheet.
const STYLE_CSS: &str = include_str!("style.css");

/// What the browser may load and connect to: this server only.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; \
     base-uri 'none'";

/// The dashboard's routes.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route(
            "/",
            get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }),
        )
        .route(
            "/assets/app.js",
            get(|| async { asset("text/javascript; charset=utf-8", APP_JS) }),
        )
        .route(
            "/assets/runs.js",
            get(|| async { asset("text/javascript; charset=utf-8", RUNS_JS) }),
        )
        .route(
            "/assets/submit.js",
            get(|| async { asset("text/javascript; charset=utf-8", SUBMIT_JS) }),
        )
        .route(
            "/assets/transcript.js",
            get(|| async { asset("text/javascript; charset=utf-8", TRANSCRIPT_JS) }),
        )
        .route(
            "/assets/markdown.js",
            get(|| async { asset("text/javascript; charset=utf-8", MARKDOWN_JS) }),
        )
        .route(
            "/assets/workflow.js",
            get(|| async { asset("text/javascript; charset=utf-8", WORKFLOW_JS) }),
        )
        .route(
            "/assets/timeline.js",
            get(|| async { asset("text/javascript; charset=utf-8", TIMELINE_JS) }),
        )
        .route(
            "/assets/usage.js",
            get(|| async { asset("text/javascript; charset=utf-8", USAGE_JS) }),
        )
        .route(
            "/assets/keys.js",
            get(|| async { asset("text/javascript; charset=utf-8", KEYS_JS) }),
        )
        .route(
            "/assets/style.css",
            get(|| async { asset("text/css; charset=utf-8", STYLE_CSS) }),
        )
}

fn asset(content_type: &'static str, body: &'static str) -> impl IntoResponse {
    let headers: [(HeaderName, HeaderValue); 5] = [
        (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        ),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ),
        // A new binary serves a new page: revalidate rather than cache.
        (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
    ];
    (headers, body)
}
