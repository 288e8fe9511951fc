//! The threads that run the schedules and the watched folders, and their
//! stop.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use agentgate_core::Config;
use agentgate_core::sealed::KeyRing;
use agentgate_store::JobQueue;

use super::Clock;
use super::schedule::Scheduler;
use super::watch::FolderWatcher;

/// The longest sleep of the schedule thread: a clock that jumps is noticed
/// within this.
const MAX_SCHEDULE_SLEEP: Duration = Duration::from_secs(1);

/// Why the automation cannot start.
#[derive(Debug, thiserror::Error)]
pub enum AutomationError {
    /// A watched folder is missing or not a folder.
    #[error("watch `{name}`: the folder {} {reason} (create it, or fix `folder:` in the config)", folder.display())]
    Folder {
        /// The watch's name.
        name: String,
        /// Its folder.
        folder: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A thread could not be started.
    #[error("failed to start the {what} thread: {source}")]
    Thread {
        /// Which.
        what: String,
        /// Why.
        source: std::io::Error,
    },
}

/// A stop flag that sleeping threads wait on.
#[derive(Debug, Default)]
struct Stop {
    stopped: Mutex<bool>,
    wake: Condvar,
}

impl Stop {
    /// Sleep for `d` or until stopped; `true` when stopped.
    fn sleep(&self, d: Duration) -> bool {
        let Ok(guard) = self.stopped.lock() else {
            return true;
        };
        match self.wake.wait_timeout_while(guard, d, |stopped| !*stopped) {
            Ok((stopped, _)) => *stopped,
            Err(_) => true,
        }
    }

    fn set(&self) {
        if let Ok(mut stopped) = self.stopped.lock() {
            *stopped = true;
        }
        self.wake.notify_all();
    }
}

/// The running schedules and watched folders of a server; stopped when
/// dropped.
#[derive(Debug)]
pub struct Automation {
    stop: Arc<Stop>,
    threads: Vec<JoinHandle<()>>,
}

impl Automation {
    /// Start the schedules and watched folders of `config` (`None` when it
    /// has neither), creating jobs in `queue` (their secrets sealed with
    /// `keys`), reading the time from `clock`. Every watched folder must
    /// exist.
    pub fn start(
        config: &Config,
        queue: Arc<dyn JobQueue>,
        clock: Arc<dyn Clock>,
        keys: &KeyRing,
    ) -> Result<Option<Automation>, AutomationError> {
        if config.schedules.is_empty() && config.watches.is_empty() {
            return Ok(None);
        }
        for w in &config.watches {
            let reason = match std::fs::metadata(&w.folder) {
                Ok(m) if m.is_dir() => continue,
                Ok(_) => "is not a folder".to_owned(),
                Err(e) => format!("cannot be read: {e}"),
            };
            return Err(AutomationError::Folder {
                name: w.name.clone(),
                folder: w.folder.clone(),
                reason,
            });
        }
        // Runs `sandbox.require` would refuse at each fire are said once
        // now (`agentgate config check` refuses such a config outright).
        for fault in agentgate_core::automation_sandbox_faults(config) {
            tracing::warn!("{fault}");
        }
        let stop = Arc::new(Stop::default());
        let mut automation = Automation {
            stop: Arc::clone(&stop),
            threads: Vec::new(),
        };
        if !config.schedules.is_empty() {
            let mut scheduler =
                Scheduler::new(config, Arc::clone(&queue), clock.now()).with_keys(keys.clone());
            let (stop, clock) = (Arc::clone(&stop), Arc::clone(&clock));
            automation.spawn("schedules".to_owned(), move || {
                loop {
                    let now = clock.now();
                    scheduler.tick(now);
                    let pause = scheduler
                        .next_due()
                        .and_then(|due| Duration::try_from(due.duration_since(now)).ok())
                        .map_or(MAX_SCHEDULE_SLEEP, |d| d.min(MAX_SCHEDULE_SLEEP))
                        .max(Duration::from_millis(10));
                    if stop.sleep(pause) {
                        break;
                    }
                }
            })?;
        }
        for w in &config.watches {
            let mut watcher =
                FolderWatcher::new(w.clone(), config, Arc::clone(&queue)).with_keys(keys.clone());
            let (stop, clock) = (Arc::clone(&stop), Arc::clone(&clock));
            let name = format!("watch {}", w.name);
            automation.spawn(name, move || {
                loop {
                    let report = watcher.scan(clock.now());
                    for error in &report.errors {
                        tracing::warn!(watch = watcher.name(), error, "watched folder");
                    }
                    if stop.sleep(watcher.poll()) {
                        break;
                    }
                }
            })?;
        }
        Ok(Some(automation))
    }

    fn spawn(
        &mut self,
        what: String,
        body: impl FnOnce() + Send + 'static,
    ) -> Result<(), AutomationError> {
        let handle = std::thread::Builder::new()
            .name(format!("agentgate {what}"))
            .spawn(body);
        match handle {
            Ok(h) => {
                self.threads.push(h);
                Ok(())
            }
            Err(source) => {
                self.stop.set();
                Err(AutomationError::Thread { what, source })
            }
        }
    }

    /// Stop every thread, letting a scan or a tick in progress finish
    /// (dropping it does the same).
    pub fn stop(self) {
        drop(self);
    }
}

impl Drop for Automation {
    fn drop(&mut self) {
        self.stop.set();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
