//! Session locks of the PostgreSQL store: a session-level advisory lock,
//! held by a connection of its own.
//!
//! The lock is `pg_try_advisory_lock(SESSION_LOCK_CLASS, key)`: two `int4`
//! keys, the first a constant that marks agentgate's session locks (the
//! two-key form is a key space apart from the one-`bigint` form that
//! migrations and the job queue use), the second a 32-bit hash of the
//! session name ([`session_lock_key`], FNV-1a folded, computed here so every
//! agentgate version and every server version agree on it).
//!
//! Two names with the same hash share one lock: the rarer of the two waits
//! while the other runs (about one pair in 2^32; a false "held", never two
//! holders of one name).
//!
//! A session-level lock belongs to the connection that took it, so the lock
//! takes a connection outside the pool (a pooled one would go back to the
//! pool still holding the lock) and keeps it inside the returned
//! [`SessionLock`]. Dropping the lock unlocks and closes that connection
//! (waiting, bounded, for the unlock, so a try right after the drop finds
//! the session free); if the holder dies, the server ends its connection and
//! the lock with it. The connection's I/O runs on the store's runtime: a
//! lock lives as long as the [`PgStore`] it came from, and a connection lost
//! to the network loses its lock.

use std::time::Duration;

use deadpool_postgres::ClientWrapper;
use deadpool_postgres::Manager;

use super::{PgError, PgStore};
use crate::error::StoreError;
use crate::session_lock::{SessionLock, fnv1a};

/// The first key of every agentgate session lock (`agse` in ASCII).
pub(super) const SESSION_LOCK_CLASS: i32 = 0x6167_7365;

/// How long dropping a lock waits for the server to confirm the unlock.
const UNLOCK_WAIT: Duration = Duration::from_secs(5);

/// The second key of session `name`'s advisory lock.
pub(super) fn session_lock_key(name: &str) -> i32 {
    let h = fnv1a(name.as_bytes());
    // Fold the 64 bits to 32; the cast keeps the bits (a key may be negative).
    ((h >> 32) ^ h) as u32 as i32
}

/// Takes session `name`'s lock if free; `None` if another connection holds
/// it.
pub(super) fn try_lock(store: &PgStore, name: &str) -> Result<Option<SessionLock>, StoreError> {
    let key = session_lock_key(name);
    let pool = store.pool().clone();
    let client = store.block("lock the session", async move {
        let manager: &Manager = pool.manager();
        let client = deadpool::managed::Manager::create(manager)
            .await
            .map_err(|e| PgError::Pool(deadpool_postgres::PoolError::Backend(e)))?;
        let row = client
            .query_one(
                "SELECT pg_try_advisory_lock($1, $2)",
                &[&SESSION_LOCK_CLASS, &key],
            )
            .await?;
        let locked: bool = row.try_get(0)?;
        Ok(locked.then_some(client))
    })?;
    Ok(client.map(|client| {
        SessionLock::new(
            name,
            HeldConnection {
                client: Some(client),
                handle: store.handle().clone(),
                key,
            },
        )
    }))
}

/// The connection that holds a session's advisory lock.
struct HeldConnection {
    client: Option<ClientWrapper>,
    handle: tokio::runtime::Handle,
    key: i32,
}

impl Drop for HeldConnection {
    fn drop(&mut self) {
        let Some(client) = self.client.take() else {
            return;
        };
        let key = self.key;
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        // If the runtime is gone, so is the connection, and the lock; the
        // task's handle is not needed (the channel says when it is done).
        drop(self.handle.spawn(async move {
            // Best effort: closing the connection below releases the lock
            // anyway; the unlock only makes the release finish before the
            // drop returns.
            let _ = client
                .execute(
                    "SELECT pg_advisory_unlock($1, $2)",
                    &[&SESSION_LOCK_CLASS, &key],
                )
                .await;
            drop(client);
            let _ = tx.send(());
        }));
        let _ = rx.recv_timeout(UNLOCK_WAIT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_keys_are_stable_and_spread() {
        // Fixed forever: agentgate versions sharing a database must agree.
        assert_eq!(session_lock_key("nightly"), session_lock_key("nightly"));
        assert_ne!(session_lock_key("nightly"), session_lock_key("nightly/2"));
        let h = fnv1a(b"nightly");
        assert_eq!(session_lock_key("nightly"), ((h >> 32) ^ h) as u32 as i32);
    }
}
