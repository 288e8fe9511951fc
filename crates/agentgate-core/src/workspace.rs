//! Workspace snapshots: did an attempt change the files?
//!
//! Failover takes a [`Snapshot`] of the agent's folder before an attempt and
//! asks for its [`Snapshot::changes`] afterwards, to apply `on_dirty` before
//! handing the task to the next agent; agent modes use the same changes
//! (`classify` must change nothing, `edit` only paths [`outside_allowlist`]
//! lets through).
//!
//! Inside a git work tree the snapshot is git's view: `git status` (ignored
//! files are not watched) plus a fingerprint of every path it lists, and
//! `HEAD`, so that a file already dirty before the attempt and edited again
//! is caught, and so is a change the agent committed. Elsewhere it is a walk
//! of the folder.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::SystemTime;

use serde::Serialize;

/// How many entries (files, folders, links) a snapshot without git walks
/// before giving up with [`WorkspaceError::TooLarge`].
pub const DEFAULT_WALK_LIMIT: usize = 100_000;

/// Files up to this size are fingerprinted by content; larger ones by size
/// and modification time.
const HASH_LIMIT: u64 = 8 * 1024 * 1024;

/// What a snapshot rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotKind {
    /// `git status` and `HEAD` of the work tree holding the folder.
    Git,
    /// A walk of the folder (no git work tree, or no `git` installed).
    Files,
}

/// How one path differs from the snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The path did not exist at the snapshot and exists now.
    Added,
    /// The path exists at both times with different content, type or
    /// executable bit.
    Modified,
    /// The path existed at the snapshot and does not now.
    Deleted,
}

impl ChangeKind {
    /// The one-letter code `git status --short` uses: `A`, `M` or `D`.
    pub fn letter(self) -> char {
        match self {
            ChangeKind::Added => 'A',
            ChangeKind::Modified => 'M',
            ChangeKind::Deleted => 'D',
        }
    }
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Change {
    /// Relative to the snapshot's folder.
    pub path: PathBuf,
    /// What happened to it.
    pub kind: ChangeKind,
}

impl fmt::Display for Change {
    /// `M src/a.rs`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind.letter(), self.path.display())
    }
}

/// Why a snapshot, a comparison or a stash failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The folder to watch is not a folder.
    #[error("failed to snapshot {}: not a directory", dir.display())]
    NotADirectory {
        /// The folder given.
        dir: PathBuf,
    },
    /// A file or folder could not be read.
    #[error("failed to read {}: {source}", path.display())]
    Read {
        /// What was being read.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The folder holds more entries than a snapshot without git walks.
    #[error(
        "failed to snapshot {}: it holds more than {limit} files and folders; \
         make it a git work tree (`git init`) so that git's status is used, \
         or run the agent in a smaller folder",
        dir.display()
    )]
    TooLarge {
        /// The folder given.
        dir: PathBuf,
        /// The bound on entries.
        limit: usize,
    },
    /// `git` could not be started.
    #[error("failed to run `{command}` in {}: {source}", dir.display())]
    GitSpawn {
        /// The command line, e.g. `git status --porcelain=v1 ...`.
        command: String,
        /// Where it ran.
        dir: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// `git` exited unsuccessfully.
    #[error("failed to run `{command}` in {}: {stderr}", dir.display())]
    Git {
        /// The command line.
        command: String,
        /// Where it ran.
        dir: PathBuf,
        /// What git printed on stderr (trimmed), or its exit status.
        stderr: String,
    },
    /// `on_dirty: stash` outside a git work tree.
    #[error(
        "failed to stash the changes in {}: on_dirty: stash needs a git work tree, \
         and this folder is not in one; use on_dirty: stop or continue here",
        dir.display()
    )]
    NotGit {
        /// The folder given.
        dir: PathBuf,
    },
    /// `git stash` found nothing to save (for instance because the changes
    /// were committed: a stash cannot take those away).
    #[error(
        "failed to stash the changes in {}: git found no local changes to save \
         (committed changes cannot be stashed)",
        dir.display()
    )]
    NothingToStash {
        /// The folder given.
        dir: PathBuf,
    },
}

/// The state of a folder at one moment, to compare against later.
#[derive(Debug, Clone)]
pub struct Snapshot {
    dir: PathBuf,
    view: View,
}

#[derive(Debug, Clone)]
enum View {
    Git {
        /// The folder relative to the work tree's top, as `--show-prefix`
        /// prints it (`status` paths are relative to the top).
        prefix: PathBuf,
        state: GitState,
    },
    Files {
        limit: usize,
        entries: BTreeMap<PathBuf, Fingerprint>,
    },
}

