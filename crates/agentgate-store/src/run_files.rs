//! Writing a run's folder: its events (`events.jsonl`, or the store's
//! table where the backend keeps them: [`EventLogWriter`]) and `stderr.log`.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use agentgate_protocol::{Event, EventBody, LogEvent, LogLevel};

use crate::bells::WriterMark;
use crate::error::StoreError;
use crate::event_log::EventLog;

mod private;

#[cfg(feature = "sqlite")]
pub(crate) use private::create_private_file;
use private::open_private;
pub(crate) use private::{create_private_dir, make_private};

/// File name of a run's event log inside its folder.
pub const EVENTS_FILE_NAME: &str = "events.jsonl";
/// File name of a run's provider stderr inside its folder.
pub const STDERR_FILE_NAME: &str = "stderr.log";

/// Writes a run's event log as it runs: the run's `events.jsonl`
/// ([`EventsWriter`], SQLite) or rows of the store (PostgreSQL). Events are
/// appended in `seq` order.
pub trait EventLogWriter: Send + std::fmt::Debug {
    /// Appends one event (cut to the line limit first if it is longer:
    /// [`agentgate_protocol::fit`]); the bytes its line took, newline
    /// included.
    fn write_event(&mut self, event: &Event) -> Result<u64, StoreError>;

    /// Waits until every event appended so far is stored durably (a file:
    /// fsync; a database: committed).
    fn sync(&mut self) -> Result<(), StoreError>;

