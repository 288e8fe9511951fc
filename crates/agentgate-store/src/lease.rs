//! What every backend's claim needs: a lease's end and a new lease token.

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};

use crate::error::StoreError;
use crate::jobs::LeaseToken;

/// `now + lease`; a zero lease or one past the calendar is refused.
pub(crate) fn lease_end(now: Timestamp, lease: Duration) -> Result<Timestamp, StoreError> {
    let invalid = || StoreError::InvalidLease { duration: lease };
    if lease.is_zero() {
        return Err(invalid());
    }
    let lease = SignedDuration::try_from(lease).map_err(|_| invalid())?;
    now.checked_add(lease).map_err(|_| invalid())
}

/// 128 bits from the operating system's random source, in hex.
pub(crate) fn new_lease_token() -> Result<LeaseToken, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Random {
        source: std::io::Error::from(e),
    })?;
    Ok(LeaseToken(
        bytes.iter().map(|b| format!("{b:02x}")).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_ends_its_duration_after_now_and_a_useless_one_is_refused() {
        let now: Timestamp = "2026-05-01T12:00:00Z".parse().unwrap();
        let end = lease_end(now, Duration::from_millis(1500)).unwrap();
        assert_eq!(end, "2026-05-01T12:00:01.5Z".parse().unwrap());
        for useless in [Duration::ZERO, Duration::from_secs(u64::MAX)] {
            let err = lease_end(now, useless).unwrap_err();
            assert!(matches!(err, StoreError::InvalidLease { .. }), "{err}");
        }
    }

    #[test]
    fn lease_tokens_are_128_random_bits_in_hex() {
        let a = new_lease_token().unwrap();
        let b = new_lease_token().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 32);
        assert!(a.expose().bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
