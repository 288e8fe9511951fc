//! The executor's warm sessions: turns of requests with `warm: true` go to
//! the processes of one holder, which live on a runtime of their own.
//!
//! Each job runs on its own thread and current-thread runtime, which ends
//! with the job; a warm process's tasks (its pipes, its supervisor) must
//! outlive the turn. So a warm job's run is driven with this runtime's
//! handle (`Handle::block_on` on the job's thread): what it spawns, the
//! warm process included, lives on the runtime's worker until the holder
//! ends it (idle, the per-provider limit, the server's stop). Every warm
//! process runs under the keeper, which watches the server.

use agentgate_core::warm::sessions::{WarmSessions, WarmSettings};

/// The holder and the runtime its processes live on.
#[derive(Debug)]
pub(super) struct WarmHold {
    runtime: Option<tokio::runtime::Runtime>,
    pub sessions: WarmSessions,
}

impl WarmHold {
    /// One worker thread: the processes' tasks only read and write pipes.
    pub fn start() -> std::io::Result<WarmHold> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("agentgate-warm")
            .enable_all()
            .build()?;
        let sessions = {
            let _in = runtime.enter();
            let sessions = WarmSessions::new(WarmSettings::default());
            sessions.watch_idle();
            sessions
        };
        Ok(WarmHold {
            runtime: Some(runtime),
            sessions,
        })
    }

    /// The runtime's handle, to drive a warm job's run with.
    pub fn handle(&self) -> Option<tokio::runtime::Handle> {
        self.runtime.as_ref().map(|r| r.handle().clone())
    }

    /// End every warm process (the server stops), waiting for them.
    pub fn end_all(&self) {
        if let Some(handle) = self.handle() {
            handle.block_on(self.sessions.end_all());
        }
    }
}

impl Drop for WarmHold {
    fn drop(&mut self) {
        // Possibly dropped inside another runtime: never block here.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
