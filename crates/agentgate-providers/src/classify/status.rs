//! HTTP statuses: finding one in an error text, and what one means when no
//! row of a table says more.

use std::sync::LazyLock;

use agentgate_protocol::ErrorKind;
use regex::Regex;

use super::pattern::compile_checked;

/// The words the CLIs put before a status: "unexpected status 401", "last
/// status: 429", `"statusCode":429`, "API Error: 400", "[API Error: 401",
/// "Request rejected (429)", `"code":400` (Google's error body), "HTTP 503".
static STATUS_IN_TEXT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile_checked(
        r#"(?:\bstatus(?:code)?"?\s*[:=]?\s*|\bAPI Error:?\s*|\brejected\s*\(|"code"\s*:\s*|\bHTTP(?:/[\d.]+)?\s+)([45]\d\d)\b"#,
    )
    .ok()
});

/// The first HTTP error status (400-599) written in `text`.
pub fn status_in_text(text: &str) -> Option<u16> {
    let re = STATUS_IN_TEXT.as_ref()?;
    re.captures_iter(text)
        .filter_map(|c| c.get(1)?.as_str().parse::<u16>().ok())
        .find(|s| (400..600).contains(s))
}

/// What an HTTP status means by itself, with the id reported for it.
///
/// 401/403 → `auth`; 402 → `quota`; 408 → `network`; 413 →
/// `context_overflow`; 429 → `rate_limit`; 503/529 → `overloaded`; any other
/// 4xx or 5xx → `provider_error` (a 400 or 404 that no row explains is the
/// CLI's request failing on this provider, not the caller's input).
pub fn kind_for_status(status: u16) -> Option<(ErrorKind, &'static str)> {
    Some(match status {
        401 | 403 => (ErrorKind::Auth, "http.401_403"),
        402 => (ErrorKind::Quota, "http.402"),
        408 => (ErrorKind::Network, "http.408"),
        413 => (ErrorKind::ContextOverflow, "http.413"),
        429 => (ErrorKind::RateLimit, "http.429"),
        503 | 529 => (ErrorKind::Overloaded, "http.503_529"),
        400..=499 => (ErrorKind::ProviderError, "http.4xx"),
        500..=599 => (ErrorKind::ProviderError, "http.5xx"),
        _ => return None,
    })
}

/// The HTTP status an exit code stands for, for a CLI that exits with the
/// status modulo 256.
pub fn status_for_exit(exit_statuses: &[u16], code: i32) -> Option<u16> {
    exit_statuses
        .iter()
        .copied()
        .find(|s| i32::from(*s % 256) == code)
}
