//! The executor's clock: what "now" is for `not_before`, quota reset times,
//! retry backoff and leases.
//!
//! [`SystemClock`] in production. For tests, [`FileClock`]: the time is the
//! RFC 3339 text of a file that the test rewrites to move the clock, named by
//! the environment variable [`CLOCK_FILE_ENV`] (`agentgate serve` reads it
//! at start). A file clock is for tests only: it also becomes the runs'
//! clock (the plan's `now`, which decides which quotas are exhausted).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use jiff::Timestamp;

/// Names a file holding the current time (RFC 3339), for tests: see the
/// module notes.
pub const CLOCK_FILE_ENV: &str = "AGENTGATE_TEST_CLOCK_FILE";

/// A source of the current time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Now.
    fn now(&self) -> Timestamp;
}

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock read from a file on every call (see the module notes). While
/// the file cannot be read or parsed (a test rewriting it), the last time
/// read is kept.
#[derive(Debug)]
pub struct FileClock {
    path: PathBuf,
    last: Mutex<Timestamp>,
}

/// Why a clock file is refused at start.
#[derive(Debug, thiserror::Error)]
#[error("{CLOCK_FILE_ENV}={}: {reason}", path.display())]
pub struct ClockFileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub reason: String,
}

impl FileClock {
    /// A clock reading `path`, which must hold a time now.
    pub fn open(path: &Path) -> Result<FileClock, ClockFileError> {
        let first = read_time(path).map_err(|reason| ClockFileError {
            path: path.to_path_buf(),
            reason,
        })?;
        Ok(FileClock {
            path: path.to_path_buf(),
            last: Mutex::new(first),
        })
    }
}

impl Clock for FileClock {
    fn now(&self) -> Timestamp {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Ok(t) = read_time(&self.path) {
            *last = t;
        }
        *last
    }
}

fn read_time(path: &Path) -> Result<Timestamp, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("failed to read it: {e}"))?;
    text.trim()
        .parse::<Timestamp>()
        .map_err(|_| format!("`{}` is not an RFC 3339 time", text.trim()))
}

/// The clock of this process: a [`FileClock`] when [`CLOCK_FILE_ENV`] is
/// set, else the system's.
pub fn from_env() -> Result<std::sync::Arc<dyn Clock>, ClockFileError> {
    match std::env::var_os(CLOCK_FILE_ENV) {
        Some(p) if !p.is_empty() => Ok(std::sync::Arc::new(FileClock::open(Path::new(&p))?)),
        _ => Ok(std::sync::Arc::new(SystemClock)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_clock_follows_its_file_and_keeps_the_last_good_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("now");
        std::fs::write(&path, "2030-01-01T00:00:00Z\n").unwrap();
        let clock = FileClock::open(&path).unwrap();
        assert_eq!(clock.now(), "2030-01-01T00:00:00Z".parse().unwrap());
        std::fs::write(&path, "2030-01-01T01:00:00Z").unwrap();
        assert_eq!(clock.now(), "2030-01-01T01:00:00Z".parse().unwrap());
        std::fs::write(&path, "half-writ").unwrap();
        assert_eq!(clock.now(), "2030-01-01T01:00:00Z".parse().unwrap());
    }

    #[test]
    fn a_missing_or_bad_clock_file_is_refused_at_start() {
        let dir = tempfile::tempdir().unwrap();
        let err = FileClock::open(&dir.path().join("none")).unwrap_err();
        assert!(err.to_string().contains(CLOCK_FILE_ENV), "{err}");
        std::fs::write(dir.path().join("bad"), "tomorrow").unwrap();
        let err = FileClock::open(&dir.path().join("bad")).unwrap_err();
        assert!(err.to_string().contains("RFC 3339"), "{err}");
    }
}