#[derive(Debug, Clone)]
struct GitState {
    /// `None` on an unborn branch.
    head: Option<String>,
    /// Every path `git status` lists, relative to the folder.
    dirty: BTreeMap<PathBuf, GitEntry>,
}

#[derive(Debug, Clone)]
struct GitEntry {
    /// The two status letters (`??`, ` M`, `A `, ...).
    status: [u8; 2],
    fingerprint: Fingerprint,
}

/// What a path holds, compact enough to keep for every file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fingerprint {
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

#[derive(Debug, Clone, PartialEq, Eq)]
enum Content {
    Hash(u64),
    Mtime(Option<SystemTime>),
}

impl Snapshot {
    /// Records the state of `dir`: git's view when `dir` is inside a git work
    /// tree, otherwise a walk of the folder (bounded by
    /// [`DEFAULT_WALK_LIMIT`] entries).
    pub fn take(dir: &Path) -> Result<Snapshot, WorkspaceError> {
        check_dir(dir)?;
        match git_prefix(dir)? {
            Some(prefix) => {
                let state = git_state(dir, &prefix)?;
                Ok(Snapshot {
                    dir: dir.to_path_buf(),
                    view: View::Git { prefix, state },
                })
            }
            None => Snapshot::take_files(dir, DEFAULT_WALK_LIMIT),
        }
    }

    /// A snapshot by walking `dir`, whether or not git is there, giving up
    /// past `limit` entries.
    pub(crate) fn take_files(dir: &Path, limit: usize) -> Result<Snapshot, WorkspaceError> {
        check_dir(dir)?;
        let entries = walk(dir, limit)?;
        Ok(Snapshot {
            dir: dir.to_path_buf(),
            view: View::Files { limit, entries },
        })
    }

    /// The folder this snapshot watches.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What the snapshot rests on.
    pub fn kind(&self) -> SnapshotKind {
        match self.view {
            View::Git { .. } => SnapshotKind::Git,
            View::Files { .. } => SnapshotKind::Files,
        }
    }

    /// What differs now from the snapshot, sorted by path, paths relative
    /// to the folder. Empty folders are not tracked; with git, ignored
    /// files are not either.
    ///
    /// With git, a path counts as changed when:
    /// - it was listed by `git status` at the snapshot and its content,
    ///   type or executable bit differs now (whether or not it is still
    ///   listed: a dirty file the attempt reverted or committed is
    ///   Modified, one it left alone is unchanged);
    /// - it is listed now and was not then (Added when untracked, newly
    ///   staged or the new side of a rename, Deleted when gone, otherwise
    ///   Modified; this includes a change to the index alone, such as
    ///   `git rm --cached`);
    /// - `HEAD` moved (a commit, checkout or reset) and the path differs
    ///   between the old and the new commit.
    ///
    /// Files up to 8 MiB are compared by content (so rewriting a file
    /// with the same bytes is no change), larger ones by size and
    /// modification time; symlinks by their target, never followed.
    pub fn changes(&self) -> Result<Vec<Change>, WorkspaceError> {
        let found = match &self.view {
            View::Git { prefix, state } => git_changes(&self.dir, prefix, state)?,
            View::Files { limit, entries } => {
                let now = walk(&self.dir, *limit)?;
                files_changes(entries, &now)
            }
        };
        Ok(found
            .into_iter()
            .map(|(path, kind)| Change { path, kind })
            .collect())
    }
}

/// Moves the uncommitted changes under `dir` (untracked files included)
/// into a new git stash named `message`, and returns how `git stash list`
/// describes it, e.g. `stash@{0}: On main: agentgate: claude failed`.
pub fn stash(dir: &Path, message: &str) -> Result<String, WorkspaceError> {
    check_dir(dir)?;
    if git_prefix(dir)?.is_none() {
        return Err(WorkspaceError::NotGit {
            dir: dir.to_path_buf(),
        });
    }
    let before = stash_top(dir)?;
    // A stash is a commit: without an identity some git versions refuse.
    run_git(
        dir,
        &[
            "-c",
            "user.name=agentgate",
            "-c",
            "user.email=agentgate@localhost",
            "stash",
            "push",
            "--include-untracked",
            "-m",
            message,
            "--",
            ".",
        ],
    )?;
    if stash_top(dir)? == before {
        return Err(WorkspaceError::NothingToStash {
            dir: dir.to_path_buf(),
        });
    }
    let listed = run_git(dir, &["stash", "list", "-n", "1"])?;
    Ok(String::from_utf8_lossy(&listed).trim().to_string())
}

