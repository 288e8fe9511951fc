//! A run's end, kept beside the run and written to the store at once.
//!
//! ## Why
//!
//! A run's result is the one thing that cannot be made again without
//! running the agent again. Two writes used to carry it: the run engine's
//! record of the run, then the executor's end of the job. A store that
//! refused the second (a full disk) left the job `running`; its lease
//! expired, it was queued again, and the agent ran a second time.
//!
//! ## What holds
//!
//! - [`SavedResult`]: the engine writes the envelope and exit code to the
//!   run's folder (`result.json`, [`RESULT_FILE_NAME`]) as soon as the run
//!   ended, before anything goes to the database
//!   ([`RunStore::save_result`](crate::RunStore::save_result)): a later
//!   process can finish the job from it without running the CLI again.
//! - [`Settlement`]: the executor writes the run's final record and the
//!   job's next state in one transaction
//!   ([`JobQueue::settle`](crate::JobQueue::settle)), so neither lands
//!   without the other, and the job's state is derived from the run's
//!   envelope inside it: a job never says `cancelled` while its last run
//!   says `failed`. A cancel asked while the run ran is honoured as what it
//!   is, a request: a job whose run was cancelled ends `cancelled`; one
//!   whose run succeeded or failed first ends as its run did, and is not
//!   tried again.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use agentgate_protocol::Envelope;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::jobs::JobState;
use crate::records::RunStatus;

/// File name of a run's saved result inside its folder.
pub const RESULT_FILE_NAME: &str = "result.json";

/// How a run ended, as its engine returned it: what `result.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedResult {
    /// The exit code `agentgate run` gives for it.
    pub exit_code: i32,
    /// The final envelope (secrets already redacted).
    pub envelope: Envelope,
}

impl SavedResult {
    /// Writes it to `dir`/[`RESULT_FILE_NAME`]: a temporary file renamed
    /// over any earlier one, mode 600; the folder is created (mode 700) if
    /// missing. A reader sees the whole result or none. Not synced: like
    /// the SQLite store's commits (`synchronous = NORMAL`), it survives a
    /// crash of agentgate, and a power loss may lose it; an fsync per run
    /// would cost more than the store's own writes. The path written.
    pub fn write_to(&self, dir: &Path) -> Result<PathBuf, StoreError> {
        let path = dir.join(RESULT_FILE_NAME);
        let io_error = |op: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source: io::Error| StoreError::Io { op, path, source }
        };
        crate::run_files::create_private_dir(dir)
            .map_err(io_error("create the run folder", dir))?;
        let text = serde_json::to_vec(self).map_err(|source| StoreError::Json {
            op: "encode the run's result",
            path: path.clone(),
            source,
        })?;
        let tmp = dir.join(format!("{RESULT_FILE_NAME}.tmp"));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options
            .open(&tmp)
            .and_then(|mut file| file.write_all(&text));
        if let Err(source) = written {
            // A half-written temporary file is never read; leave no litter.
            let _ = std::fs::remove_file(&tmp);
            return Err(StoreError::Io {
                op: "write the run's result",
                path,
                source,
            });
        }
        std::fs::rename(&tmp, &path).map_err(io_error("write the run's result", &path))?;
        Ok(path)
    }

    /// Reads `dir`/[`RESULT_FILE_NAME`]; `None` if there is none.
    pub fn read_from(dir: &Path) -> Result<Option<SavedResult>, StoreError> {
        let path = dir.join(RESULT_FILE_NAME);
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(StoreError::Io {
                    op: "read the run's result",
                    path,
                    source,
                });
            }
        };
        serde_json::from_slice(&text)
            .map(Some)
            .map_err(|source| StoreError::Json {
                op: "decode the run's result",
                path,
                source,
            })
    }
}

/// What becomes of a running job once its run ended (see [`Settlement`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterRun {
    /// The job ends as its run did: `succeeded`, `failed` or `cancelled`
    /// (the run's status, [`RunStatus::of_envelope`]).
    End,
    /// The run failed and the job is tried again: queued, not claimed
    /// before `not_before` (the backoff), its attempt kept, the run's error
    /// as its error until it ends.
    Retry {
        /// When the next try may start.
        not_before: Timestamp,
    },
    /// The job goes back to the queue, its attempt given back: every
    /// provider's quota is exhausted (`waiting_for: "quota"`), or the run
    /// was cancelled to stop its executor.
    Release {
        /// Not claimed before.
        not_before: Timestamp,
        /// Why it waits, e.g. `"quota"`.
        waiting_for: Option<String>,
    },
}

