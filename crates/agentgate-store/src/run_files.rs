//! Writing a run's folder: its events (`events.jsonl`, or the store's
//! table where the backend keeps them: [`EventSink`]) and `stderr.log`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use agentgate_protocol::Event;

use crate::error::StoreError;

/// File name of a run's event log inside its folder.
pub const EVENTS_FILE_NAME: &str = "events.jsonl";
/// File name of a run's provider stderr inside its folder.
pub const STDERR_FILE_NAME: &str = "stderr.log";

/// Where a run's events are appended as it runs: the run's `events.jsonl`
/// ([`EventsWriter`], SQLite) or rows of the store (PostgreSQL). Events are
/// appended in `seq` order.
pub trait EventSink: Send + std::fmt::Debug {
    /// Appends one event.
    fn write_event(&mut self, event: &Event) -> Result<(), StoreError>;

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
    events: Box<dyn EventSink>,
    stderr: StderrWriter,
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
            }),
            stderr: StderrWriter {
                file: stderr,
                path: stderr_path,
            },
        })
    }

    /// Creates the run's folder and its `stderr.log`, with `events` as its
    /// event log: for a backend that keeps events elsewhere than
    /// `events.jsonl`. Fails with [`StoreError::RunFilesExist`] if the run
    /// already has a `stderr.log`.
    pub fn with_events(
        dir: PathBuf,
        run_id: &str,
        events: Box<dyn EventSink>,
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
        })
    }

    /// The run's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Appends one event to the run's event log.
    pub fn write_event(&mut self, event: &Event) -> Result<(), StoreError> {
        self.events.write_event(event)
    }

    /// Appends raw bytes to `stderr.log`.
    pub fn write_stderr(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        self.stderr.write_bytes(bytes)
    }

    /// Waits until the events written so far can be read by others
    /// ([`EventSink::flush`]).
    pub fn flush_events(&mut self) -> Result<(), StoreError> {
        self.events.flush()
    }

    /// Stores the events durably and flushes `stderr.log` to the disk.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.events.sync()?;
        self.stderr.sync()
    }

    /// The two writers, to hand to different tasks.
    pub fn into_writers(self) -> (Box<dyn EventSink>, StderrWriter) {
        (self.events, self.stderr)
    }
}

/// Appends events to a run's `events.jsonl`, one JSON object per line.
#[derive(Debug)]
pub struct EventsWriter {
    file: File,
    path: PathBuf,
    /// Bytes of complete lines in the file, to cut a half-written line off.
    len: u64,
}

impl EventsWriter {
    /// Appends `event` and its newline in one write.
    ///
    /// If the write fails part-way (a full disk), the partial line is cut off
    /// again where possible, so later events still start on a line of their
    /// own.
    pub fn write_event(&mut self, event: &Event) -> Result<(), StoreError> {
        let mut line = serde_json::to_vec(event).map_err(|source| StoreError::EncodeEvent {
            path: self.path.clone(),
            source,
        })?;
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
        Ok(())
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

impl EventSink for EventsWriter {
    fn write_event(&mut self, event: &Event) -> Result<(), StoreError> {
        EventsWriter::write_event(self, event)
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        EventsWriter::sync(self)
    }
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

/// Creates `dir` and its missing parents, private to the user on Unix.
pub(crate) fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// Takes the group's and others' permissions away from `path` (a folder
/// or a file) if it has any: a folder made by an older version, or by hand
/// under another umask, becomes private too.
pub(crate) fn make_private(path: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)?.permissions().mode();
        if mode & 0o077 != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & 0o700))?;
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Creates the file `path` empty, mode 600, if it is missing; makes it
/// private if it is there. Anything else in its place is left for the
/// caller's open to report.
pub(crate) fn create_private_file(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => return make_private(path),
        Ok(_) => return Ok(()),
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        Err(_) => {}
    }
    let mut options = OpenOptions::new();
    options.write(true).create(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?;
    make_private(path)
}

fn open_private(path: &Path, create_new: bool) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.append(true);
    if create_new {
        options.create_new(true);
    } else {
        options.create(true);
    }
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}
