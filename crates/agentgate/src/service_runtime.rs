//! The async runtime of the long-running commands (`serve`, `worker`).

use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;

/// Runs `work` on a two-thread runtime; once it returns, tasks still
/// running (a health probe, a store call past the grace) get a second and
/// are not waited for.
pub fn block_on(work: impl Future<Output = anyhow::Result<ExitCode>>) -> anyhow::Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("failed to start the async runtime")?;
    // Traces, when the OTEL_* variables configure an export: set up before
    // any job runs, the spans still queued sent (bounded) once it stopped.
    let traced = agentgate_telemetry::init_from_env().is_some();
    let result = rt.block_on(work);
    if traced {
        agentgate_telemetry::shutdown(agentgate_telemetry::FINAL_FLUSH);
    }
    rt.shutdown_timeout(Duration::from_secs(1));
    result
}