    /// Waits until every event appended so far can be read by others (a
    /// file: at once, nothing to wait for; a database: committed). A run
    /// calls it before recording its result, so a reader that sees the run
    /// ended sees all its events.
    fn flush(&mut self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// The open files of one run's folder, `<runs_dir>/<run_id>/`, and its
/// event log (`RunStore::create_run_files` opens the backend's).
///
/// Writes go straight to the files, one `write` per event, with no buffer in
/// between: if agentgate dies, at most the event being written is lost (the
/// reader reports it as a truncated last line). Call [`RunFiles::sync`] at
/// the end of a run to also survive a power loss.
///
/// [`RunFiles::into_writers`] splits it, so that the stdout and stderr
/// readers of a run can each own their writer.
#[derive(Debug)]
pub struct RunFiles {
    dir: PathBuf,
    events: Box<dyn EventLogWriter>,
    stderr: StderrWriter,
    log: LogBound,
}

/// The bound on a run's event log (see [`RunFiles::bound_log`]).
#[derive(Debug, Clone, Copy)]
struct LogBound {
    max: u64,
    written: u64,
    cut: bool,
}

impl LogBound {
    fn new(written: u64) -> LogBound {
        LogBound {
            max: DEFAULT_EVENT_LOG_MAX,
            written,
            cut: false,
        }
    }
}

/// How many bytes a run's event log takes before it is cut, unless the
/// config says otherwise (`event_log.max_bytes`): 256 MiB, eight lines at
/// the line limit.
pub const DEFAULT_EVENT_LOG_MAX: u64 = 256 * 1024 * 1024;

/// Whether an event is still written to a log past its bound: those that
/// frame the run (its start and session, errors, a cancel, permission
/// requests and answers, a workflow's checkpoints) and its `result`.
/// Content (text, tool calls, raw lines, logs, heartbeats, a step's nested
/// events) is what gets left out.
pub fn kept_past_log_bound(body: &EventBody) -> bool {
    matches!(
        body,
        EventBody::Start(_)
            | EventBody::Session(_)
            | EventBody::Error(_)
            | EventBody::Cancelled(_)
            | EventBody::Result(_)
            | EventBody::WorkflowState(_)
            | EventBody::TaskSubmitted(_)
            | EventBody::TaskStarted(_)
            | EventBody::TaskError(_)
            | EventBody::TaskDone(_)
            | EventBody::ApprovalRequest(_)
            | EventBody::ApprovalDecision(_)
    )
}

impl RunFiles {
    /// Creates the run's folder and its two files.
    ///
    /// Fails with [`StoreError::RunFilesExist`] if the run already has an
    /// `events.jsonl`: one run, one writer. On Unix the folders are created
    /// private to the user (mode 700) and the files mode 600: events and
    /// stderr can hold code, paths and secrets from the agent's work.
    pub fn create(dir: PathBuf, run_id: &str) -> Result<Self, StoreError> {
        create_run_dir(&dir)?;
        let events_path = dir.join(EVENTS_FILE_NAME);
        let events = open_private(&events_path, true).map_err(|source| {
            if source.kind() == io::ErrorKind::AlreadyExists {
                StoreError::RunFilesExist {
                    run_id: run_id.to_owned(),
                    path: events_path.clone(),
                }
            } else {
                StoreError::Io {
                    op: "create the events file",
                    path: events_path.clone(),
                    source,
                }
            }
        })?;
        let stderr_path = dir.join(STDERR_FILE_NAME);
        let stderr = open_private(&stderr_path, false).map_err(|source| StoreError::Io {
            op: "create the stderr file",
            path: stderr_path.clone(),
            source,
        })?;
        Ok(Self {
            dir,
            events: Box::new(EventsWriter {
                file: events,
                path: events_path,
                len: 0,
                run_id: run_id.to_owned(),
                _mark: WriterMark::new(run_id),
            }),
            stderr: StderrWriter {
                file: stderr,
                path: stderr_path,
            },
            log: LogBound::new(0),
        })
    }

    /// Creates the run's folder and its `stderr.log`, with `events` as its
    /// event log: for a backend that keeps events elsewhere than
    /// `events.jsonl`. Fails with [`StoreError::RunFilesExist`] if the run
    /// already has a `stderr.log`.
    pub fn with_events(
        dir: PathBuf,
        run_id: &str,
        events: Box<dyn EventLogWriter>,
    ) -> Result<Self, StoreError> {
        create_run_dir(&dir)?;
        let stderr_path = dir.join(STDERR_FILE_NAME);
        let stderr = open_private(&stderr_path, true).map_err(|source| {
            if source.kind() == io::ErrorKind::AlreadyExists {
                StoreError::RunFilesExist {
                    run_id: run_id.to_owned(),
                    path: stderr_path.clone(),
                }
            } else {
                StoreError::Io {
                    op: "create the stderr file",
                    path: stderr_path.clone(),
                    source,
                }
            }
        })?;
        Ok(Self {
            dir,
            events,
            stderr: StderrWriter {
                file: stderr,
                path: stderr_path,
            },
            log: LogBound::new(0),
        })
    }

    /// Opens an existing run's folder to continue writing it (see
    /// [`RunStore::reopen_run_files`](crate::RunStore::reopen_run_files),
    /// for the caller that has just reopened the run): `events.jsonl` and
    /// `stderr.log` for appending, each created private if missing, never
    /// truncated. A last line of `events.jsonl` with no newline (a write
    /// cut short) is cut off first, and the cut synced, so the next event
    /// starts on its own line. Returns the files and the `seq` of the next
    /// event: the highest in the file plus one, 0 if it has none.
    ///
    /// The folder is created if missing; on Unix it is made mode 700 and
    /// the files 600, whatever they were.
    pub fn reopen(dir: PathBuf) -> Result<(Self, u64), StoreError> {
        open_run_dir(&dir)?;
        let events_path = dir.join(EVENTS_FILE_NAME);
        let io_err = |op: &'static str| {
            let path = events_path.clone();
            move |source| StoreError::Io { op, path, source }
        };
        let mut file = open_existing(&events_path, true)
            .map_err(io_err("open the events file to continue it"))?;
        let len = cut_torn_tail(&mut file).map_err(io_err("cut the torn last line of"))?;
        let log = EventLog::read_file(&events_path)?;
        let next_seq = match log.events.iter().map(|event| event.seq).max() {
            None => 0,
            Some(last) => last.checked_add(1).ok_or_else(|| {
                io_err("continue")(io::Error::other(
                    "its last event has the highest seq there is: no event can follow",
                ))
            })?,
        };
        let stderr = open_stderr_to_continue(&dir)?;
        // The folder is named after its run.
        let run_id = dir
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let events = EventsWriter {
            file,
            path: events_path.clone(),
            len,
            _mark: WriterMark::new(&run_id),
            run_id,
        };
        Ok((
            Self {
                dir,
                events: Box::new(events),
                stderr,
                log: LogBound::new(len),
            },
            next_seq,
        ))
    }

    /// Opens an existing run's folder to continue writing it, with `events`
    /// as its event log: for a backend that keeps events elsewhere than
    /// `events.jsonl`. The folder and `stderr.log` are created if missing
    /// (a run can continue on another host) and made private as in
    /// [`RunFiles::reopen`]; `stderr.log` is appended to.
    pub fn reopen_with_events(
        dir: PathBuf,
        events: Box<dyn EventLogWriter>,
    ) -> Result<Self, StoreError> {
        open_run_dir(&dir)?;
        let stderr = open_stderr_to_continue(&dir)?;
        Ok(Self {
            dir,
            events,
            stderr,
            // What the rows already hold is not counted here.
            log: LogBound::new(0),
        })
    }

    /// The run's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Bounds the run's event log to about `max_bytes`: once its lines
    /// take that much, only the events that frame the run
    /// ([`kept_past_log_bound`], its `result` always) are written, and the
    /// first event left out is replaced by a `log` warning that says so (it
    /// takes that event's `seq`; the `seq`s of the others left out are
    /// missing from the log). The log so grows past `max_bytes` by at most
    /// the line that crosses it, the note and the framing events. The
    /// default is [`DEFAULT_EVENT_LOG_MAX`]; a reopened log counts what its
    /// file holds (PostgreSQL rows from before are not counted).
    pub fn bound_log(&mut self, max_bytes: u64) {
        self.log.max = max_bytes;
    }

    /// Appends one event to the run's event log, within its bound (see
    /// [`RunFiles::bound_log`]): an event left out is not an error.
    pub fn write_event(&mut self, event: &Event) -> Result<(), StoreError> {
        if self.log.written >= self.log.max && !kept_past_log_bound(&event.body) {
            if !self.log.cut {
                self.log.cut = true;
                let note = bound_note(event, self.log.max);
                self.log.written += self.events.write_event(&note)?;
            }
            return Ok(());
        }
        self.log.written += self.events.write_event(event)?;
        Ok(())
    }

    /// Appends raw bytes to `stderr.log`.
    pub fn write_stderr(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.stderr.write_bytes(bytes)
    }

    /// Waits until the events written so far can be read by others
    /// ([`EventLogWriter::flush`]).
    pub fn flush_events(&mut self) -> Result<(), StoreError> {
        self.events.flush()
    }

    /// Stores the events durably and flushes `stderr.log` to the disk.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.events.sync()?;
        self.stderr.sync()
    }

