//! agentgate's own files, which no tool may read whatever its manifest
//! declares: they hold what drives agentgate itself (the store, the API
//! token, the config with its agents' variables). The sandbox keeps them
//! out of the Landlock rules (`sandbox/private.rs`); `copy_in` refuses
//! them.

use std::path::{Path, PathBuf};

use agentgate_store::StoreLocation;

/// The files and folders the caller knows of, made absolute: the default
/// data folder (`$AGENTGATE_HOME`, else `$XDG_DATA_HOME/agentgate`, else
/// `~/.local/share/agentgate`: the default store, the default token file,
/// the audit log, the warm sessions' sockets), a SQLite store elsewhere
/// (its database file and the files SQLite keeps next to it; its whole
/// folder when the file is `agentgate.db`, the name agentgate gives it in a
/// data folder, which is then that folder: an `agentgate mcp` started by an
/// agent's CLI knows its store, not the server's `AGENTGATE_HOME`), the
/// config file, and token files given elsewhere (`--token-file`). The run
/// adds the folder of every run of the store it records in.
pub fn private_paths(
    config_file: Option<&Path>,
    store: Option<&StoreLocation>,
    token_files: &[PathBuf],
) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = Vec::new();
    if let Some(dir) = agentgate_store::default_db_path()
        .ok()
        .as_deref()
        .and_then(Path::parent)
    {
        paths.push(dir.to_path_buf());
    }
    if let Some(StoreLocation::Sqlite(db)) = store {
        if db
            .file_name()
            .is_some_and(|n| n == agentgate_store::DB_FILE_NAME)
            && let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty())
        {
            paths.push(dir.to_path_buf());
        }
        paths.push(db.clone());
        for suffix in ["-wal", "-shm", "-journal"] {
            let mut sibling = db.clone().into_os_string();
            sibling.push(suffix);
            paths.push(PathBuf::from(sibling));
        }
    }
    paths.extend(config_file.map(Path::to_path_buf));
    paths.extend(token_files.iter().cloned());
    let mut absolute: Vec<PathBuf> = Vec::new();
    for path in paths {
        let path = std::path::absolute(&path).unwrap_or(path);
        if !absolute.contains(&path) {
            absolute.push(path);
        }
    }
    absolute
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_store_the_config_and_token_files_are_private() {
        let paths = private_paths(
            Some(Path::new("/srv/agentgate.yaml")),
            Some(&StoreLocation::Sqlite(PathBuf::from("/srv/data/runs.db"))),
            &[PathBuf::from("/etc/agentgate/token")],
        );
        for expected in [
            "/srv/agentgate.yaml",
            "/srv/data/runs.db",
            "/srv/data/runs.db-wal",
            "/srv/data/runs.db-shm",
            "/etc/agentgate/token",
        ] {
            assert!(
                paths.contains(&PathBuf::from(expected)),
                "{expected}: {paths:?}"
            );
        }
        assert!(paths.iter().all(|p| p.is_absolute()), "{paths:?}");
        assert!(!paths.contains(&PathBuf::from("/srv/data")), "{paths:?}");
        // A store named as agentgate names it in a data folder: the folder.
        let paths = private_paths(
            None,
            Some(&StoreLocation::Sqlite(PathBuf::from(
                "/srv/home/agentgate.db",
            ))),
            &[],
        );
        assert!(paths.contains(&PathBuf::from("/srv/home")), "{paths:?}");
    }
}
