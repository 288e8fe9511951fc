//! A watched folder's files: which are candidates, their identity, and
//! where they go when their job ends.

use std::fs;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Names that writers use for files not finished yet.
const PARTIAL_SUFFIXES: [&str; 6] = [".tmp", ".part", ".partial", ".crdownload", ".swp", "~"];

/// The folder (inside the watched one) of files whose job succeeded.
pub(super) const DONE_DIR: &str = "done";
/// The folder of files whose job failed, with their error records.
pub(super) const FAILED_DIR: &str = "failed";

/// What tells one file from another under the same name: a file changed
/// or replaced has another identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Identity {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i128,
}

impl Identity {
    fn of(meta: &fs::Metadata) -> Identity {
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        }
    }
}

/// A candidate file of a scan.
#[derive(Debug, Clone)]
pub(super) struct Candidate {
    pub name: String,
    pub identity: Identity,
}

/// The regular files directly in `folder` whose name passes the skip rules
/// and matches one of `patterns` (all, when empty), by name.
pub(super) fn list(folder: &Path, patterns: &[String]) -> io::Result<Vec<Candidate>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(folder)? {
        let entry = entry?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        if skipped(&name) || !(patterns.is_empty() || patterns.iter().any(|p| glob(p, &name))) {
            continue;
        }
        // `symlink_metadata`: a link is not followed (and not taken).
        let Ok(meta) = fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if meta.is_file() {
            out.push(Candidate {
                name,
                identity: Identity::of(&meta),
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Hidden files and the names of files still being written.
pub(super) fn skipped(name: &str) -> bool {
    name.starts_with('.') || PARTIAL_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// `*` (any run of characters) and `?` (one character), on the whole name.
pub(super) fn glob(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(c) if *c == '?' || *c == n[ni] => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// A stable 64-bit FNV-1a hash (the folder's part of a file's key: it
/// must not change between builds, as `std`'s hasher may).
pub(super) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Move `folder/name` into `folder/dir/`, under its name or, when that is
/// taken, `stem-N.ext`; returns the new path.
pub(super) fn move_into(folder: &Path, name: &str, dir: &str) -> io::Result<PathBuf> {
    let target_dir = folder.join(dir);
    fs::create_dir_all(&target_dir)?;
    let (stem, ext) = match name.rfind('.') {
        Some(i) if i > 0 => (&name[..i], &name[i..]),
        _ => (name, ""),
    };
    for n in 0..10_000u32 {
        let candidate = if n == 0 {
            name.to_owned()
        } else {
            format!("{stem}-{n}{ext}")
        };
        let target = target_dir.join(&candidate);
        let record = target_dir.join(format!("{candidate}.error.json"));
        if target.symlink_metadata().is_ok() || record.symlink_metadata().is_ok() {
            continue;
        }
        fs::rename(folder.join(name), &target)?;
        return Ok(target);
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("no free name for `{name}` in {}", target_dir.display()),
    ))
}

/// `NAME.error.json` next to a failed file: why it failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct ErrorRecord {
    /// The watched folder's name in the config.
    pub watch: String,
    /// The file's name when it was taken.
    pub file: String,
    /// The job it became; `None` when it could not become one.
    pub job_id: Option<String>,
    /// The job's final state (`failed`, `cancelled`, `abandoned`), or
    /// `refused` for a file that could not become a job.
    pub state: String,
    /// The job's error, or why the file was refused.
    pub error: Option<String>,
}

/// Write `record` next to the file moved to `moved`.
pub(super) fn write_record(moved: &Path, record: &ErrorRecord) -> io::Result<()> {
    let mut name = moved.file_name().unwrap_or_default().to_os_string();
    name.push(".error.json");
    let mut text = serde_json::to_string_pretty(record).map_err(io::Error::other)?;
    text.push('\n');
    fs::write(moved.with_file_name(name), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_names() {
        for (p, n) in [
            ("*.md", "a.md"),
            ("*.md", ".md"),
            ("note-?.txt", "note-1.txt"),
            ("*", "x"),
            ("a*b*c", "aXXbYYc"),
            ("*a", "banana"),
        ] {
            assert!(glob(p, n), "{p} {n}");
        }
        for (p, n) in [
            ("*.md", "a.md.bak"),
            ("note-?.txt", "note-10.txt"),
            ("a*b*c", "aXXbYY"),
            ("x", "xy"),
        ] {
            assert!(!glob(p, n), "{p} {n}");
        }
    }

    #[test]
    fn hidden_and_partial_names_are_skipped() {
        for n in [
            ".x.md",
            "a.tmp",
            "a.md.part",
            "a.partial",
            "a.crdownload",
            "a~",
            ".a.swp",
        ] {
            assert!(skipped(n), "{n}");
        }
        for n in ["a.md", "tmp.md", "part"] {
            assert!(!skipped(n), "{n}");
        }
    }

    #[test]
    fn moves_get_a_free_name() {
        let dir = tempfile::tempdir().unwrap();
        for round in 0..3 {
            fs::write(dir.path().join("n.md"), format!("{round}")).unwrap();
            move_into(dir.path(), "n.md", DONE_DIR).unwrap();
        }
        // A name whose error record exists is taken too.
        fs::write(dir.path().join("done/n-3.md.error.json"), "{}").unwrap();
        fs::write(dir.path().join("n.md"), "3").unwrap();
        let last = move_into(dir.path(), "n.md", DONE_DIR).unwrap();
        assert_eq!(last, dir.path().join("done/n-4.md"));
        for (name, text) in [
            ("n.md", "0"),
            ("n-1.md", "1"),
            ("n-2.md", "2"),
            ("n-4.md", "3"),
        ] {
            assert_eq!(
                fs::read_to_string(dir.path().join("done").join(name)).unwrap(),
                text
            );
        }
        assert!(!dir.path().join("n.md").exists());
    }

    #[test]
    fn the_folder_hash_is_stable() {
        // FNV-1a test vectors: the key of a file must not change between builds.
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }
}
