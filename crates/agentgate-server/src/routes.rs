//! The handlers. Each one calls the library function its CLI command
//! calls and answers the same JSON.

use std::sync::Arc;
use std::time::Instant;

use agentgate_core::health::{self, HealthReport};
use axum::Json;
use axum::extract::State;
use serde::Serialize;

use crate::error::ApiError;
use crate::state::AppState;

/// The body of `GET /healthz`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Healthz {
    /// Always true: the server answers.
    pub ok: bool,
    /// agentgate's version.
    pub version: &'static str,
}

/// `GET /healthz`: open, no token; says the server is up.
#[utoipa::path(
    get,
    path = "/healthz",
    tag = "server",
    security(()),
    responses((status = 200, description = "The server answers", body = Healthz)),
)]
pub async fn healthz() -> Json<Healthz> {
    Json(Healthz {
        ok: true,
        version: env!("CARGO_PKG_VERSION"),
    })
}

/// `GET /v1/health`: what `agentgate health --json` prints, for every
/// provider of the config. The `--version` probes run at most once per
/// 10 s (`HEALTH_TTL`); requests meanwhile get the same report, and
/// concurrent requests wait for one probe.
#[utoipa::path(
    get,
    path = "/v1/health",
    tag = "providers",
    responses(
        (status = 200, description = "What `agentgate health --json` prints", body = HealthReport),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn v1_health(State(state): State<Arc<AppState>>) -> Result<Json<HealthReport>, ApiError> {
    let mut cached = state.health.lock().await;
    if let Some((at, report)) = cached.as_ref()
        && at.elapsed() < state.health_ttl
    {
        return Ok(Json(HealthReport::clone(report)));
    }
    let probe_state = Arc::clone(&state);
    let report = tokio::task::spawn_blocking(move || {
        let providers = probe_state.config.all_providers();
        let env = |k: &str| std::env::var(k).ok();
        // `serve` is the agentgate binary: its `__sandbox --probe` finds
        // what the kernel allows.
        let kernel = match std::env::current_exe() {
            Ok(agentgate) => agentgate_tools::sandbox::kernel_support(&agentgate),
            Err(e) => health::KernelSupport::unavailable(&format!(
                "cannot find the agentgate binary to probe: {e}"
            )),
        };
        health::check_all(
            &providers,
            probe_state.home.as_deref(),
            &env,
            probe_state.probe_timeout,
            kernel,
        )
    })
    .await
    .map_err(|e| ApiError::internal(format!("the health check failed: {e}")))?;
    let report = Arc::new(report);
    *cached = Some((Instant::now(), Arc::clone(&report)));
    Ok(Json(HealthReport::clone(&report)))
}
