//! One watched folder: each scan settles new files, turns settled ones
//! into jobs, and moves the files whose job ended.
//!
//! A file's life (docs/config.md has the user's view):
//!
//! 1. *Seen*: its identity (inode, size, modification time) is noted with
//!    the scan's time. A later scan that sees another identity starts
//!    over, so a file still being written never settles.
//! 2. *Taken* when a scan at least `settle` after the first sighting sees
//!    the same identity: its text becomes the task, and it is enqueued
//!    under [`file_key`]. A store error leaves the file seen: the next
//!    scan tries again. A file that cannot be a task goes to `failed/`
//!    with a `refused` error record.
//! 3. *Followed*: each scan reads its job ([`JobQueue::get_job`]); once the
//!    job has ended the file moves to `done/` (succeeded) or to `failed/`
//!    with `NAME.error.json`. A move that fails is tried again at the next
//!    scan. With `on_failure: keep`, a failed file stays where it is (its
//!    record goes to `failed/NAME.error.json`) and is marked *kept*: later
//!    scans pass it by until it changes (a new identity: a new job). After
//!    a restart it settles again and its key finds the ended job: it is
//!    kept again, never run twice.
//!
//! Nothing of this is kept on disk: after a restart a file is seen, settles
//! and is enqueued again, and its key returns the job it had, running or
//! ended.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agentgate_core::sealed::KeyRing;
use agentgate_core::{Config, OnFailure, WatchSpec};
use agentgate_core::{IDEMPOTENCY_KEY_MAX, RunRequest};
use agentgate_core::{STDIN_PROMPT_MAX_BYTES, read_text_file};
use agentgate_core::{check_file_name, task_from_stdin};
use agentgate_store::{JobQueue, JobRecord, JobState};
use jiff::Timestamp;

use super::job::new_job;
use super::watch_files::{
    DONE_DIR, ErrorRecord, FAILED_DIR, Identity, fnv1a, list, move_into, write_record,
};

/// What one scan did, for logs and tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScanReport {
    /// Files that became a job in this scan: (name, job id).
    pub enqueued: Vec<(String, String)>,
    /// Files moved to `done/`: (name, job id).
    pub done: Vec<(String, String)>,
    /// Files moved to `failed/`: (name, job id, or `None` when refused).
    pub failed: Vec<(String, Option<String>)>,
    /// Files whose job failed, left in the folder (`on_failure: keep`):
    /// (name, job id).
    pub kept: Vec<(String, String)>,
    /// What went wrong and will be tried again.
    pub errors: Vec<String>,
}

#[derive(Debug)]
struct Seen {
    identity: Identity,
    since: Timestamp,
}

#[derive(Debug)]
struct Taken {
    identity: Identity,
    job_id: String,
    /// Its job failed and the file was kept in the folder: nothing more to
    /// do until it changes.
    kept: bool,
}

/// One watched folder.
pub struct FolderWatcher {
    spec: WatchSpec,
    queue: Arc<dyn JobQueue>,
    config: Config,
    seen: HashMap<String, Seen>,
    taken: HashMap<String, Taken>,
    keys: KeyRing,
}

impl std::fmt::Debug for FolderWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderWatcher")
            .field("spec", &self.spec)
            .finish_non_exhaustive()
    }
}

/// The idempotency key of the file `name` of `folder` with `identity`.
fn file_key(folder: &Path, name: &str, identity: &Identity) -> String {
    let head = format!(
        "watch:{:016x}:{}.{}.{}.{}:",
        fnv1a(folder.as_os_str().as_encoded_bytes()),
        identity.dev,
        identity.ino,
        identity.size,
        identity.mtime_ns
    );
    let mut key = head;
    for c in name.chars() {
        if key.len() + c.len_utf8() > IDEMPOTENCY_KEY_MAX {
            break;
        }
        key.push(c);
    }
    key
}

impl FolderWatcher {
    /// The watched folder `spec`, creating jobs in `queue`.
    pub fn new(spec: WatchSpec, config: &Config, queue: Arc<dyn JobQueue>) -> FolderWatcher {
        FolderWatcher {
            spec,
            queue,
            config: config.clone(),
            seen: HashMap::new(),
            taken: HashMap::new(),
            keys: KeyRing::default(),
        }
    }

