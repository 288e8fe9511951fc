//! Files and folders private to the user (0700 folders, 0600 files on
//! Unix): where runs, events and locks are kept.

use std::fs::{File, OpenOptions};
use std::io;
use std::path::Path;

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
#[cfg_attr(
    not(feature = "sqlite"),
    expect(dead_code, reason = "used by the SQLite backend only")
)]
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

pub(super) fn open_private(path: &Path, create_new: bool) -> io::Result<File> {
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