/// The changes whose path is not under any of the `allow` paths.
///
/// `allow` entries are relative to `dir` (the snapshot's folder) or
/// absolute; both sides are normalised lexically (`.` and `..` resolved,
/// symlinks not followed), so `src/../secrets` is `secrets` and `.` allows
/// everything under `dir`. An entry that leads outside `dir` allows nothing,
/// unless it is an ancestor of `dir`, which allows everything. An empty
/// `allow` lets nothing through.
pub fn outside_allowlist<'a>(
    dir: &Path,
    changes: &'a [Change],
    allow: &[PathBuf],
) -> Vec<&'a Change> {
    let roots = dir_forms(dir);
    let allowed: Vec<PathBuf> = allow
        .iter()
        .filter_map(|entry| allowed_prefix(&roots, entry))
        .collect();
    changes
        .iter()
        .filter(|change| {
            let path = normalise(&change.path);
            let escapes = matches!(path.components().next(), Some(Component::ParentDir))
                || path.is_absolute();
            escapes || !allowed.iter().any(|prefix| path.starts_with(prefix))
        })
        .collect()
}

/// `dir` as absolute and normalised, and its canonical form when that
/// differs (`/tmp` against `/private/tmp`).
fn dir_forms(dir: &Path) -> Vec<PathBuf> {
    let mut forms = Vec::new();
    if let Ok(absolute) = std::path::absolute(dir) {
        forms.push(normalise(&absolute));
    }
    if let Ok(canonical) = fs::canonicalize(dir)
        && !forms.contains(&canonical)
    {
        forms.push(canonical);
    }
    forms
}

/// The allowlist entry as a path relative to the folder (empty = all).
fn allowed_prefix(roots: &[PathBuf], entry: &Path) -> Option<PathBuf> {
    for root in roots {
        let full = normalise(&root.join(entry));
        if let Ok(inside) = full.strip_prefix(root) {
            return Some(inside.to_path_buf());
        }
        if root.starts_with(&full) {
            return Some(PathBuf::new());
        }
    }
    None
}

/// Resolves `.` and `..` without touching the file system. A leading `..`
/// of a relative path is kept, so that escaping stays visible.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            other => out.push(other),
        }
    }
    out
}