    /// Seal the secrets of the jobs it creates with `keys` (without keys,
    /// a watch whose request sets `env` fails its files).
    #[must_use]
    pub fn with_keys(mut self, keys: KeyRing) -> FolderWatcher {
        self.keys = keys;
        self
    }

    /// The pause between scans.
    pub fn poll(&self) -> Duration {
        self.spec.poll
    }

    /// The watch's name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// One scan at `now` (see the module notes).
    pub fn scan(&mut self, now: Timestamp) -> ScanReport {
        let mut report = ScanReport::default();
        let files = match list(&self.spec.folder, &self.spec.patterns) {
            Ok(files) => files,
            Err(e) => {
                report
                    .errors
                    .push(format!("cannot list {}: {e}", self.spec.folder.display()));
                return report;
            }
        };
        let present: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        self.seen.retain(|name, _| present.contains(&name.as_str()));
        self.taken
            .retain(|name, _| present.contains(&name.as_str()));
        for file in &files {
            if let Some(taken) = self.taken.get(&file.name) {
                if taken.identity == file.identity {
                    if taken.kept {
                        continue;
                    }
                    let job_id = taken.job_id.clone();
                    self.follow(&file.name, &job_id, &mut report);
                    continue;
                }
                // Changed after it was taken: a new file.
                self.taken.remove(&file.name);
            }
            let settled = match self.seen.get(&file.name) {
                Some(seen) if seen.identity == file.identity => {
                    now.duration_since(seen.since)
                        >= jiff::SignedDuration::try_from(self.spec.settle).unwrap_or_default()
                }
                _ => {
                    self.seen.insert(
                        file.name.clone(),
                        Seen {
                            identity: file.identity,
                            since: now,
                        },
                    );
                    false
                }
            };
            if settled {
                self.take(&file.name, file.identity, now, &mut report);
            }
        }
        report
    }

    fn take(&mut self, name: &str, identity: Identity, now: Timestamp, report: &mut ScanReport) {
        let request = match self.request_for(name) {
            Ok(request) => request,
            Err(why) => {
                self.seen.remove(name);
                self.move_to_failed(name, None, "refused", Some(why), report);
                return;
            }
        };
        let key = file_key(&self.spec.folder, name, &identity);
        let job = match new_job(&request, &key, &self.config, &self.keys, now) {
            Ok(job) => job,
            Err(e) => {
                self.seen.remove(name);
                self.move_to_failed(name, None, "refused", Some(e.to_string()), report);
                return;
            }
        };
        match self.queue.enqueue(&job, now) {
            Ok(done) => {
                self.seen.remove(name);
                let job_id = done.job.job_id.clone();
                if done.created {
                    tracing::info!(watch = %self.spec.name, file = name, job_id, "watched file enqueued");
                    report.enqueued.push((name.to_owned(), job_id.clone()));
                }
                self.taken.insert(
                    name.to_owned(),
                    Taken {
                        identity,
                        job_id,
                        kept: false,
                    },
                );
                if done.job.state.is_final() {
                    self.settle_file(name, &done.job, report);
                }
            }
            Err(e) => report.errors.push(format!(
                "`{name}`: cannot enqueue its job (tried again at the next scan): {e}"
            )),
        }
    }

    /// The run request of the file `name`: the watch's request with the
    /// file as its task; `Err`: why the file cannot be a task.
    fn request_for(&self, name: &str) -> Result<RunRequest, String> {
        let path = self.spec.folder.join(name);
        let text = read_text_file(&path, STDIN_PROMPT_MAX_BYTES, "a watched file")
            .map_err(|e| e.to_string())?;
        let mut request = self.spec.request.clone();
        // As `agentgate run` reads stdin: a JSON object is a task input.
        let task = task_from_stdin(&text).map_err(|e| e.to_string())?;
        let trimmed = text.trim();
        match serde_json::from_str::<serde_json::Value>(trimmed) {
            Ok(object @ serde_json::Value::Object(_)) if trimmed.starts_with('{') => {
                request.task = Some(object);
            }
            _ => request.prompt = Some(task.prompt),
        }
        // The prompt names the note (unless its task object names itself,
        // or the name cannot go in a header line).
        if task.file_name.is_none() && check_file_name(name).is_ok() {
            request.file_name = Some(name.to_owned());
        }
        request
            .to_flags()
            .map_err(|e| format!("{}: {}", e.field, e.message))?;
        Ok(request)
    }

