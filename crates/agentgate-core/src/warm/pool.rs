//! The warm processes a holder keeps, by session name: at most
//! `max_per_provider` per provider (the least recently used one is ended
//! first when another starts), each ended once idle for its `idle`
//! duration. A process is taken out for a turn (no other turn of the
//! session can reach it meanwhile) and put back after it, or dropped when
//! it died. Generic over what is held, so its rules are tested without
//! processes.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// One held process.
#[derive(Debug)]
struct Held<T> {
    provider: String,
    value: T,
    last_used: Instant,
    idle: Duration,
}

/// The warm processes of one holder (see the module notes).
#[derive(Debug)]
pub struct Pool<T> {
    held: HashMap<String, Held<T>>,
    /// Sessions whose process is out for a turn, with their provider.
    out: HashMap<String, String>,
    max_per_provider: usize,
}

impl<T> Pool<T> {
    /// An empty pool keeping at most `max_per_provider` processes of each
    /// provider (at least one).
    pub fn new(max_per_provider: usize) -> Self {
        Pool {
            held: HashMap::new(),
            out: HashMap::new(),
            max_per_provider: max_per_provider.max(1),
        }
    }

    /// The process of `session`, taken out for a turn; `None` when the
    /// pool holds none (start one) or it is out already (a turn of the
    /// session runs).
    pub fn take(&mut self, session: &str) -> Option<T> {
        let held = self.held.remove(session)?;
        self.out.insert(session.to_owned(), held.provider);
        Some(held.value)
    }

    /// Whether a turn of `session` runs now.
    pub fn is_out(&self, session: &str) -> bool {
        self.out.contains_key(session)
    }

    /// Give back (or add) the process of `session` after a turn, used
    /// `now`, to be ended once idle for `idle`. Returns the processes that
    /// must end to keep `provider` within its limit, least recently used
    /// first (a process out for a turn counts but is never chosen).
    pub fn put(
        &mut self,
        session: &str,
        provider: &str,
        value: T,
        now: Instant,
        idle: Duration,
    ) -> Vec<(String, T)> {
        self.out.remove(session);
        self.held.insert(
            session.to_owned(),
            Held {
                provider: provider.to_owned(),
                value,
                last_used: now,
                idle,
            },
        );
        let mut evicted = Vec::new();
        loop {
            let busy = self.out.values().filter(|p| *p == provider).count();
            let mut mine: Vec<(&String, Instant)> = self
                .held
                .iter()
                .filter(|(_, h)| h.provider == provider)
                .map(|(k, h)| (k, h.last_used))
                .collect();
            if mine.len() + busy <= self.max_per_provider {
                break;
            }
            mine.sort_by_key(|(k, t)| (*t, (*k).clone()));
            let Some(oldest) = mine
                .iter()
                .map(|(k, _)| (*k).clone())
                .find(|k| k != session)
            else {
                break;
            };
            if let Some(h) = self.held.remove(&oldest) {
                evicted.push((oldest, h.value));
            }
        }
        evicted
    }

    /// Forget the session whose process is out (it died, or the turn's
    /// holder ends it).
    pub fn forget(&mut self, session: &str) {
        self.out.remove(session);
    }

    /// The processes idle past their time at `now`, removed from the pool.
    pub fn idle(&mut self, now: Instant) -> Vec<(String, T)> {
        let due: Vec<String> = self
            .held
            .iter()
            .filter(|(_, h)| now.saturating_duration_since(h.last_used) >= h.idle)
            .map(|(k, _)| k.clone())
            .collect();
        due.into_iter()
            .filter_map(|k| self.held.remove(&k).map(|h| (k, h.value)))
            .collect()
    }

    /// Count `session` as out for a turn before it has a process (its
    /// first one is starting).
    pub fn reserve(&mut self, session: &str, provider: &str) {
        self.out.insert(session.to_owned(), provider.to_owned());
    }

    /// The sessions held or out for a turn, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.held.keys().chain(self.out.keys()).cloned().collect();
        names.sort();
        names.dedup();
        names
    }

    /// When the next held process falls idle, if any.
    pub fn next_idle(&self) -> Option<Instant> {
        self.held.values().map(|h| h.last_used + h.idle).min()
    }

    /// Every held process, removed (the holder stops).
    pub fn drain(&mut self) -> Vec<(String, T)> {
        self.out.clear();
        self.held.drain().map(|(k, h)| (k, h.value)).collect()
    }

    /// How many processes are held (not counting those out for a turn).
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Duration = Duration::from_secs(60);

    #[test]
    fn a_session_is_taken_for_a_turn_and_put_back() {
        let mut pool = Pool::new(2);
        let t0 = Instant::now();
        assert!(pool.put("a", "claude", 1, t0, IDLE).is_empty());
        assert_eq!(pool.take("a"), Some(1));
        assert!(pool.is_out("a"));
        assert_eq!(pool.take("a"), None, "out for its turn");
        assert_eq!(pool.names(), ["a"]);
        assert!(pool.put("a", "claude", 1, t0, IDLE).is_empty());
        assert!(!pool.is_out("a"));
        assert_eq!(pool.len(), 1);
    }

    #[test]
    fn the_least_recently_used_of_a_provider_ends_first() {
        let mut pool = Pool::new(2);
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert!(pool.put("a", "claude", 1, at(1), IDLE).is_empty());
        assert!(pool.put("b", "claude", 2, at(2), IDLE).is_empty());
        assert!(
            pool.put("x", "codex", 9, at(3), IDLE).is_empty(),
            "another provider"
        );
        // `a` is used again: `b` is now the least recent.
        let a = pool.take("a").unwrap();
        assert!(pool.put("a", "claude", a, at(4), IDLE).is_empty());
        let evicted = pool.put("c", "claude", 3, at(5), IDLE);
        assert_eq!(evicted, [("b".to_owned(), 2)]);
        // A process out for a turn counts and is never chosen.
        assert_eq!(pool.take("a"), Some(1));
        let evicted = pool.put("d", "claude", 4, at(6), IDLE);
        assert_eq!(evicted, [("c".to_owned(), 3)]);
        assert!(pool.is_out("a"));
        pool.forget("a");
        assert_eq!(pool.len(), 2, "d and x");
    }

    #[test]
    fn idle_processes_are_removed_at_their_time() {
        let mut pool = Pool::new(4);
        let t0 = Instant::now();
        pool.put("short", "qwen", 1, t0, Duration::from_secs(5));
        pool.put("long", "qwen", 2, t0, Duration::from_secs(50));
        assert_eq!(pool.next_idle(), Some(t0 + Duration::from_secs(5)));
        assert!(pool.idle(t0 + Duration::from_secs(4)).is_empty());
        assert_eq!(
            pool.idle(t0 + Duration::from_secs(5)),
            [("short".to_owned(), 1)]
        );
        assert_eq!(pool.next_idle(), Some(t0 + Duration::from_secs(50)));
        assert_eq!(pool.drain(), [("long".to_owned(), 2)]);
        assert!(pool.is_empty());
    }
}
