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
    let result = rt.block_on(work);
    rt.shutdown_timeout(Duration::from_secs(1));
    result
}
