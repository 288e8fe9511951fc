//! Which store a command uses: `--store`, else `AGENTGATE_STORE`, else the
//! config's `store:`, else the SQLite file at the default place.
//!
//! Whoever chooses or opens a store may then start CLIs: a PostgreSQL URL
//! (and its password) is held by `agentgate_supervise::own_env`, so that no
//! child's environment gets it.

use std::sync::Arc;

use crate::{StoreBackend, StoreError, StoreLocation};

/// The environment variable that names the store.
pub const STORE_ENV: &str = "AGENTGATE_STORE";

/// How many connections a command's PostgreSQL store keeps: one run uses
/// them one at a time (and a writer for its events); a server or worker
/// passes its own number.
pub const COMMAND_POOL_SIZE: usize = 2;

/// The store named by `flag` (`--store`) or else `$AGENTGATE_STORE`
/// (empty counts as unset); `None` when neither names one.
pub fn given(flag: Option<&str>) -> Result<Option<StoreLocation>, StoreError> {
    let env = std::env::var(STORE_ENV).ok();
    given_from(flag, env.as_deref())
}

fn given_from(flag: Option<&str>, env: Option<&str>) -> Result<Option<StoreLocation>, StoreError> {
    match flag.or(env.filter(|v| !v.trim().is_empty())) {
        Some(text) => StoreLocation::parse(text).map(Some),
        None => Ok(None),
    }
}

/// The store to use: `given` (see [`given`]), else `configured` (the
/// config's `store:`), else the default SQLite file.
pub fn choose(
    given: Option<StoreLocation>,
    configured: Option<&StoreLocation>,
) -> Result<StoreLocation, StoreError> {
    let location = match given.or_else(|| configured.cloned()) {
        Some(location) => location,
        None => StoreLocation::default_sqlite()?,
    };
    // Whoever chose it may start CLIs: its URL never reaches them.
    hold(&location);
    Ok(location)
}

/// Opens `location` with [`COMMAND_POOL_SIZE`] connections.
pub fn open(location: &StoreLocation) -> Result<Arc<dyn StoreBackend>, StoreError> {
    hold(location);
    crate::open_store(location, COMMAND_POOL_SIZE)
}

/// Holds `location` when it can unlock the store: a PostgreSQL URL and the
/// password in it (see `agentgate_supervise::own_env`).
fn hold(location: &StoreLocation) {
    if let StoreLocation::Postgres(url) = location {
        agentgate_supervise::own_env::hold_database_url(url);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn the_flag_wins_over_the_environment_and_both_over_the_config() {
        let flag = given_from(Some("/a.db"), Some("postgres://h/db")).unwrap();
        assert_eq!(flag, Some(StoreLocation::Sqlite(PathBuf::from("/a.db"))));
        let env = given_from(None, Some("postgres://h/db")).unwrap();
        assert_eq!(env, Some(StoreLocation::Postgres("postgres://h/db".into())));
        assert_eq!(given_from(None, Some("  ")).unwrap(), None);
        let configured = StoreLocation::Sqlite(PathBuf::from("/c.db"));
        assert_eq!(
            choose(env.clone(), Some(&configured)).unwrap(),
            StoreLocation::Postgres("postgres://h/db".into())
        );
        assert_eq!(choose(None, Some(&configured)).unwrap(), configured);
        assert!(given_from(Some("redis://h"), None).is_err());
    }
}
