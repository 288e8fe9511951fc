//! The lock of a logical session: one run at a time per `--session` name.
//!
//! Two runs with the same session name at once would both find no native
//! session and create two, or both read the turn count and store it plus
//! one. A run therefore takes the session's lock before it looks the
//! session up and keeps it until it has stored the session after its last
//! attempt ([`crate::RunStore::try_lock_session`]).
//!
//! The lock is per name, whatever the provider: a failover chain reads and
//! writes one mapping per provider under the one name. A backend's lock must
//! die with the process that holds it (SQLite: an `flock` on a file in the
//! store's `locks/` folder; PostgreSQL: a session-level advisory lock on the
//! holder's connection), so a crashed run cannot leave a session locked.

use std::fmt;

/// A held session lock; dropping it releases the lock.
pub struct SessionLock {
    name: String,
    _held: Box<dyn Send + Sync>,
}

impl SessionLock {
    /// A lock on session `name`, held as long as `held` lives: a backend
    /// wraps whatever releases its lock when dropped (an open locked file, a
    /// connection holding an advisory lock).
    pub fn new(name: impl Into<String>, held: impl Send + Sync + 'static) -> SessionLock {
        SessionLock {
            name: name.into(),
            _held: Box::new(held),
        }
    }

    /// The session name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Debug for SessionLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionLock")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// A file name for session `name`'s lock: the name with every byte other
/// than ASCII letters, digits, `-` and `_` written `%XX`, prefixed
/// `session-`; a long name is cut and followed by a hash of the whole, so
/// the file name stays under the usual 255-byte limit.
pub fn lock_file_name(name: &str) -> String {
    const KEEP: usize = 160;
    let mut encoded = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            encoded.push(char::from(b));
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    if encoded.len() > KEEP {
        let mut cut = KEEP;
        while !encoded.is_char_boundary(cut) {
            cut -= 1;
        }
        encoded = format!("{}~{:016x}", &encoded[..cut], fnv1a(name.as_bytes()));
    }
    format!("session-{encoded}.lock")
}

/// FNV-1a, 64 bits: stable across builds and versions, unlike std's hasher
/// (two agentgate versions must agree on the file, or the PostgreSQL
/// advisory lock key, of a name).
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lock_file_names_are_safe_distinct_and_bounded() {
        assert_eq!(lock_file_name("nightly"), "session-nightly.lock");
        assert_eq!(lock_file_name("a/b"), "session-a%2Fb.lock");
        assert_eq!(lock_file_name(".."), "session-%2E%2E.lock");
        assert_ne!(lock_file_name("a b"), lock_file_name("a_b"));
        let long_a = "é".repeat(300);
        let long_b = format!("{}x", "é".repeat(300));
        assert!(lock_file_name(&long_a).len() < 255);
        assert_ne!(lock_file_name(&long_a), lock_file_name(&long_b));
    }
}
