//! Session locks of the SQLite store: an `flock` on
//! `locks/session-<name>.lock` next to the database.
//!
//! The kernel drops an `flock` when the last descriptor of the open file
//! goes, so the lock ends with its holder however it ends (exit, crash,
//! SIGKILL). The files stay (empty, one per session name): removing a lock
//! file while another process waits on it would let two holders lock two
//! different files of one name.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

use crate::error::StoreError;
use crate::run_files::create_private_dir;
use crate::session_lock::{SessionLock, lock_file_name};

/// Takes session `name`'s lock in `dir` if free; `None` if another holder
/// has it.
pub(super) fn try_lock(dir: &Path, name: &str) -> Result<Option<SessionLock>, StoreError> {
    create_private_dir(dir).map_err(|source| StoreError::Io {
        op: "create the session locks folder",
        path: dir.to_path_buf(),
        source,
    })?;
    let path = dir.join(lock_file_name(name));
    let file = open(&path).map_err(|source| StoreError::Io {
        op: "open the session lock",
        path: path.clone(),
        source,
    })?;
    match file.try_lock() {
        Ok(()) => Ok(Some(SessionLock::new(name, file))),
        Err(TryLockError::WouldBlock) => Ok(None),
        Err(TryLockError::Error(source)) => Err(StoreError::Io {
            op: "lock the session",
            path,
            source,
        }),
    }
}

fn open(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options.open(path)
}