    /// The two writers, to hand to different tasks.
    pub fn into_writers(self) -> (Box<dyn EventLogWriter>, StderrWriter) {
        (self.events, self.stderr)
    }

    /// The same files with the event log put behind `wrap` (a writer that
    /// may refuse writes from some point on: the queue executor's lease
    /// fence).
    pub fn wrap_events(
        mut self,
        wrap: impl FnOnce(Box<dyn EventLogWriter>) -> Box<dyn EventLogWriter>,
    ) -> Self {
        self.events = wrap(self.events);
        self
    }
}

/// Appends events to a run's `events.jsonl`, one JSON object per line.
///
/// Each line, once written, rings the run's
/// [`Bell::Events`](crate::bells::Bell::Events): the file has no buffer,
/// so a follower woken by it reads the line. While it lives the run is
/// [`crate::bells::written_here`].
#[derive(Debug)]
pub struct EventsWriter {
    file: File,
    path: PathBuf,
    /// Bytes of complete lines in the file, to cut a half-written line off.
    len: u64,
    /// The run whose bell each line rings.
    run_id: String,
    _mark: WriterMark,
}

impl EventsWriter {
    /// Appends `event` and its newline in one write.
    ///
    /// If the write fails part-way (a full disk), the partial line is cut off
    /// again where possible, so later events still start on a line of their
    /// own.
    pub fn write_event(&mut self, event: &Event) -> Result<u64, StoreError> {
        let mut line = event_line(event)
            .map_err(|source| StoreError::EncodeEvent {
                path: self.path.clone(),
                source,
            })?
            .into_bytes();
        line.push(b'\n');
        if let Err(source) = self.file.write_all(&line) {
            // Best effort: if cutting fails too, the reader reports the
            // damage; the write error is the one worth returning.
            let _ = self.file.set_len(self.len);
            return Err(StoreError::Io {
                op: "append to the events file",
                path: self.path.clone(),
                source,
            });
        }
        self.len += line.len() as u64;
        // Written with no buffer in between: readable now.
        crate::bells::ring_events(&self.run_id);
        Ok(line.len() as u64)
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the file to the disk (fsync).
    pub fn sync(&self) -> Result<(), StoreError> {
        self.file.sync_all().map_err(|source| StoreError::Io {
            op: "sync the events file",
            path: self.path.clone(),
            source,
        })
    }
}

impl EventLogWriter for EventsWriter {
    fn write_event(&mut self, event: &Event) -> Result<u64, StoreError> {
        EventsWriter::write_event(self, event)
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        EventsWriter::sync(self)
    }
}

/// `event`'s JSON line (no newline), within the line limit: an event that
/// would be longer is cut first ([`agentgate_protocol::fit`]; the emitters
/// do it already, this is for events made elsewhere).
pub(crate) fn event_line(event: &Event) -> Result<String, serde_json::Error> {
    let line = serde_json::to_string(event)?;
    if line.len() <= agentgate_protocol::MAX_LINE_BYTES {
        return Ok(line);
    }
    drop(line);
    serde_json::to_string(&agentgate_protocol::fit(event.clone()))
}

/// The warning that stands, in the log, for the first event left out past
/// the bound.
fn bound_note(left_out: &Event, max: u64) -> Event {
    let mut note = Event::new(
        left_out.run_id.clone(),
        left_out.seq,
        left_out.ts.clone(),
        EventBody::Log(LogEvent {
            level: LogLevel::Warn,
            message: format!(
                "this run's event log reached its bound of {max} bytes (event_log.max_bytes in \
                 the config): from here on it keeps only the events that frame the run (start, \
                 session, errors, cancel, approvals, workflow steps) and its result; the \
                 others are left out (their seq numbers are missing)"
            ),
        }),
    );
    note.provider = left_out.provider.clone();
    note.attempt = left_out.attempt;
    note
}

/// Appends the raw bytes of the provider CLIs' stderr to a run's
/// `stderr.log`.
#[derive(Debug)]
pub struct StderrWriter {
    file: File,
    path: PathBuf,
}

impl StderrWriter {
    /// Appends `bytes` as they are.
    pub fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.file.write_all(bytes).map_err(|source| StoreError::Io {
            op: "append to the stderr file",
            path: self.path.clone(),
            source,
        })
    }

