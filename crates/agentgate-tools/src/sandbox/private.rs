//! agentgate's own files kept from the tool under Landlock, which only
//! allows: a rule grants a folder and everything beneath it, and nothing
//! can be taken back below. So the read and write paths are rewritten
//! before the ruleset is built:
//!
//! - a path inside a private path (the data folder, the token file, the
//!   config file) is not granted, unless it lies in one of the run's own
//!   folders (a run's workspace is inside the store's folder);
//! - a path that holds a private path is granted entry by entry instead:
//!   each entry of the folder but the private one, and, for an entry that
//!   holds a private path further down, that entry's entries the same way.
//!   `$HOME` with `~/.local/share/agentgate` private becomes every entry of
//!   `$HOME` but `.local`, every entry of `~/.local` but `share`, every
//!   entry of `~/.local/share` but `agentgate`. Symbolic links among the
//!   entries are left out: a path through one resolves to its target,
//!   which is allowed or not on its own, as before; granting the link's
//!   path would grant its target.
//!
//! Paths are compared once resolved (`canonicalize`), as Landlock sees
//! them. What this costs: the folders on the way to a private path lose
//! their own listing (`ls $HOME` is refused where `cat $HOME/notes.txt`
//! works), and an entry made after the tool started in such a folder is
//! not reachable. A folder with more than [`MAX_ENTRIES`] entries on the
//! way is not granted at all (refusing is the safe side) and reported.

use std::path::{Path, PathBuf};

/// The most entries one granted path may be opened into.
pub(crate) const MAX_ENTRIES: usize = 4096;

/// The rules once the private paths are carved out.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Carved {
    /// Granted read (and execute).
    pub(crate) read: Vec<PathBuf>,
    /// Granted read and write.
    pub(crate) write: Vec<PathBuf>,
    /// The private paths that exist, resolved.
    pub(crate) private: Vec<PathBuf>,
    /// Asked for and not granted, with why (for the run's warnings).
    pub(crate) refused: Vec<String>,
    /// Folders opened entry by entry around a private path.
    pub(crate) opened: usize,
}

/// `read` and `write` (paths as the spec gives them), `run` (the run's own
/// folders, read and write) with `private` carved out.
pub(crate) fn carve(
    read: &[PathBuf],
    write: &[PathBuf],
    run: &[PathBuf],
    private: &[PathBuf],
) -> Carved {
    let private: Vec<PathBuf> = private.iter().filter_map(|p| resolved(p)).collect();
    let run: Vec<PathBuf> = run.iter().filter_map(|p| resolved(p)).collect();
    let mut carved = Carved {
        write: run.clone(),
        private,
        ..Carved::default()
    };
    for (paths, writable) in [(read, false), (write, true)] {
        for asked in paths {
            // A path that does not exist is skipped, as the ruleset skips it.
            let Some(path) = resolved(asked) else {
                continue;
            };
            let granted = grant(&path, &run, &mut carved);
            let list = if writable {
                &mut carved.write
            } else {
                &mut carved.read
            };
            list.extend(granted);
        }
    }
    carved
}

/// What granting `path` comes to.
fn grant(path: &Path, run: &[PathBuf], carved: &mut Carved) -> Vec<PathBuf> {
    if run.iter().any(|r| path.starts_with(r)) {
        return vec![path.to_path_buf()];
    }
    if let Some(inside) = carved.private.iter().find(|p| path.starts_with(p)) {
        carved.refused.push(format!(
            "{} is not granted: it is inside agentgate's own {} (kept from every tool)",
            path.display(),
            inside.display()
        ));
        return Vec::new();
    }
    if !carved.private.iter().any(|p| p.starts_with(path)) {
        return vec![path.to_path_buf()];
    }
    let mut granted = Vec::new();
    let mut opened = 0;
    match open_around(path, &carved.private, &mut granted, &mut opened) {
        Ok(()) => {
            carved.opened += opened;
            granted
        }
        Err(why) => {
            carved.refused.push(format!(
                "{} is not granted: it holds agentgate's own files and {why}",
                path.display()
            ));
            Vec::new()
        }
    }
}

