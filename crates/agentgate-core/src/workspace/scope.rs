//! The edit scope: which changes fall outside an allowlist of paths.

use std::fs;
use std::path::{Component, Path, PathBuf};

use super::change::Change;

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

#[cfg(test)]
mod tests {
    use super::super::change::ChangeKind;
    use super::*;

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
}
