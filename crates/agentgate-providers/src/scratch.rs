//! The folder a provider writes the files its CLI reads (a system-prompt
//! file, a settings copy) into.
//!
//! A recorded run hands over its own folder in the store, which exists. A
//! run without the store gets a private folder in the temp dir, made only
//! when a provider first asks for its path and removed when the run drops
//! it: most runs write no file, and making and removing a folder per run
//! costs more than the rest of an unrecorded run's own file work.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

/// The folder of a run without the store could not be made.
#[derive(Debug, thiserror::Error)]
#[error("failed to create a folder for the CLI's files in {parent}: {source}")]
pub struct ScratchError {
    /// Where it was to be made (the temp dir).
    pub parent: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// Where a provider may write the files its CLI reads; see the module
/// notes.
#[derive(Debug)]
pub struct Scratch {
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// An existing folder, left in place.
    Given(PathBuf),
    /// A folder in `parent` (the temp dir), made on first use and removed
    /// on drop.
    Lazy {
        parent: PathBuf,
        made: Mutex<Option<tempfile::TempDir>>,
    },
}

impl Scratch {
    /// The existing folder `dir` (a run's folder in the store).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self {
            kind: Kind::Given(dir.into()),
        }
    }

    /// A private folder (mode 700) of its own in the temp dir, made when a provider
    /// first asks for it and removed when this is dropped.
    pub fn temporary() -> Self {
        Self::temporary_in(std::env::temp_dir())
    }

    /// As [`Scratch::temporary`], in `parent`.
    pub fn temporary_in(parent: impl Into<PathBuf>) -> Self {
        Self {
            kind: Kind::Lazy {
                parent: parent.into(),
                made: Mutex::new(None),
            },
        }
    }

    /// The folder, made now if this is the first use of a temporary one.
    pub fn path(&self) -> Result<PathBuf, ScratchError> {
        match &self.kind {
            Kind::Given(dir) => Ok(dir.clone()),
            Kind::Lazy { parent, made } => {
                // Making the folder cannot panic half-way, so a poisoned
                // lock holds a consistent value.
                let mut made = made.lock().unwrap_or_else(PoisonError::into_inner);
                if let Some(dir) = made.as_ref() {
                    return Ok(dir.path().to_path_buf());
                }
                let mut builder = tempfile::Builder::new();
                builder.prefix("agentgate-run-");
                // The files may hold a system prompt: private, as a run's
                // folder in the store is.
                #[cfg(unix)]
                builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700));
                let dir = builder.tempdir_in(parent).map_err(|source| ScratchError {
                    parent: parent.clone(),
                    source,
                })?;
                let path = dir.path().to_path_buf();
                *made = Some(dir);
                Ok(path)
            }
        }
    }
}

impl From<&Path> for Scratch {
    fn from(dir: &Path) -> Self {
        Self::at(dir)
    }
}

/// A temp folder of the CLI's own, for a CLI that leaves files in its temp
/// folder at every start (see `CliCommand::private_tmpdir`), to give it as
/// `TMPDIR`: `Ok(None)` when the request's `env` sets `TMPDIR` itself; the
/// error names the folder it could not be made in.
pub fn private_tmpdir(env: &[(String, String)]) -> Result<Option<tempfile::TempDir>, String> {
    if env.iter().any(|(k, _)| k == "TMPDIR") {
        return Ok(None);
    }
    let parent = std::env::temp_dir();
    tempfile::Builder::new()
        .prefix("agentgate-tmp-")
        .tempdir_in(&parent)
        .map(Some)
        .map_err(|e| {
            format!(
                "could not make a temp folder for the CLI in {}: {e}; it uses that folder itself",
                parent.display()
            )
        })
}

/// Files and folders removed when dropped (a missing one is not an
/// error): what a command wrote for its CLI, once the CLI has exited.
#[derive(Debug)]
pub struct RemovedOnDrop(pub Vec<PathBuf>);

impl Drop for RemovedOnDrop {
    fn drop(&mut self) {
        for path in &self.0 {
            // A folder (a CLI's own temp folder) goes with what is in it.
            let removed = match std::fs::symlink_metadata(path) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
                _ => std::fs::remove_file(path),
            };
            if let Err(e) = removed
                && e.kind() != std::io::ErrorKind::NotFound
            {
                tracing::warn!("failed to remove {}: {e}", path.display());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> usize {
        std::fs::read_dir(dir).unwrap().count()
    }

    #[test]
    fn a_temporary_folder_is_made_on_first_use_only_and_removed_on_drop() {
        let parent = tempfile::tempdir().unwrap();
        let scratch = Scratch::temporary_in(parent.path());
        assert_eq!(entries(parent.path()), 0, "made before anyone asked");
        let dir = scratch.path().unwrap();
        assert!(dir.is_dir());
        assert_eq!(dir.parent(), Some(parent.path()));
        assert_eq!(scratch.path().unwrap(), dir, "one folder per scratch");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&dir).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "private to the user");
        }
        drop(scratch);
        assert!(!dir.exists());
        assert_eq!(entries(parent.path()), 0);
    }

    #[test]
    fn an_unused_temporary_folder_leaves_nothing() {
        let parent = tempfile::tempdir().unwrap();
        drop(Scratch::temporary_in(parent.path()));
        assert_eq!(entries(parent.path()), 0);
    }

    #[test]
    fn a_given_folder_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = Scratch::at(dir.path());
        assert_eq!(scratch.path().unwrap(), dir.path());
        drop(scratch);
        assert!(dir.path().is_dir());
    }

    #[test]
    fn a_folder_that_cannot_be_made_is_an_error_naming_where() {
        let parent = tempfile::tempdir().unwrap();
        let file = parent.path().join("not-a-folder");
        std::fs::write(&file, "").unwrap();
        let err = Scratch::temporary_in(&file).path().unwrap_err();
        assert_eq!(err.parent, file);
        let text = err.to_string();
        assert!(text.contains("not-a-folder"), "{text}");
    }
}
