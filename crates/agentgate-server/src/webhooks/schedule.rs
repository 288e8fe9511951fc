//! When a failed delivery is tried again: after each failed try, the
//! next wait of [`SCHEDULE`] (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h,
//! 4 h, 6 h, 8 h: eleven tries over about 22 hours), each stretched by a
//! random 0 to 20 % (jitter: receivers that come back after an outage are
//! not hit by every sender at once). After the last, the delivery is
//! `failed`. Times are the executor's clock (a file clock in tests, which
//! move it instead of waiting).

use std::time::Duration;

use agentgate_store::{AfterAttempt, DeliveryState};
use jiff::{SignedDuration, Timestamp};

/// The waits after the first, second, ... failed try.
pub const SCHEDULE: [Duration; 10] = [
    Duration::from_secs(5),
    Duration::from_secs(30),
    Duration::from_secs(2 * 60),
    Duration::from_secs(10 * 60),
    Duration::from_secs(30 * 60),
    Duration::from_secs(60 * 60),
    Duration::from_secs(2 * 60 * 60),
    Duration::from_secs(4 * 60 * 60),
    Duration::from_secs(6 * 60 * 60),
    Duration::from_secs(8 * 60 * 60),
];

/// What follows the `tries`-th failed try (from 1) at `now`; `jitter` in
/// 0..=1 stretches the wait by up to 20 %.
pub fn after_failure(tries: u32, now: Timestamp, jitter: f64) -> AfterAttempt {
    let index = usize::try_from(tries.saturating_sub(1)).unwrap_or(usize::MAX);
    let Some(wait) = SCHEDULE.get(index) else {
        return AfterAttempt::Done(DeliveryState::Failed);
    };
    let wait = *wait + wait.mul_f64(jitter.clamp(0.0, 1.0) / 5.0);
    let wait = SignedDuration::try_from(wait).unwrap_or(SignedDuration::MAX);
    AfterAttempt::RetryAt(now.checked_add(wait).unwrap_or(Timestamp::MAX))
}

/// A number in 0..=1 from the process's random hasher seed and the clock:
/// jitter needs no better randomness.
pub fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Timestamp::now().as_nanosecond().unsigned_abs());
    (h.finish() % 10_001) as f64 / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_follow_the_schedule_with_bounded_jitter_then_fail() {
        let now: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let at = |tries, jitter| match after_failure(tries, now, jitter) {
            AfterAttempt::RetryAt(at) => at.duration_since(now).as_secs(),
            other => panic!("{other:?}"),
        };
        assert_eq!(at(1, 0.0), 5);
        assert_eq!(at(1, 1.0), 6);
        assert_eq!(at(2, 0.0), 30);
        assert_eq!(at(10, 0.0), 8 * 3600);
        assert_eq!(
            after_failure(11, now, 0.5),
            AfterAttempt::Done(DeliveryState::Failed)
        );
        let total: Duration = SCHEDULE.iter().sum();
        assert!(total < Duration::from_secs(24 * 3600) && total > Duration::from_secs(20 * 3600));
    }
}
