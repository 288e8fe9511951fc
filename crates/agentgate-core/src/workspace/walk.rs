//! The bounded folder walk used outside git, and the fingerprint of one
//! path (content hash, or size and modification time).

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::error::WorkspaceError;

/// How many entries (files, folders, links) a snapshot without git walks
/// before giving up with [`WorkspaceError::TooLarge`].
pub const DEFAULT_WALK_LIMIT: usize = 100_000;

/// Files up to this size are fingerprinted by content; larger ones by size
/// and modification time.
const HASH_LIMIT: u64 = 8 * 1024 * 1024;

/// What a path holds, compact enough to keep for every file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Fingerprint {
    Missing,
    Dir,
    Symlink(PathBuf),
    File {
        size: u64,
        executable: bool,
        content: Content,
    },
    /// A fifo, socket or device.
    Special(Option<SystemTime>),
}

/// How a file's content is told apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Content {
    Hash(u64),
    Mtime(Option<SystemTime>),
}

/// Fails unless `dir` exists and is a folder.
pub(super) fn check_dir(dir: &Path) -> Result<(), WorkspaceError> {
    let meta = fs::metadata(dir).map_err(|source| WorkspaceError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    if meta.is_dir() {
        Ok(())
    } else {
        Err(WorkspaceError::NotADirectory {
            dir: dir.to_path_buf(),
        })
    }
}

/// The fingerprint of every path under `dir` but folders and `.git`,
/// relative to `dir`; [`WorkspaceError::TooLarge`] past `limit` entries.
pub(super) fn walk(
    dir: &Path,
    limit: usize,
) -> Result<BTreeMap<PathBuf, Fingerprint>, WorkspaceError> {
    let read_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| WorkspaceError::Read { path, source }
    };
    let mut entries = BTreeMap::new();
    let mut count = 0usize;
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        let folder = dir.join(&relative);
        let listing = match fs::read_dir(&folder) {
            Ok(listing) => listing,
            // Removed while we walk: whatever it held is gone.
            Err(e) if !relative.as_os_str().is_empty() && is_gone(&e) => continue,
            Err(e) => return Err(read_error(&folder)(e)),
        };
        for entry in listing {
            let entry = entry.map_err(read_error(&folder))?;
            let name = entry.file_name();
            if name == ".git" {
                continue;
            }
            count += 1;
            if count > limit {
                return Err(WorkspaceError::TooLarge {
                    dir: dir.to_path_buf(),
                    limit,
                });
            }
            let child = relative.join(&name);
            let file_type = entry.file_type().map_err(read_error(&entry.path()))?;
            if file_type.is_dir() {
                pending.push(child);
            } else {
                let fingerprint = fingerprint(&dir.join(&child))?;
                if fingerprint != Fingerprint::Missing {
                    entries.insert(child, fingerprint);
                }
            }
        }
    }
    Ok(entries)
}

fn is_gone(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// The path's fingerprint, without following a symlink.
pub(super) fn fingerprint(path: &Path) -> Result<Fingerprint, WorkspaceError> {
    let read_error = |source| WorkspaceError::Read {
        path: path.to_path_buf(),
        source,
    };
    let meta = match fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if is_gone(&e) => return Ok(Fingerprint::Missing),
        Err(e) => return Err(read_error(e)),
    };
    let file_type = meta.file_type();
    if file_type.is_dir() {
        return Ok(Fingerprint::Dir);
    }
    if file_type.is_symlink() {
        return match fs::read_link(path) {
            Ok(target) => Ok(Fingerprint::Symlink(target)),
            Err(e) if is_gone(&e) => Ok(Fingerprint::Missing),
            Err(e) => Err(read_error(e)),
        };
    }
    if !file_type.is_file() {
        return Ok(Fingerprint::Special(meta.modified().ok()));
    }
    let size = meta.len();
    let content = if size <= HASH_LIMIT {
        match hash_file(path) {
            Ok(hash) => Content::Hash(hash),
            Err(e) if is_gone(&e) => return Ok(Fingerprint::Missing),
            Err(e) => return Err(read_error(e)),
        }
    } else {
        Content::Mtime(meta.modified().ok())
    };
    Ok(Fingerprint::File {
        size,
        executable: meta.permissions().mode() & 0o111 != 0,
        content,
    })
}

/// FNV-1a over the file's bytes: stable, and enough to tell an edit apart.
fn hash_file(path: &Path) -> io::Result<u64> {
    let mut file = fs::File::open(path)?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => return Ok(hash),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        for &byte in &buffer[..n] {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
