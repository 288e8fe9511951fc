//! The changes a comparison reports.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

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
    /// `added`, `modified` or `deleted`.
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
        }
    }

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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(ChangeKind::Deleted.as_str(), "deleted");
    }
}
