//! `retry_on`: which failures let a chain move on to its next agent.
//! (The config file's spelling of it is read in `config/retry.rs`.)
//!
//! Items are error types (the envelope's `error_type` names, such as
//! `quota` or `rate_limit`, or a legacy name from [`LEGACY_NAMES`]) or
//! `{pattern: REGEX}`, matched against the error message. Only recoverable
//! errors are ever admitted: naming a kind that is not recoverable (`auth`,
//! `invalid_input`, ...) is a config error, because a chain never moves on
//! after those.

use std::fmt;

use agentgate_protocol::{ErrorInfo, ErrorKind};
use regex::Regex;

/// Names users migrate with, and the kind each stands for.
pub const LEGACY_NAMES: [(&str, ErrorKind); 14] = [
    ("allowance_exceeded", ErrorKind::Quota),
    ("quota_exceeded", ErrorKind::Quota),
    ("usage_limit", ErrorKind::Quota),
    ("insufficient_quota", ErrorKind::Quota),
    ("rate_limited", ErrorKind::RateLimit),
    ("rate_limit_exceeded", ErrorKind::RateLimit),
    ("too_many_requests", ErrorKind::RateLimit),
    ("overloaded_error", ErrorKind::Overloaded),
    ("timed_out", ErrorKind::Timeout),
    ("server_error", ErrorKind::ProviderError),
    ("api_error", ErrorKind::ProviderError),
    ("network_error", ErrorKind::Network),
    ("connection_error", ErrorKind::Network),
    ("model_not_found", ErrorKind::InvalidModel),
];

/// The failures a chain moves on after.
#[derive(Debug, Clone, Default)]
pub struct RetryOn {
    /// Error types admitted.
    pub kinds: Vec<ErrorKind>,
    /// Patterns matched against the error message.
    pub patterns: Vec<RetryPattern>,
}

impl RetryOn {
    /// Whether `e` lets the chain move on: it is recoverable, and its kind
    /// is listed or a pattern matches its message.
    pub fn admits(&self, e: &ErrorInfo) -> bool {
        e.recoverable
            && (self.kinds.contains(&e.kind)
                || self.patterns.iter().any(|p| p.regex.is_match(&e.message)))
    }

    /// The items as written in the file's vocabulary: kind names, then
    /// `pattern: ...` / `substring: ...`.
    pub fn describe(&self) -> Vec<String> {
        self.kinds
            .iter()
            .map(|k| k.as_str().to_owned())
            .chain(self.patterns.iter().map(ToString::to_string))
            .collect()
    }
}

/// `admits` for an optional `retry_on`: an absent one admits every
/// recoverable error (an empty list admits none).
pub fn retry_admits(retry_on: Option<&RetryOn>, e: &ErrorInfo) -> bool {
    match retry_on {
        Some(r) => r.admits(e),
        None => e.recoverable,
    }
}

/// A pattern of `retry_on`.
#[derive(Debug, Clone)]
pub struct RetryPattern {
    /// The text as written.
    pub text: String,
    /// A regular expression (`{pattern: ...}`), or a legacy name that is
    /// no error type, matched as a case-insensitive substring.
    pub substring: bool,
    /// What is matched against the message.
    pub regex: Regex,
}

impl fmt::Display for RetryPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.substring {
            write!(f, "substring: {:?}", self.text)
        } else {
            write!(f, "pattern: {:?}", self.text)
        }
    }
}

/// The kind a name stands for: an error type or a legacy name
/// (case-insensitive; `-` and spaces count as `_`).
pub fn kind_named(name: &str) -> Option<ErrorKind> {
    let n: String = name
        .trim()
        .chars()
        .map(|c| match c {
            '-' | ' ' => '_',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    n.parse::<ErrorKind>().ok().or_else(|| {
        LEGACY_NAMES
            .iter()
            .find(|(legacy, _)| *legacy == n)
            .map(|(_, k)| *k)
    })
}

/// A `retry_on` from a comma-separated list of error types, as
/// `--retry-on quota,rate_limit` gives it: error types and legacy names
/// only (patterns are the config file's), every one recoverable.
pub fn retry_on_from_names(list: &str) -> Result<RetryOn, String> {
    let mut kinds = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let kind = kind_named(name).ok_or_else(|| {
            format!("`{name}` is not an error type (see docs/errors.md; patterns go in the config's retry_on)")
        })?;
        if !kind.recoverable() {
            return Err(format!(
                "`{name}` is not recoverable: a chain never moves on after it"
            ));
        }
        kinds.push(kind);
    }
    Ok(RetryOn {
        kinds,
        patterns: Vec::new(),
    })
}