/// A run's end as its executor writes it with
/// [`JobQueue::settle`](crate::JobQueue::settle).
#[derive(Debug, Clone, PartialEq)]
pub struct Settlement {
    /// The run whose end this is, recorded in the same transaction (as
    /// [`RunStore::finish_run`](crate::RunStore::finish_run) records it;
    /// a run that was never recorded is skipped). `None` for a job whose
    /// run keeps its own record (a workflow).
    pub run_id: Option<String>,
    /// The run's final envelope: the run's record, and the job's envelope
    /// when the job ends.
    pub envelope: Envelope,
    /// What becomes of the job. A requeue of a job whose cancel was asked
    /// ends it instead, as its run ended.
    pub after: AfterRun,
    /// The claim being settled did not run the job: it finished it from a
    /// result an earlier claim left ([`SavedResult`]), so its attempt is
    /// given back.
    pub recovered: bool,
}

impl Settlement {
    /// The state the job ends in when it ends: its run's.
    pub fn final_state(&self) -> JobState {
        match RunStatus::of_envelope(&self.envelope) {
            RunStatus::Succeeded => JobState::Succeeded,
            RunStatus::Cancelled => JobState::Cancelled,
            _ => JobState::Failed,
        }
    }

    /// How many attempts the job is given back: the claim that did not run
    /// it ([`Settlement::recovered`]) and a release's.
    pub(crate) fn refund(&self) -> i64 {
        i64::from(self.recovered) + i64::from(matches!(self.after, AfterRun::Release { .. }))
    }

    /// The parts of a requeue: (not_before, waiting_for, error while
    /// queued), or `None` when the job ends.
    pub(crate) fn requeue(&self) -> Option<(Timestamp, Option<&str>, Option<&str>)> {
        match &self.after {
            AfterRun::End => None,
            AfterRun::Retry { not_before } => Some((
                *not_before,
                None,
                Some(self.envelope.error.as_deref().unwrap_or_default()),
            )),
            AfterRun::Release {
                not_before,
                waiting_for,
            } => Some((*not_before, waiting_for.as_deref(), None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentgate_protocol::{ErrorInfo, ErrorKind, ErrorSource};

    fn failed() -> Envelope {
        let error = ErrorInfo::new(ErrorKind::ProviderError, ErrorSource::Internal, "it broke");
        Envelope::new("r1").with_error(&error, 1)
    }

    #[test]
    fn a_saved_result_reads_back_whole_and_private() {
        let dir = tempfile::tempdir().unwrap();
        let run = dir.path().join("runs/r1");
        let saved = SavedResult {
            exit_code: 1,
            envelope: failed(),
        };
        let path = saved.write_to(&run).unwrap();
        assert_eq!(path, run.join(RESULT_FILE_NAME));
        assert_eq!(SavedResult::read_from(&run).unwrap(), Some(saved));
        assert!(!run.join("result.json.tmp").exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(SavedResult::read_from(dir.path()).unwrap(), None);
    }

    #[test]
    fn a_job_ends_in_its_runs_state() {
        let mut s = Settlement {
            run_id: Some("r1".into()),
            envelope: failed(),
            after: AfterRun::End,
            recovered: false,
        };
        assert_eq!(s.final_state(), JobState::Failed);
        s.envelope = Envelope::new("r1");
        assert_eq!(s.final_state(), JobState::Succeeded);
        let cancelled = ErrorInfo::new(ErrorKind::Cancelled, ErrorSource::Internal, "stop");
        s.envelope = Envelope::new("r1").with_error(&cancelled, 130);
        assert_eq!(s.final_state(), JobState::Cancelled);
        s.recovered = true;
        s.after = AfterRun::Release {
            not_before: Timestamp::UNIX_EPOCH,
            waiting_for: None,
        };
        assert_eq!(s.refund(), 2);
    }
}