    /// The file written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the file to the disk (fsync).
    pub fn sync(&self) -> Result<(), StoreError> {
        self.file.sync_all().map_err(|source| StoreError::Io {
            op: "sync the stderr file",
            path: self.path.clone(),
            source,
        })
    }
}

impl Write for StderrWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// Creates a run's folder, private to the user.
fn create_run_dir(dir: &Path) -> Result<(), StoreError> {
    create_private_dir(dir).map_err(|source| StoreError::Io {
        op: "create the run folder",
        path: dir.to_path_buf(),
        source,
    })
}

/// Creates a run's folder if missing and makes it private to the user.
fn open_run_dir(dir: &Path) -> Result<(), StoreError> {
    create_private_dir(dir)
        .and_then(|()| make_private(dir))
        .map_err(|source| StoreError::Io {
            op: "open the run folder",
            path: dir.to_path_buf(),
            source,
        })
}

/// The run's `stderr.log`, opened for appending (created if missing) and
/// private.
fn open_stderr_to_continue(dir: &Path) -> Result<StderrWriter, StoreError> {
    let path = dir.join(STDERR_FILE_NAME);
    let file = open_existing(&path, false).map_err(|source| StoreError::Io {
        op: "open the stderr file to continue it",
        path: path.clone(),
        source,
    })?;
    Ok(StderrWriter { file, path })
}

/// `path` opened for appending (and reading, with `read`), created mode 600
/// if missing, never truncated; made private if it was not.
fn open_existing(path: &Path, read: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(read).append(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let file = options.open(path)?;
    make_private(path)?;
    Ok(file)
}

/// Cuts the file back to just after its last `\n` if bytes follow it (a
/// last line cut short; with no `\n` at all, to empty), and syncs the cut
/// so a power loss cannot bring the bytes back in front of the next event.
/// The file's length after.
fn cut_torn_tail(file: &mut File) -> io::Result<u64> {
    const CHUNK: u64 = 8192;
    let len = file.metadata()?.len();
    let mut buf = vec![0; CHUNK as usize];
    let mut end = len;
    let keep = loop {
        if end == 0 {
            break 0;
        }
        let start = end.saturating_sub(CHUNK);
        let chunk = &mut buf[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(chunk)?;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            break start + i as u64 + 1;
        }
        end = start;
    };
    if keep < len {
        file.set_len(keep)?;
        file.sync_all()?;
    }
    Ok(keep)
}
