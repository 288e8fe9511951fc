//! One run at a time per `--session` name.
//!
//! A run with a session name takes the store's lock of that name
//! ([`RunStore::try_lock_session`]) before its first step looks the session
//! up, and keeps it until the run has saved the session after its last
//! attempt. Two runs of one name at once would otherwise both find no
//! native session and create two, or both read the turn count and store it
//! plus one.
//!
//! The store only offers a non-blocking try; waiting is a poll here (a
//! short sleep that grows to [`MAX_POLL`]), so the run's deadline and the
//! caller's cancel stay in the run's hands and a crashed holder (whose lock
//! the store's backend releases) never blocks a waiter.

use std::time::Duration;

use agentgate_protocol::{ErrorInfo, ErrorKind, ErrorSource, LogLevel};
use agentgate_store::{RunStore, SessionLock};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::emitter::Emitter;
use super::options::CancelRequest;
use crate::plan::SessionBusy;

/// The first wait between two tries.
const FIRST_POLL: Duration = Duration::from_millis(10);
/// The longest wait between two tries.
const MAX_POLL: Duration = Duration::from_millis(200);

/// The lock of session `name`: held, or the error the run ends with
/// (`session_busy` when refused or waited for past `deadline`, `cancelled`
/// when the caller cancelled while waiting). A store that fails to lock is
/// logged and the run goes on unlocked, as it does when the store fails to
/// record it.
pub(super) async fn lock_session(
    store: &dyn RunStore,
    name: &str,
    busy: SessionBusy,
    deadline: Option<Duration>,
    em: &mut Emitter<'_>,
    cancel: &mut mpsc::Receiver<CancelRequest>,
) -> Result<Option<SessionLock>, ErrorInfo> {
    let start = Instant::now();
    let mut poll = FIRST_POLL;
    let mut cancel_open = true;
    let mut announced = false;
    loop {
        match store.try_lock_session(name) {
            Ok(Some(lock)) => return Ok(Some(lock)),
            Ok(None) => {}
            Err(e) => {
                em.log(
                    LogLevel::Warn,
                    format!("failed to lock session `{name}`, running without the lock: {e}"),
                );
                return Ok(None);
            }
        }
        if busy == SessionBusy::Fail {
            return Err(busy_error(format!(
                "session `{name}` is in use by another run (--session-busy fail); \
                 try again when it has finished, or use --session-busy wait"
            )));
        }
        if let Some(limit) = deadline
            && start.elapsed() >= limit
        {
            return Err(busy_error(format!(
                "session `{name}` stayed in use by another run for the whole timeout ({:.1} s)",
                limit.as_secs_f64()
            )));
        }
        if !announced {
            announced = true;
            em.log(
                LogLevel::Info,
                format!("session `{name}` is in use by another run; waiting for it to finish"),
            );
        }
        let mut nap = poll;
        if let Some(limit) = deadline {
            nap = nap.min(limit.saturating_sub(start.elapsed()));
        }
        tokio::select! {
            () = tokio::time::sleep(nap) => {}
            request = cancel.recv(), if cancel_open => match request {
                Some(_) => {
                    return Err(ErrorInfo::new(
                        ErrorKind::Cancelled,
                        ErrorSource::Internal,
                        format!("cancelled while waiting for session `{name}`"),
                    ));
                }
                None => cancel_open = false,
            },
        }
        poll = (poll * 2).min(MAX_POLL);
    }
}

fn busy_error(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorKind::SessionBusy, ErrorSource::Internal, message)
}