/// The entries of `dir` but the private paths, opening each entry that
/// holds one the same way.
fn open_around(
    dir: &Path,
    private: &[PathBuf],
    granted: &mut Vec<PathBuf>,
    opened: &mut usize,
) -> Result<(), String> {
    *opened += 1;
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("its folder {} cannot be listed ({e})", dir.display()))?;
    for entry in entries {
        let entry =
            entry.map_err(|e| format!("its folder {} cannot be listed ({e})", dir.display()))?;
        let path = entry.path();
        let is_link = entry.file_type().map(|t| t.is_symlink()).unwrap_or(true);
        if is_link || private.iter().any(|p| path.starts_with(p)) {
            continue;
        }
        if private.iter().any(|p| p.starts_with(&path)) {
            open_around(&path, private, granted, opened)?;
        } else {
            if granted.len() >= MAX_ENTRIES {
                return Err(format!(
                    "the folders around them have more than {MAX_ENTRIES} entries"
                ));
            }
            granted.push(path);
        }
    }
    Ok(())
}

fn resolved(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let home = std::fs::canonicalize(dir.path()).unwrap().join("home");
        for folder in [
            ".local/share/agentgate/runs/r1/work",
            ".local/bin",
            ".local/share/fonts",
            "code/project",
        ] {
            std::fs::create_dir_all(home.join(folder)).unwrap();
        }
        std::fs::write(home.join("notes.txt"), "n").unwrap();
        std::fs::write(home.join(".local/share/agentgate/token"), "t").unwrap();
        std::os::unix::fs::symlink("/etc", home.join("etc-link")).unwrap();
        (dir, home)
    }

    #[test]
    fn a_folder_that_holds_a_private_one_is_granted_around_it() {
        let (_dir, home) = tree();
        let data = home.join(".local/share/agentgate");
        let work = data.join("runs/r1/work");
        let carved = carve(
            std::slice::from_ref(&home),
            &[],
            std::slice::from_ref(&work),
            std::slice::from_ref(&data),
        );
        let mut read = carved.read.clone();
        read.sort();
        assert_eq!(
            read,
            [
                home.join(".local/bin"),
                home.join(".local/share/fonts"),
                home.join("code"),
                home.join("notes.txt"),
            ],
            "every entry but the data folder's branch, and no symbolic link"
        );
        assert_eq!(carved.write, [work], "the run's own folder stays");
        assert_eq!(carved.opened, 3);
        assert!(carved.refused.is_empty(), "{:?}", carved.refused);
    }

    #[test]
    fn a_path_inside_a_private_one_is_refused_and_said() {
        let (_dir, home) = tree();
        let data = home.join(".local/share/agentgate");
        let carved = carve(
            &[data.join("token"), home.join("code")],
            &[data.join("runs")],
            &[],
            std::slice::from_ref(&data),
        );
        assert_eq!(carved.read, [home.join("code")]);
        assert!(carved.write.is_empty());
        assert_eq!(carved.refused.len(), 2, "{:?}", carved.refused);
        assert!(
            carved.refused[0].contains("inside agentgate's own"),
            "{:?}",
            carved.refused
        );
    }

    #[test]
    fn a_private_file_is_carved_out_of_its_folder() {
        let (_dir, home) = tree();
        let token = home.join(".local/share/agentgate/token");
        let share = home.join(".local/share");
        let carved = carve(
            std::slice::from_ref(&share),
            &[],
            &[],
            std::slice::from_ref(&token),
        );
        let mut read = carved.read.clone();
        read.sort();
        assert_eq!(read, [share.join("agentgate/runs"), share.join("fonts")]);
    }

    #[test]
    fn paths_are_compared_resolved_and_missing_ones_are_skipped() {
        let (_dir, home) = tree();
        let link = home.join("data-link");
        std::os::unix::fs::symlink(home.join(".local/share/agentgate"), &link).unwrap();
        let carved = carve(
            &[link.join("runs"), home.join("missing")],
            &[],
            &[],
            std::slice::from_ref(&link),
        );
        assert!(carved.read.is_empty(), "{:?}", carved.read);
        assert_eq!(carved.refused.len(), 1);
        assert_eq!(
            carved.private,
            [home.join(".local/share/agentgate")],
            "the private path resolved"
        );
    }
}
