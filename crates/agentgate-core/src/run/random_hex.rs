//! Random names and keys of an attempt (the gateway's stub key, a
//! container's name, the sandbox's file names): `n` bytes from the
//! system's randomness as lowercase hex.

/// `n` random bytes as `2 * n` lowercase hex digits; `what` names the use
/// in the error.
pub(super) fn random_hex(n: usize, what: &str) -> Result<String, String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random bytes for {what}: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_of_the_length_asked_and_fresh_each_time() {
        let a = random_hex(12, "a test").unwrap();
        let b = random_hex(12, "a test").unwrap();
        assert_eq!(a.len(), 24);
        assert!(
            a.chars()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
        );
        assert_ne!(a, b);
    }
}
