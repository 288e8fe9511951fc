//! Requests without a valid token, counted per peer: after
//! [`FAILURES_MAX`] in one [`WINDOW`] the peer gets `429` for the rest of
//! the window, whatever it sends, so guessing the token cannot go on and a
//! flood of bad requests costs one table lookup each.
//!
//! A peer is its IP address; an IPv6 address counts by its /64 (one host
//! gets a whole /64 and can pick any address in it). The table keeps at
//! most [`PEERS_MAX`] peers: when it is full, peers whose window is over
//! go first, then the one whose window started longest ago. So memory is
//! bounded whatever the number of peers; a peer pushed out starts afresh.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Requests without a valid token a peer may make in one window.
pub const FAILURES_MAX: u32 = 30;
/// The window the failures are counted in.
pub const WINDOW: Duration = Duration::from_secs(60);
/// The most peers the table holds.
pub const PEERS_MAX: usize = 4096;

/// One peer's failures in its current window.
#[derive(Debug, Clone, Copy)]
struct Window {
    start: Instant,
    failures: u32,
}

/// The failures of every peer seen lately.
#[derive(Debug)]
pub(crate) struct AuthFailures {
    peers: Mutex<HashMap<IpAddr, Window>>,
    max: u32,
    window: Duration,
    capacity: usize,
}

impl Default for AuthFailures {
    fn default() -> Self {
        AuthFailures::new(max_from_env(), WINDOW, PEERS_MAX)
    }
}

/// Names another [`FAILURES_MAX`] (read at start): for the API
/// document's fuzz test, whose requests without a token (the fuzzer's own
/// checks that a route needs one) would otherwise lock its address out.
pub const FAILURES_MAX_ENV: &str = "AGENTGATE_TEST_AUTH_FAILURES_MAX";

/// [`FAILURES_MAX`], or [`FAILURES_MAX_ENV`]'s whole number when it is set
/// (another value is ignored, with a warning).
fn max_from_env() -> u32 {
    let Some(text) = std::env::var_os(FAILURES_MAX_ENV) else {
        return FAILURES_MAX;
    };
    match text.to_str().and_then(|t| t.trim().parse::<u32>().ok()) {
        Some(max) => max,
        None => {
            tracing::warn!("{FAILURES_MAX_ENV} is not a whole number: ignored");
            FAILURES_MAX
        }
    }
}

impl AuthFailures {
    fn new(max: u32, window: Duration, capacity: usize) -> AuthFailures {
        AuthFailures {
            peers: Mutex::new(HashMap::new()),
            max,
            window,
            capacity: capacity.max(1),
        }
    }

    /// How long `peer` is still refused, if it is.
    pub(crate) fn refused_for(&self, peer: IpAddr, now: Instant) -> Option<Duration> {
        let peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        let w = peers.get(&key(peer))?;
        let end = w.start + self.window;
        (w.failures >= self.max && end > now).then(|| end - now)
    }

    /// Count a failure of `peer`; `true` when it is the one that makes the
    /// peer refused (to log that once).
    pub(crate) fn failed(&self, peer: IpAddr, now: Instant) -> bool {
        let mut peers = self.peers.lock().unwrap_or_else(PoisonError::into_inner);
        let key = key(peer);
        if !peers.contains_key(&key) && peers.len() >= self.capacity {
            self.make_room(&mut peers, now);
        }
        let w = peers.entry(key).or_insert(Window {
            start: now,
            failures: 0,
        });
        if now.saturating_duration_since(w.start) >= self.window {
            *w = Window {
                start: now,
                failures: 0,
            };
        }
        w.failures = w.failures.saturating_add(1);
        w.failures == self.max
    }

    /// Drop the peers whose window is over; if none is, the oldest.
    fn make_room(&self, peers: &mut HashMap<IpAddr, Window>, now: Instant) {
        peers.retain(|_, w| now.saturating_duration_since(w.start) < self.window);
        if peers.len() >= self.capacity
            && let Some(oldest) = peers.iter().min_by_key(|(_, w)| w.start).map(|(k, _)| *k)
        {
            peers.remove(&oldest);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.peers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

/// The address a peer is counted by: IPv4 as it is (a v4-mapped IPv6
/// address is its IPv4), IPv6 by its /64.
fn key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => {
            let bits = u128::from(v6) & !((1u128 << 64) - 1);
            IpAddr::V6(bits.into())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn a_peer_is_refused_after_the_failures_until_the_window_ends() {
        let table = AuthFailures::new(3, Duration::from_secs(60), 16);
        let t0 = Instant::now();
        let peer = ip("10.0.0.1");
        assert!(!table.failed(peer, t0));
        assert!(!table.failed(peer, t0));
        assert_eq!(table.refused_for(peer, t0), None);
        assert!(table.failed(peer, t0), "the third failure is the one");
        assert!(!table.failed(peer, t0), "it is told once");
        let later = t0 + Duration::from_secs(20);
        assert_eq!(
            table.refused_for(peer, later),
            Some(Duration::from_secs(40))
        );
        assert_eq!(table.refused_for(ip("10.0.0.2"), later), None);
        let after = t0 + Duration::from_secs(60);
        assert_eq!(table.refused_for(peer, after), None);
        assert!(!table.failed(peer, after), "a new window counts afresh");
    }

    #[test]
    fn ipv6_counts_by_its_64_and_mapped_ipv4_as_ipv4() {
        let table = AuthFailures::new(2, Duration::from_secs(60), 16);
        let t0 = Instant::now();
        table.failed(ip("2001:db8:1:2::1"), t0);
        table.failed(ip("2001:db8:1:2:ffff::9"), t0);
        assert!(table.refused_for(ip("2001:db8:1:2::77"), t0).is_some());
        assert!(table.refused_for(ip("2001:db8:1:3::1"), t0).is_none());
        table.failed(ip("::ffff:10.1.1.1"), t0);
        table.failed(ip("10.1.1.1"), t0);
        assert!(table.refused_for(ip("10.1.1.1"), t0).is_some());
    }

    #[test]
    fn the_table_never_holds_more_than_its_capacity() {
        let table = AuthFailures::new(2, Duration::from_secs(60), 4);
        let t0 = Instant::now();
        for i in 0..100u32 {
            let at = t0 + Duration::from_millis(u64::from(i));
            table.failed(IpAddr::V4(i.into()), at);
            assert!(table.len() <= 4);
        }
        // The newest peers are the ones kept.
        let now = t0 + Duration::from_millis(100);
        table.failed(IpAddr::V4(99u32.into()), now);
        assert!(table.refused_for(IpAddr::V4(99u32.into()), now).is_some());
    }
}