fn check_dir(dir: &Path) -> Result<(), WorkspaceError> {
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

// ---- files ----

fn walk(dir: &Path, limit: usize) -> Result<BTreeMap<PathBuf, Fingerprint>, WorkspaceError> {
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

fn files_changes(
    old: &BTreeMap<PathBuf, Fingerprint>,
    now: &BTreeMap<PathBuf, Fingerprint>,
) -> BTreeMap<PathBuf, ChangeKind> {
    let mut found = BTreeMap::new();
    for (path, before) in old {
        let after = now.get(path).unwrap_or(&Fingerprint::Missing);
        if let Some(kind) = compare(before, after) {
            found.insert(path.clone(), kind);
        }
    }
    for path in now.keys() {
        if !old.contains_key(path) {
            found.insert(path.clone(), ChangeKind::Added);
        }
    }
    found
}

fn compare(before: &Fingerprint, after: &Fingerprint) -> Option<ChangeKind> {
    match (before, after) {
        _ if before == after => None,
        (_, Fingerprint::Missing) => Some(ChangeKind::Deleted),
        (Fingerprint::Missing, _) => Some(ChangeKind::Added),
        _ => Some(ChangeKind::Modified),
    }
}

fn is_gone(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// The path's fingerprint, without following a symlink.
fn fingerprint(path: &Path) -> Result<Fingerprint, WorkspaceError> {
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

// ---- git ----

fn git_command<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(args)
        // Never take index.lock for a status refresh: an agent may be
        // running git in the same tree.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        // The repository is the one holding `dir`, whatever the caller's
        // environment points at (as inside a git hook).
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_PREFIX")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn command_line<S: AsRef<OsStr>>(args: &[S]) -> String {
    let mut line = String::from("git");
    for arg in args {
        line.push(' ');
        line.push_str(&arg.as_ref().to_string_lossy());
    }
    line
}

fn git_output<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Result<Output, WorkspaceError> {
    git_command(dir, args)
        .output()
        .map_err(|source| WorkspaceError::GitSpawn {
            command: command_line(args),
            dir: dir.to_path_buf(),
            source,
        })
}

/// Runs git and returns its stdout, or an error holding its stderr.
fn run_git<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Result<Vec<u8>, WorkspaceError> {
    let output = git_output(dir, args)?;
    if output.status.success() {
        return Ok(output.stdout);
    }
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
    Err(WorkspaceError::Git {
        command: command_line(args),
        dir: dir.to_path_buf(),
        stderr: if stderr.is_empty() {
            output.status.to_string()
        } else {
            stderr
        },
    })
}

/// `Some(prefix of dir in its work tree)` when `dir` is inside a git work
/// tree; `None` when it is not, or when git is not installed.
fn git_prefix(dir: &Path) -> Result<Option<PathBuf>, WorkspaceError> {
    let output = match git_command(dir, &["rev-parse", "--show-toplevel", "--show-prefix"]).output()
    {
        Ok(output) => output,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(WorkspaceError::GitSpawn {
                command: "git rev-parse --show-toplevel --show-prefix".to_string(),
                dir: dir.to_path_buf(),
                source,
            });
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        // A repository git refuses to use: the walk would quietly watch
        // the wrong thing, and git's message says how to allow it.
        if stderr.contains("safe.directory") {
            return Err(WorkspaceError::Git {
                command: "git rev-parse --show-toplevel --show-prefix".to_string(),
                dir: dir.to_path_buf(),
                stderr,
            });
        }
        // Not a repository, inside `.git`, or a bare repository.
        return Ok(None);
    }
    let mut lines = output.stdout.split(|&b| b == b'\n');
    let _toplevel = lines.next();
    let prefix = lines.next().unwrap_or_default();
    Ok(Some(clean(Path::new(OsStr::from_bytes(prefix)))))
}

/// The path rebuilt from its components (drops a trailing `/`).
fn clean(path: &Path) -> PathBuf {
    path.components().collect()
}

fn git_head(dir: &Path) -> Result<Option<String>, WorkspaceError> {
    let output = git_output(dir, &["rev-parse", "-q", "--verify", "HEAD"])?;
    if !output.status.success() {
        return Ok(None);
    }
    Ok(Some(
        String::from_utf8_lossy(&output.stdout).trim().to_string(),
    ))
}

fn git_state(dir: &Path, prefix: &Path) -> Result<GitState, WorkspaceError> {
    let head = git_head(dir)?;
    let raw = run_git(
        dir,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
        ],
    )?;
    let mut dirty = BTreeMap::new();
    for (status, path) in parse_status(&raw) {
        // Porcelain paths are relative to the top of the work tree.
        let Ok(relative) = path.strip_prefix(prefix) else {
            continue;
        };
        let relative = clean(relative);
        let fingerprint = fingerprint(&dir.join(&relative))?;
        dirty.insert(
            relative,
            GitEntry {
                status,
                fingerprint,
            },
        );
    }
    Ok(GitState { head, dirty })
}

/// Parses `git status --porcelain=v1 -z`: `XY path\0`, and for a rename
/// or copy `XY new\0old\0`. The old side of a rename is reported as a
/// deletion.
fn parse_status(raw: &[u8]) -> Vec<([u8; 2], PathBuf)> {
    let mut found = Vec::new();
    let mut fields = raw.split(|&b| b == 0).filter(|field| !field.is_empty());
    while let Some(field) = fields.next() {
        let (Some(&x), Some(&y), Some(path)) = (field.first(), field.get(1), field.get(3..)) else {
            continue;
        };
        found.push(([x, y], PathBuf::from(OsStr::from_bytes(path))));
        // Both sides are fields; only a rename's old side is gone.
        if (matches!(x, b'R' | b'C') || matches!(y, b'R' | b'C'))
            && let Some(from) = fields.next()
            && (x == b'R' || y == b'R')
        {
            found.push(([b' ', b'D'], PathBuf::from(OsStr::from_bytes(from))));
        }
    }
    found
}

fn git_changes(
    dir: &Path,
    prefix: &Path,
    old: &GitState,
) -> Result<BTreeMap<PathBuf, ChangeKind>, WorkspaceError> {
    let now = git_state(dir, prefix)?;
    let mut found = BTreeMap::new();
    for (path, before) in &old.dirty {
        let after = match now.dirty.get(path) {
            Some(entry) => entry.fingerprint.clone(),
            None => fingerprint(&dir.join(path))?,
        };
        if let Some(kind) = compare(&before.fingerprint, &after) {
            found.insert(path.clone(), kind);
        }
    }
    for (path, entry) in &now.dirty {
        if old.dirty.contains_key(path) {
            continue;
        }
        let kind = if entry.fingerprint == Fingerprint::Missing {
            ChangeKind::Deleted
        } else if entry.status == *b"??"
            || entry.status.iter().any(|s| matches!(s, b'A' | b'R' | b'C'))
        {
            ChangeKind::Added
        } else {
            ChangeKind::Modified
        };
        found.insert(path.clone(), kind);
    }
    if old.head != now.head {
        let skip: BTreeSet<&PathBuf> = old.dirty.keys().chain(now.dirty.keys()).collect();
        for (path, kind) in commit_changes(dir, old.head.as_deref(), now.head.as_deref())? {
            if !skip.contains(&path) {
                found.insert(path, kind);
            }
        }
    }
    Ok(found)
}

/// The paths under `dir` that differ between two commits (`None` = the
/// empty tree of an unborn branch).
fn commit_changes(
    dir: &Path,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Vec<(PathBuf, ChangeKind)>, WorkspaceError> {
    let empty_tree = || -> Result<String, WorkspaceError> {
        let out = run_git(dir, &["hash-object", "-t", "tree", "--stdin"])?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    };
    let from = match from {
        Some(commit) => commit.to_string(),
        None => empty_tree()?,
    };
    let to = match to {
        Some(commit) => commit.to_string(),
        None => empty_tree()?,
    };
    let raw = run_git(
        dir,
        &[
            "diff",
            "--name-status",
            "--no-renames",
            "--no-color",
            "--relative",
            "-z",
            &from,
            &to,
            "--",
            ".",
        ],
    )?;
    let mut found = Vec::new();
    let mut fields = raw.split(|&b| b == 0).filter(|field| !field.is_empty());
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        let kind = match status.first() {
            Some(b'A') => ChangeKind::Added,
            Some(b'D') => ChangeKind::Deleted,
            _ => ChangeKind::Modified,
        };
        found.push((clean(Path::new(OsStr::from_bytes(path))), kind));
    }
    Ok(found)
}

/// The commit `refs/stash` points at, if any.
fn stash_top(dir: &Path) -> Result<Option<OsString>, WorkspaceError> {
    let output = git_output(dir, &["rev-parse", "-q", "--verify", "refs/stash"])?;
    Ok(output
        .status
        .success()
        .then(|| OsStr::from_bytes(output.stdout.trim_ascii()).to_os_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs git in `dir` for a test, isolated from the caller's git
    /// environment, and returns its stdout.
    fn git(dir: &Path, args: &[&str]) -> String {
        let output = git_command(dir, args).output().unwrap();
        assert!(
            output.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// A repository with `tracked.txt`, `sub/inner.txt` and a `.gitignore`
    /// ignoring `target/`, all committed.
    fn repo() -> tempfile::TempDir {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        git(dir, &["config", "user.name", "Test"]);
        git(dir, &["config", "user.email", "test@example.com"]);
        git(dir, &["config", "commit.gpgsign", "false"]);
        fs::write(dir.join("tracked.txt"), "one\n").unwrap();
        fs::create_dir(dir.join("sub")).unwrap();
        fs::write(dir.join("sub/inner.txt"), "inner\n").unwrap();
        fs::write(dir.join(".gitignore"), "target/\n").unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-q", "-m", "initial"]);
        tmp
    }

    fn listed(snapshot: &Snapshot) -> Vec<String> {
        snapshot
            .changes()
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn clean_repo_has_no_changes() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Git);
        assert_eq!(listed(&snapshot), Vec::<String>::new());
    }

    #[test]
    fn untracked_file_is_added() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::write(tmp.path().join("new.txt"), "x").unwrap();
        fs::create_dir_all(tmp.path().join("deep/er")).unwrap();
        fs::write(tmp.path().join("deep/er/file.txt"), "x").unwrap();
        assert_eq!(listed(&snapshot), ["A deep/er/file.txt", "A new.txt"]);
    }

    #[test]
    fn modified_tracked_file_is_modified() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::write(tmp.path().join("tracked.txt"), "two\n").unwrap();
        assert_eq!(listed(&snapshot), ["M tracked.txt"]);
    }

    #[test]
    fn deleted_tracked_file_is_deleted() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::remove_file(tmp.path().join("tracked.txt")).unwrap();
        assert_eq!(listed(&snapshot), ["D tracked.txt"]);
    }

    #[test]
    fn renamed_file_is_added_and_deleted() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        git(tmp.path(), &["mv", "tracked.txt", "renamed.txt"]);
        assert_eq!(listed(&snapshot), ["A renamed.txt", "D tracked.txt"]);
    }

    #[test]
    fn file_dirty_before_and_edited_again_is_modified() {
        let tmp = repo();
        fs::write(tmp.path().join("tracked.txt"), "dirty\n").unwrap();
        fs::write(tmp.path().join("scratch.txt"), "mine\n").unwrap();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        // Same size as before: only the content tells.
        fs::write(tmp.path().join("tracked.txt"), "DIRTY\n").unwrap();
        assert_eq!(listed(&snapshot), ["M tracked.txt"]);
    }

    #[test]
    fn file_dirty_before_and_untouched_is_no_change() {
        let tmp = repo();
        fs::write(tmp.path().join("tracked.txt"), "dirty\n").unwrap();
        fs::write(tmp.path().join("scratch.txt"), "mine\n").unwrap();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        // Staging changes the index, not the file.
        git(tmp.path(), &["add", "tracked.txt"]);
        assert_eq!(listed(&snapshot), Vec::<String>::new());
    }

    #[test]
    fn dirty_file_reverted_or_removed_differs_from_the_snapshot() {
        let tmp = repo();
        fs::write(tmp.path().join("tracked.txt"), "dirty\n").unwrap();
        fs::write(tmp.path().join("scratch.txt"), "mine\n").unwrap();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        git(tmp.path(), &["checkout", "--", "tracked.txt"]);
        fs::remove_file(tmp.path().join("scratch.txt")).unwrap();
        assert_eq!(listed(&snapshot), ["D scratch.txt", "M tracked.txt"]);
    }

    #[test]
    fn committed_changes_are_reported() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::write(tmp.path().join("tracked.txt"), "two\n").unwrap();
        fs::write(tmp.path().join("new.txt"), "x").unwrap();
        git(tmp.path(), &["rm", "-q", "sub/inner.txt"]);
        git(tmp.path(), &["add", "."]);
        git(tmp.path(), &["commit", "-q", "-m", "agent"]);
        assert_eq!(git(tmp.path(), &["status", "--porcelain"]), "");
        assert_eq!(
            listed(&snapshot),
            ["A new.txt", "D sub/inner.txt", "M tracked.txt"]
        );
    }

    #[test]
    fn first_commit_on_an_unborn_branch_is_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        git(dir, &["config", "user.name", "Test"]);
        git(dir, &["config", "user.email", "test@example.com"]);
        git(dir, &["config", "commit.gpgsign", "false"]);
        let snapshot = Snapshot::take(dir).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Git);
        fs::write(dir.join("first.txt"), "x").unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-q", "-m", "first"]);
        assert_eq!(listed(&snapshot), ["A first.txt"]);
    }

    #[test]
    fn ignored_files_are_not_watched() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::create_dir(tmp.path().join("target")).unwrap();
        fs::write(tmp.path().join("target/build.o"), "x").unwrap();
        assert_eq!(listed(&snapshot), Vec::<String>::new());
    }

    #[test]
    fn subfolder_snapshot_sees_only_the_subfolder() {
        let tmp = repo();
        let sub = tmp.path().join("sub");
        fs::write(sub.join("inner.txt"), "dirty\n").unwrap();
        let snapshot = Snapshot::take(&sub).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Git);
        fs::write(tmp.path().join("tracked.txt"), "outside\n").unwrap();
        fs::write(tmp.path().join("outside.txt"), "x").unwrap();
        fs::write(sub.join("inner.txt"), "again\n").unwrap();
        fs::write(sub.join("added.txt"), "x").unwrap();
        assert_eq!(listed(&snapshot), ["A added.txt", "M inner.txt"]);
    }

    #[test]
    fn folder_snapshot_sees_add_modify_delete() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::write(dir.join("a.txt"), "aaaa").unwrap();
        fs::write(dir.join("b.txt"), "b").unwrap();
        fs::write(dir.join("same.txt"), "same").unwrap();
        fs::create_dir_all(dir.join("nested/deeper")).unwrap();
        fs::write(dir.join("nested/deeper/n.txt"), "n").unwrap();
        fs::create_dir(dir.join(".git")).unwrap();
        let snapshot = Snapshot::take_files(dir, DEFAULT_WALK_LIMIT).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Files);
        assert_eq!(listed(&snapshot), Vec::<String>::new());

        fs::write(dir.join("a.txt"), "AAAA").unwrap();
        fs::remove_file(dir.join("b.txt")).unwrap();
        fs::write(dir.join("c.txt"), "c").unwrap();
        fs::write(dir.join("same.txt"), "same").unwrap();
        fs::write(dir.join("nested/deeper/n.txt"), "N").unwrap();
        fs::write(dir.join(".git/HEAD"), "ignored").unwrap();
        fs::create_dir(dir.join("empty")).unwrap();
        std::os::unix::fs::symlink("a.txt", dir.join("link")).unwrap();
        assert_eq!(
            listed(&snapshot),
            [
                "M a.txt",
                "D b.txt",
                "A c.txt",
                "A link",
                "M nested/deeper/n.txt"
            ]
        );
    }

    #[test]
    fn folder_snapshot_sees_the_executable_bit() {
        let tmp = tempfile::tempdir().unwrap();
        let script = tmp.path().join("run.sh");
        fs::write(&script, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o644)).unwrap();
        let snapshot = Snapshot::take_files(tmp.path(), DEFAULT_WALK_LIMIT).unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(listed(&snapshot), ["M run.sh"]);
    }

    #[test]
    fn folder_outside_git_gets_a_file_snapshot() {
        let tmp = tempfile::tempdir().unwrap();
        let in_repo = git_command(tmp.path(), &["rev-parse", "--git-dir"])
            .output()
            .unwrap()
            .status
            .success();
        assert!(
            !in_repo,
            "the temp folder {} is inside a git repository; set TMPDIR elsewhere",
            tmp.path().display()
        );
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Files);
        fs::write(tmp.path().join("new.txt"), "x").unwrap();
        assert_eq!(listed(&snapshot), ["A new.txt"]);
    }

    #[test]
    fn walk_past_the_bound_is_too_large() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..5 {
            fs::write(tmp.path().join(format!("f{i}")), "x").unwrap();
        }
        let err = Snapshot::take_files(tmp.path(), 4).unwrap_err();
        assert!(
            matches!(err, WorkspaceError::TooLarge { limit: 4, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("git init"), "{err}");

        // Growing past the bound during the attempt fails the comparison.
        let snapshot = Snapshot::take_files(tmp.path(), 6).unwrap();
        for i in 5..8 {
            fs::write(tmp.path().join(format!("f{i}")), "x").unwrap();
        }
        let err = snapshot.changes().unwrap_err();
        assert!(matches!(err, WorkspaceError::TooLarge { .. }), "{err:?}");
    }

    #[test]
    fn snapshot_of_a_missing_folder_or_a_file_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing");
        let err = Snapshot::take(&missing).unwrap_err();
        assert!(err.to_string().starts_with("failed to read"), "{err}");
        fs::write(&missing, "x").unwrap();
        let err = Snapshot::take(&missing).unwrap_err();
        assert!(
            matches!(err, WorkspaceError::NotADirectory { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn stash_moves_the_changes_away() {
        let tmp = repo();
        let dir = tmp.path();
        // No identity in the repository: stash supplies its own.
        git(dir, &["config", "--unset", "user.name"]);
        git(dir, &["config", "--unset", "user.email"]);
        fs::write(dir.join("tracked.txt"), "agent\n").unwrap();
        fs::write(dir.join("agent-new.txt"), "x").unwrap();
        let described = stash(dir, "agentgate: claude failed").unwrap();
        assert!(described.starts_with("stash@{0}: "), "{described}");
        assert!(
            described.ends_with(": agentgate: claude failed"),
            "{described}"
        );
        assert_eq!(git(dir, &["status", "--porcelain"]), "");
        assert!(!dir.join("agent-new.txt").exists());
        assert!(git(dir, &["stash", "list"]).contains("agentgate: claude failed"));

        let err = stash(dir, "again").unwrap_err();
        assert!(
            matches!(err, WorkspaceError::NothingToStash { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn stash_in_a_subfolder_leaves_the_rest() {
        let tmp = repo();
        let dir = tmp.path();
        fs::write(dir.join("tracked.txt"), "outside\n").unwrap();
        fs::write(dir.join("sub/inner.txt"), "agent\n").unwrap();
        stash(&dir.join("sub"), "agentgate: sub").unwrap();
        assert_eq!(git(dir, &["status", "--porcelain"]), " M tracked.txt\n");
    }

    #[test]
    fn stash_outside_git_fails_clearly() {
        let tmp = tempfile::tempdir().unwrap();
        let err = stash(tmp.path(), "agentgate").unwrap_err();
        assert!(matches!(err, WorkspaceError::NotGit { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("on_dirty: stash needs a git work tree"),
            "{err}"
        );
    }

    #[test]
    fn git_failure_carries_stderr_and_command() {
        let tmp = repo();
        let err = run_git(tmp.path(), &["stash", "drop", "stash@{7}"]).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("failed to run `git stash drop stash@{7}` in "),
            "{message}"
        );
        assert!(matches!(err, WorkspaceError::Git { ref stderr, .. } if !stderr.is_empty()));
    }

    fn change(path: &str) -> Change {
        Change {
            path: PathBuf::from(path),
            kind: ChangeKind::Modified,
        }
    }

    fn outside(dir: &Path, changes: &[Change], allow: &[&str]) -> Vec<String> {
        let allow: Vec<PathBuf> = allow.iter().map(PathBuf::from).collect();
        outside_allowlist(dir, changes, &allow)
            .iter()
            .map(|c| c.path.display().to_string())
            .collect()
    }

    #[test]
    fn allowlist_relative_entries() {
        let dir = Path::new("/work/project");
        let changes = [
            change("src/a.rs"),
            change("docs/x.md"),
            change("srcx/y.rs"),
            change("secrets/key"),
        ];
        assert_eq!(
            outside(dir, &changes, &["src"]),
            ["docs/x.md", "srcx/y.rs", "secrets/key"]
        );
        assert_eq!(outside(dir, &changes, &["./src/", "docs"]).len(), 2);
        assert_eq!(outside(dir, &changes, &["."]), Vec::<String>::new());
        assert_eq!(outside(dir, &changes, &[]).len(), 4);
        // A file allows itself.
        assert_eq!(
            outside(dir, &changes, &["src/a.rs", "docs", "srcx", "secrets/key/"]),
            Vec::<String>::new()
        );
    }

    #[test]
    fn allowlist_resolves_dot_dot() {
        let dir = Path::new("/work/project");
        let changes = [change("src/a.rs"), change("secrets/key")];
        // `src/..` is the folder itself.
        assert_eq!(outside(dir, &changes, &["src/.."]), Vec::<String>::new());
        // Leaving and re-entering the folder is fine.
        assert_eq!(outside(dir, &changes, &["../project/src"]), ["secrets/key"]);
        // Another folder allows nothing here.
        assert_eq!(outside(dir, &changes, &["../other"]).len(), 2);
        assert_eq!(outside(dir, &changes, &["../project-2"]).len(), 2);
        // A change path cannot climb out of an allowed folder.
        let tricky = [
            change("src/../secrets/key"),
            change("../project/secrets/key"),
        ];
        assert_eq!(
            outside(dir, &tricky, &["src"]),
            ["src/../secrets/key", "../project/secrets/key"]
        );
    }

    #[test]
    fn allowlist_absolute_entries() {
        let dir = Path::new("/work/project");
        let changes = [change("src/a.rs"), change("docs/x.md")];
        assert_eq!(
            outside(dir, &changes, &["/work/project/src"]),
            ["docs/x.md"]
        );
        assert_eq!(
            outside(dir, &changes, &["/work/project/./docs/../src"]),
            ["docs/x.md"]
        );
        assert_eq!(outside(dir, &changes, &["/work"]), Vec::<String>::new());
        assert_eq!(outside(dir, &changes, &["/elsewhere/src"]).len(), 2);
        // The folder given with `..` in it.
        assert_eq!(
            outside(
                Path::new("/work/x/../project"),
                &changes,
                &["/work/project/src"]
            ),
            ["docs/x.md"]
        );
    }

    #[test]
    fn allowlist_with_a_relative_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let changes = [change("src/a.rs"), change("docs/x.md")];
        let src = tmp.path().join("src");
        let allow = [src.to_str().unwrap()];
        // `dir` relative to the current directory is made absolute first.
        let relative = pathdiff(tmp.path());
        assert_eq!(outside(&relative, &changes, &allow), ["docs/x.md"]);
    }

    /// `target` relative to the current directory, through `..`.
    fn pathdiff(target: &Path) -> PathBuf {
        let cwd = std::env::current_dir().unwrap();
        let mut relative = PathBuf::new();
        for _ in cwd.components().skip(1) {
            relative.push("..");
        }
        relative.join(target.strip_prefix("/").unwrap())
    }

    #[test]
    fn change_displays_like_git_status() {
        let c = Change {
            path: PathBuf::from("src/a.rs"),
            kind: ChangeKind::Modified,
        };
        assert_eq!(c.to_string(), "M src/a.rs");
        let c = Change {
            path: PathBuf::from("new.txt"),
            kind: ChangeKind::Added,
        };
        assert_eq!(c.to_string(), "A new.txt");
        assert_eq!(ChangeKind::Deleted.letter(), 'D');
    }

    #[test]
    fn status_parsing_handles_renames_and_copies() {
        let raw = b"R  new.txt\0old.txt\0C  copy.txt\0orig.txt\0?? odd name\0 M a\0";
        let parsed: Vec<(String, String)> = parse_status(raw)
            .into_iter()
            .map(|(status, path)| {
                (
                    String::from_utf8(status.to_vec()).unwrap(),
                    path.display().to_string(),
                )
            })
            .collect();
        let expect = [
            ("R ", "new.txt"),
            (" D", "old.txt"),
            ("C ", "copy.txt"),
            ("??", "odd name"),
            (" M", "a"),
        ];
        let expect: Vec<(String, String)> = expect
            .iter()
            .map(|(s, p)| (s.to_string(), p.to_string()))
            .collect();
        assert_eq!(parsed, expect);
    }
}