    fn follow(&mut self, name: &str, job_id: &str, report: &mut ScanReport) {
        match self.queue.get_job(job_id) {
            Ok(Some(job)) if job.state.is_final() => self.settle_file(name, &job, report),
            Ok(Some(_)) => {}
            Ok(None) => report
                .errors
                .push(format!("`{name}`: its job {job_id} is not in the store")),
            Err(e) => report
                .errors
                .push(format!("`{name}`: cannot read its job {job_id}: {e}")),
        }
    }

    /// Move the file of the ended `job` where it belongs.
    fn settle_file(&mut self, name: &str, job: &JobRecord, report: &mut ScanReport) {
        if job.state == JobState::Succeeded {
            match move_into(&self.spec.folder, name, DONE_DIR) {
                Ok(_) => {
                    tracing::info!(watch = %self.spec.name, file = name, job_id = job.job_id, "watched file done");
                    self.taken.remove(name);
                    report.done.push((name.to_owned(), job.job_id.clone()));
                }
                Err(e) => report
                    .errors
                    .push(format!("`{name}`: cannot move it to {DONE_DIR}/: {e}")),
            }
            return;
        }
        let error = job
            .error
            .clone()
            .or_else(|| job.envelope.as_ref().and_then(|e| e.error.clone()));
        match self.spec.on_failure {
            OnFailure::Move => {
                self.move_to_failed(name, Some(&job.job_id), job.state.as_str(), error, report);
            }
            OnFailure::Keep => {
                self.keep_failed(name, &job.job_id, job.state.as_str(), error, report)
            }
        }
    }

    /// Leave the file of a failed job in the folder, its record in
    /// `failed/`, and pass it by until it changes.
    fn keep_failed(
        &mut self,
        name: &str,
        job_id: &str,
        state: &str,
        error: Option<String>,
        report: &mut ScanReport,
    ) {
        let failed = self.spec.folder.join(FAILED_DIR);
        let record = ErrorRecord {
            watch: self.spec.name.clone(),
            file: name.to_owned(),
            job_id: Some(job_id.to_owned()),
            state: state.to_owned(),
            error,
        };
        let written = std::fs::create_dir_all(&failed)
            .and_then(|()| write_record(&failed.join(name), &record));
        if let Err(e) = written {
            // The file is kept all the same: a record is not worth a loop.
            report.errors.push(format!(
                "`{name}`: kept in the folder, but its error record could not be written to {}: {e}",
                failed.display()
            ));
        }
        if let Some(taken) = self.taken.get_mut(name) {
            taken.kept = true;
        }
        tracing::warn!(watch = %self.spec.name, file = name, job_id, state, error = ?record.error, "watched file failed, kept in the folder");
        report.kept.push((name.to_owned(), job_id.to_owned()));
    }

    fn move_to_failed(
        &mut self,
        name: &str,
        job_id: Option<&str>,
        state: &str,
        error: Option<String>,
        report: &mut ScanReport,
    ) {
        let moved = match move_into(&self.spec.folder, name, FAILED_DIR) {
            Ok(moved) => moved,
            Err(e) => {
                report
                    .errors
                    .push(format!("`{name}`: cannot move it to {FAILED_DIR}/: {e}"));
                return;
            }
        };
        self.taken.remove(name);
        tracing::warn!(watch = %self.spec.name, file = name, job_id, state, error, "watched file failed");
        let record = ErrorRecord {
            watch: self.spec.name.clone(),
            file: name.to_owned(),
            job_id: job_id.map(str::to_owned),
            state: state.to_owned(),
            error,
        };
        if let Err(e) = write_record(&moved, &record) {
            report.errors.push(format!(
                "`{name}`: moved to {}, but its error record could not be written: {e}",
                moved.display()
            ));
        }
        report
            .failed
            .push((name.to_owned(), job_id.map(str::to_owned)));
    }
}
