//! A holder's warm sessions: the processes kept alive between turns (the
//! [`Pool`]'s rules: per-provider limit, least recently used ended first,
//! idle end), shared by the runs of one holder (a session host, `serve`).
//!
//! A turn takes its session's process out ([`WarmSessions::take`]) and
//! gives it back after ([`WarmSessions::put_back`]), or drops it when it
//! died; a process ended to keep a provider within its limit, or idle past
//! its time ([`WarmSessions::end_idle`], driven by the task
//! [`WarmSessions::watch_idle`] starts), is closed in the background. Every
//! process runs under the keeper, so none outlives the holder, even when
//! the holder is killed.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use agentgate_protocol::Usage;

use super::pool::Pool;
use super::process::WarmProcess;

/// How long a process closed by the holder may take to exit after its
/// input is closed before it is terminated.
pub const CLOSE_GRACE: Duration = Duration::from_secs(3);

/// A holder's settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarmSettings {
    /// Warm processes kept per provider (at least one).
    pub max_per_provider: usize,
    /// How long a process may stay idle when its run names no time.
    pub idle: Duration,
}

impl Default for WarmSettings {
    fn default() -> Self {
        WarmSettings {
            max_per_provider: 4,
            idle: Duration::from_secs(600),
        }
    }
}

/// A warm process with what its turns need.
#[derive(Debug)]
pub struct Warm {
    /// The process.
    pub process: WarmProcess,
    /// A hash of what it was started for (provider, program, model, mode,
    /// folder, system prompt, servers, environment): a turn that asks for
    /// something else gets a new process that resumes the session.
    pub fingerprint: u64,
    /// Its usage figures count from its start (see
    /// [`agentgate_providers::WarmCommand::cumulative_usage`]).
    pub cumulative_usage: bool,
    /// Those figures after its last turn, to subtract.
    pub totals: Option<Usage>,
    /// Its cost after its last turn (cumulative CLIs), to subtract.
    pub cost: Option<f64>,
    /// Files written for it, removed when it is dropped.
    pub files: agentgate_providers::RemovedOnDrop,
    /// What runs beside it and ends after it (its model gateway, its
    /// sandbox), if anything does.
    pub beside: Option<Box<dyn Beside>>,
}

/// What runs beside a warm process and ends after it: its model gateway
/// and its sandbox (the egress proxy, the container, the private
/// folders). The run module makes it and reads it each turn (through
/// [`Beside::as_any_mut`]); the holder only ends it, after the process
/// (so this module knows nothing of what it is, and imports nothing of
/// the run module).
pub trait Beside: Send + std::fmt::Debug {
    /// End it: the process has exited.
    fn end(self: Box<Self>) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;
    /// Itself, for the turn that knows its type.
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
}

impl Warm {
    /// A new process's.
    pub fn new(
        process: WarmProcess,
        fingerprint: u64,
        cumulative_usage: bool,
        files: Vec<PathBuf>,
    ) -> Self {
        Warm {
            process,
            fingerprint,
            cumulative_usage,
            totals: None,
            cost: None,
            files: agentgate_providers::RemovedOnDrop(files),
            beside: None,
        }
    }

    /// Close its input (the CLI ends by itself, terminated after `grace`
    /// if it does not), then end what runs beside it.
    pub async fn close(self, grace: Duration) {
        let Warm {
            process, beside, ..
        } = self;
        let _ = process.close(grace).await;
        if let Some(b) = beside {
            b.end().await;
        }
    }

    /// Kill it now, then end what runs beside it.
    pub async fn kill(mut self) {
        let _ = self.process.kill().await;
        if let Some(b) = self.beside.take() {
            b.end().await;
        }
    }
}

/// What [`WarmSessions::take`] found.
#[derive(Debug)]
pub enum Taken {
    /// The session's process, out for this turn.
    Held(Box<Warm>),
    /// No process: start one.
    None,
    /// The session's process was ended since its last turn: start one
    /// that resumes the session (`why`, and its native id if known).
    Gone {
        /// Why it ended.
        why: String,
        /// The session's native id, as the ended process knew it.
        native_id: Option<String>,
    },
    /// Another turn of the session has its process now.
    Busy,
}

/// The warm sessions of one holder (cheap to clone: shared).
#[derive(Debug, Clone)]
pub struct WarmSessions {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    pool: Mutex<Pool<Box<Warm>>>,
    settings: WarmSettings,
    /// When a process of this holder created each session's native id.
    born: Mutex<std::collections::HashMap<String, std::time::SystemTime>>,
    /// Sessions whose process this holder ended or saw die since their
    /// last turn: why, and the native id.
    gone: Mutex<std::collections::HashMap<String, (String, Option<String>)>>,
}

impl WarmSessions {
    /// An empty holder.
    pub fn new(settings: WarmSettings) -> Self {
        WarmSessions {
            shared: Arc::new(Shared {
                pool: Mutex::new(Pool::new(settings.max_per_provider)),
                settings,
                born: Mutex::default(),
                gone: Mutex::default(),
            }),
        }
    }

    fn pool(&self) -> MutexGuard<'_, Pool<Box<Warm>>> {
        // A panic while holding the lock left the pool as it was.
        self.shared
            .pool
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The process of `session`, taken out for a turn.
    pub fn take(&self, session: &str) -> Taken {
        let mut pool = self.pool();
        if pool.is_out(session) {
            return Taken::Busy;
        }
        match pool.take(session) {
            Some(w) => Taken::Held(w),
            None => match self.gone().remove(session) {
                Some((why, native_id)) => Taken::Gone { why, native_id },
                None => Taken::None,
            },
        }
    }

