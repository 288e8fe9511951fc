//! Reading fields of a CLI's JSON records, as every decoder needs them.

use serde_json::{Map, Value};

/// A string field of a JSON object.
pub fn str_of<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}

/// A non-negative count, also when the CLI prints it as a float
/// (`retry_delay_ms: 1177.74`).
pub fn u64_of(v: Option<&Value>) -> Option<u64> {
    let v = v?;
    if let Some(n) = v.as_u64() {
        return Some(n);
    }
    let f = v.as_f64()?;
    // `as` saturates for floats out of range, which is what a count wants.
    (f.is_finite() && f >= 0.0).then(|| f.round() as u64)
}

/// [`u64_of`], when it fits a `u32`.
pub fn u32_of(v: Option<&Value>) -> Option<u32> {
    u64_of(v).and_then(|n| u32::try_from(n).ok())
}

/// [`u64_of`], when it fits a `u16` (an HTTP status).
pub fn u16_of(v: Option<&Value>) -> Option<u16> {
    u64_of(v).and_then(|n| u16::try_from(n).ok())
}

/// An HTTP status written after `status` in a text (`status: 429`,
/// `status code 503`, `status=500`).
pub fn http_status_in(text: &str) -> Option<u16> {
    text.match_indices("status").find_map(|(at, word)| {
        let rest = text[at + word.len()..].trim_start_matches([':', ' ', '=']);
        let rest = rest
            .strip_prefix("code")
            .map_or(rest, |r| r.trim_start_matches([':', ' ', '=']));
        three_digit_status(rest)
    })
}

/// A leading HTTP status (100–599) not followed by another digit.
fn three_digit_status(s: &str) -> Option<u16> {
    let digits = s.get(..3)?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if s.as_bytes().get(3).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    digits.parse().ok().filter(|n| (100..600).contains(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_status_is_found_in_codex_texts() {
        assert_eq!(
            http_status_in("unexpected status 401 Unauthorized: Incorrect API key"),
            Some(401)
        );
        assert_eq!(
            http_status_in("exceeded retry limit, last status: 429 Too Many Requests"),
            Some(429)
        );
        assert_eq!(http_status_in("status code 503"), Some(503));
        assert_eq!(
            http_status_in("stream disconnected before completion"),
            None
        );
        assert_eq!(http_status_in("status 4290"), None);
        assert_eq!(http_status_in("status 42"), None);
        assert_eq!(http_status_in("status é"), None);
    }
}
