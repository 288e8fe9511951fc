//! What the long-running processes (`serve`, `worker`) share about their
//! process: the stop signals, and the open-files limit they raise (the
//! server keeps its connection limit under it: `agentgate_server`'s `conn`).

use std::future::Future;

use tokio::signal::unix::{Signal, SignalKind, signal};

use crate::StartError;

/// SIGTERM and SIGINT, each time one arrives. Installed by
/// [`StopSignals::install`]: call it before announcing the process (its URL
/// or its worker id), so a stop sent as soon as that is read is seen.
#[derive(Debug)]
pub struct StopSignals {
    term: Signal,
    int: Signal,
}

impl StopSignals {
    /// Install the handlers.
    pub fn install() -> Result<StopSignals, StartError> {
        let watch = |kind: SignalKind, name: &'static str| {
            signal(kind).map_err(|source| StartError::Signal {
                signal: name,
                source,
            })
        };
        Ok(StopSignals {
            term: watch(SignalKind::terminate(), "SIGTERM")?,
            int: watch(SignalKind::interrupt(), "SIGINT")?,
        })
    }

    /// The next SIGTERM or SIGINT.
    pub async fn next(&mut self) {
        tokio::select! {
            _ = self.term.recv() => {}
            _ = self.int.recv() => {}
        }
    }
}

/// A future that completes at the first SIGTERM or SIGINT (`serve`'s
/// shutdown). The handlers are installed by this call, so call it before
/// announcing the URL.
pub fn shutdown_signal() -> Result<impl Future<Output = ()> + Send, StartError> {
    let mut signals = StopSignals::install()?;
    Ok(async move { signals.next().await })
}

/// Each running job holds a few descriptors (the CLI's pipes, its keeper's,
/// the run's files), each event stream one: raise the soft limit on open
/// files to the hard one, as servers do (1024 is a common soft default, too
/// few for hundreds of jobs). A failure only leaves the limit as it was.
/// Returns the soft limit in force after, if it could be read.
pub fn raise_open_files_limit() -> Option<u64> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok((soft, hard)) if soft < hard => match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
            Ok(()) => Some(hard),
            Err(e) => {
                tracing::warn!("could not raise the open-files limit from {soft} to {hard}: {e}");
                Some(soft)
            }
        },
        Ok((soft, _)) => Some(soft),
        Err(e) => {
            tracing::warn!("could not read the open-files limit: {e}");
            None
        }
    }
}