    fn gone(&self) -> MutexGuard<'_, std::collections::HashMap<String, (String, Option<String>)>> {
        self.shared
            .gone
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn ended(&self, session: &str, why: &str, w: &Warm) {
        let id = w.process.session_id().map(str::to_owned);
        self.gone().insert(session.to_owned(), (why.to_owned(), id));
    }

    /// Mark `session` as having a turn in progress while its first process
    /// starts (so a second turn waits or is refused instead of starting
    /// another).
    pub fn reserve(&self, session: &str, provider: &str) {
        self.pool().reserve(session, provider);
    }

    /// Give back `session`'s process after a turn, to be ended once idle
    /// for `idle` (the holder's default when `None`). Processes ended to
    /// keep `provider` within its limit are closed in the background.
    pub fn put_back(&self, session: &str, provider: &str, warm: Box<Warm>, idle: Option<Duration>) {
        let idle = idle.unwrap_or(self.shared.settings.idle);
        let evicted = self
            .pool()
            .put(session, provider, warm, Instant::now(), idle);
        for (name, w) in evicted {
            tracing::info!(
                session = name,
                provider,
                "ending the least recently used warm process"
            );
            self.ended(
                &name,
                "it was ended to keep its provider within the warm limit",
                &w,
            );
            close_in_background(w);
        }
    }

    /// Forget `session`'s process (it died, or the turn ended it); `why`
    /// and its native id are remembered for the next turn's envelope.
    pub fn forget(&self, session: &str, why: Option<(&str, Option<&str>)>) {
        self.pool().forget(session);
        if let Some((why, id)) = why {
            self.gone()
                .insert(session.to_owned(), (why.to_owned(), id.map(str::to_owned)));
        }
    }

    /// A process of this holder created `native_id` now.
    pub fn born(&self, native_id: &str) {
        let mut born = self
            .shared
            .born
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        born.insert(native_id.to_owned(), std::time::SystemTime::now());
    }

    /// When a process of this holder created `native_id`, if one did.
    pub fn born_at(&self, native_id: &str) -> Option<std::time::SystemTime> {
        let born = self
            .shared
            .born
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        born.get(native_id).copied()
    }

    /// The sessions with a warm process now (out for a turn or not).
    pub fn sessions(&self) -> Vec<String> {
        self.pool().names()
    }

    /// End the processes idle past their time; how many.
    pub fn end_idle(&self) -> usize {
        let due = self.pool().idle(Instant::now());
        let n = due.len();
        for (name, w) in due {
            tracing::info!(session = name, "ending an idle warm process");
            self.ended(&name, "it had been idle past its time", &w);
            close_in_background(w);
        }
        n
    }

    /// A task ending idle processes at their time, until the holder is
    /// dropped everywhere else.
    pub fn watch_idle(&self) -> tokio::task::JoinHandle<()> {
        let weak = Arc::downgrade(&self.shared);
        tokio::spawn(async move {
            loop {
                let next = {
                    let Some(shared) = weak.upgrade() else {
                        return;
                    };
                    let sessions = WarmSessions { shared };
                    sessions.end_idle();
                    sessions.pool().next_idle()
                };
                let wait = next
                    .map(|at| at.saturating_duration_since(Instant::now()))
                    .unwrap_or(Duration::from_secs(1))
                    .clamp(Duration::from_millis(20), Duration::from_secs(1));
                tokio::time::sleep(wait).await;
            }
        })
    }

    /// End every held process and wait for them (the holder stops).
    pub async fn end_all(&self) {
        let all = self.pool().drain();
        for (_, w) in all {
            w.close(CLOSE_GRACE).await;
        }
    }
}

fn close_in_background(w: Box<Warm>) {
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            handle.spawn(async move {
                w.close(CLOSE_GRACE).await;
            });
        }
        // No runtime: dropping it ends the supervisor's task, and the
        // keeper ends the CLI.
        Err(_) => drop(w),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_whose_first_process_starts_is_busy_for_another_turn() {
        let holder = WarmSessions::new(WarmSettings::default());
        assert!(matches!(holder.take("s"), Taken::None));
        holder.reserve("s", "claude");
        assert!(matches!(holder.take("s"), Taken::Busy));
        assert_eq!(holder.sessions(), ["s"]);
        holder.forget("s", None);
        assert!(matches!(holder.take("s"), Taken::None), "nothing to say");
        assert!(holder.sessions().is_empty());
    }

    #[test]
    fn a_session_whose_process_died_is_gone_once_with_its_reason() {
        let holder = WarmSessions::new(WarmSettings::default());
        holder.reserve("s", "claude");
        holder.forget(
            "s",
            Some(("its process ended during the last turn", Some("sid-1"))),
        );
        match holder.take("s") {
            Taken::Gone { why, native_id } => {
                assert_eq!(why, "its process ended during the last turn");
                assert_eq!(native_id.as_deref(), Some("sid-1"));
            }
            other => panic!("gone expected: {other:?}"),
        }
        assert!(matches!(holder.take("s"), Taken::None), "said once");
    }

    #[test]
    fn a_session_born_here_is_remembered_by_its_native_id() {
        let holder = WarmSessions::new(WarmSettings::default());
        assert!(holder.born_at("sid-1").is_none());
        let before = std::time::SystemTime::now();
        holder.born("sid-1");
        assert!(holder.born_at("sid-1").is_some_and(|t| t >= before));
    }
}
