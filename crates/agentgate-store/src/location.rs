//! Where the default store lives.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::error::StoreError;

/// The database's file name inside the data folder.
pub const DB_FILE_NAME: &str = "agentgate.db";

/// The default database path, the first that applies:
///
/// 1. `$AGENTGATE_HOME/agentgate.db`;
/// 2. `$XDG_DATA_HOME/agentgate/agentgate.db` (only if `XDG_DATA_HOME` is an
///    absolute path, as the XDG spec requires);
/// 3. `$HOME/.local/share/agentgate/agentgate.db`, on macOS too.
///
/// Empty variables count as unset. The per-run folders go next to the
/// database, in `runs/`.
pub fn default_db_path() -> Result<PathBuf, StoreError> {
    db_path_from(
        std::env::var_os("AGENTGATE_HOME"),
        std::env::var_os("XDG_DATA_HOME"),
        std::env::var_os("HOME"),
    )
}

fn db_path_from(
    agentgate_home: Option<OsString>,
    xdg_data_home: Option<OsString>,
    home: Option<OsString>,
) -> Result<PathBuf, StoreError> {
    let set = |var: Option<OsString>| var.filter(|value| !value.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(agentgate_home) {
        return Ok(dir.join(DB_FILE_NAME));
    }
    if let Some(dir) = set(xdg_data_home).filter(|dir| dir.is_absolute()) {
        return Ok(dir.join("agentgate").join(DB_FILE_NAME));
    }
    if let Some(home) = set(home) {
        return Ok(home
            .join(".local")
            .join("share")
            .join("agentgate")
            .join(DB_FILE_NAME));
    }
    Err(StoreError::NoDataDir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(
        agentgate_home: Option<&str>,
        xdg: Option<&str>,
        home: Option<&str>,
    ) -> Result<PathBuf, StoreError> {
        db_path_from(
            agentgate_home.map(OsString::from),
            xdg.map(OsString::from),
            home.map(OsString::from),
        )
    }

    #[test]
    fn agentgate_home_wins() {
        assert_eq!(
            path(Some("/srv/ag"), Some("/x"), Some("/home/u")).unwrap(),
            PathBuf::from("/srv/ag/agentgate.db")
        );
    }

    #[test]
    fn xdg_data_home_comes_next_when_absolute() {
        assert_eq!(
            path(None, Some("/x/data"), Some("/home/u")).unwrap(),
            PathBuf::from("/x/data/agentgate/agentgate.db")
        );
        assert_eq!(
            path(Some(""), Some("relative"), Some("/home/u")).unwrap(),
            PathBuf::from("/home/u/.local/share/agentgate/agentgate.db")
        );
    }

    #[test]
    fn home_is_the_fallback() {
        assert_eq!(
            path(None, None, Some("/home/u")).unwrap(),
            PathBuf::from("/home/u/.local/share/agentgate/agentgate.db")
        );
    }

    #[test]
    fn nothing_set_is_an_error_that_names_the_variable_to_set() {
        let err = path(None, Some(""), Some("")).unwrap_err();
        assert!(matches!(err, StoreError::NoDataDir));
        assert!(err.to_string().contains("set AGENTGATE_HOME"), "{err}");
    }
}
