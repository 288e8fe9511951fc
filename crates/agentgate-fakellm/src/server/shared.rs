//! The state every request of one server sees: the script engine (or the
//! replay player), the request log, the request counter and the stop
//! signal.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::watch;

use super::options::{Answers, ServerOptions};
use super::respond::StopSignal;
use crate::engine::Engine;
use crate::log::{LogEntry, RequestLog};
use crate::replay::Replay;
use crate::script::Script;

/// The state shared by every request.
#[derive(Debug)]
pub struct Shared {
    pub(super) engine: Engine,
    pub(super) replay: Option<Replay>,
    pub(super) log: RequestLog,
    pub(super) require_key: Option<String>,
    counter: AtomicU64,
    stop: watch::Sender<bool>,
}

impl Shared {
    /// The state of a server answering as `config` says (its TLS setting
    /// is the listener's business and is not used here).
    pub fn new(config: impl Into<ServerOptions>) -> std::io::Result<Arc<Shared>> {
        let options = config.into();
        let (script, replay) = match options.answers {
            Answers::Script(script) => (script, None),
            Answers::Replay(recording) => (Script::default(), Some(Replay::new(recording))),
        };
        Ok(Arc::new(Shared {
            engine: Engine::new(script),
            replay,
            log: RequestLog::open(options.log_path.as_deref())?,
            require_key: options.require_key,
            counter: AtomicU64::new(0),
            stop: watch::channel(false).0,
        }))
    }

    /// The requests logged so far.
    pub fn requests(&self) -> Vec<LogEntry> {
        self.log.entries()
    }

    /// Uses left per scripted turn (`None` = unlimited), in script order.
    pub fn turns_remaining(&self) -> Vec<Option<u32>> {
        self.engine.remaining()
    }

    /// Release hanging requests and tell the listener to stop.
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }

    /// The number of the next request, from 1.
    pub(super) fn next_request(&self) -> u64 {
        self.counter.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// A signal that fires when the server stops.
    pub(super) fn stop_signal(&self) -> StopSignal {
        StopSignal::new(self.stop.subscribe())
    }

    /// Resolves when the server stops.
    pub(super) fn until_shutdown(&self) -> impl std::future::Future<Output = ()> + use<> {
        self.stop_signal().wait()
    }
}
