//! `retry_on`: which failures let a chain move on to its next agent.
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
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::Spanned;

use super::yaml::Fault;

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

/// One item as written.
#[derive(Debug)]
pub(super) enum RawItem {
    Name(String),
    Pattern(String),
}

impl<'de> Deserialize<'de> for RawItem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawItem;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an error type (quota, rate_limit, ...) or {pattern: REGEX}")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<RawItem, E> {
                Ok(RawItem::Name(s.to_owned()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawItem, A::Error> {
                let mut pattern = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "pattern" {
                        return Err(de::Error::unknown_field(&key, &["pattern"]));
                    }
                    pattern = Some(map.next_value::<String>()?);
                }
                pattern
                    .map(RawItem::Pattern)
                    .ok_or_else(|| de::Error::missing_field("pattern"))
            }
        }
        d.deserialize_any(V)
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

/// Check a written `retry_on`. With `lenient_names` (cli_agents.yaml), a
/// name that is no error type becomes a case-insensitive substring
/// pattern; otherwise it is an error.
pub(super) fn convert(
    items: &Spanned<Vec<Spanned<RawItem>>>,
    lenient_names: bool,
) -> Result<RetryOn, Fault> {
    let mut out = RetryOn::default();
    for item in &items.value {
        match &item.value {
            RawItem::Name(name) => match kind_named(name) {
                Some(kind) if !kind.recoverable() => {
                    return Err(Fault::at(
                        item,
                        format!(
                            "`retry_on: {name}`: `{kind}` errors are not recoverable, so a chain never moves on after them; remove it"
                        ),
                    ));
                }
                Some(kind) => {
                    if !out.kinds.contains(&kind) {
                        out.kinds.push(kind);
                    }
                }
                None if lenient_names => {
                    let regex = Regex::new(&format!("(?i){}", regex::escape(name)))
                        .map_err(|e| Fault::at(item, format!("`{name}`: {e}")))?;
                    out.patterns.push(RetryPattern {
                        text: name.clone(),
                        substring: true,
                        regex,
                    });
                }
                None => {
                    let known: Vec<&str> = ErrorKind::ALL
                        .iter()
                        .filter(|k| k.recoverable())
                        .map(|k| k.as_str())
                        .collect();
                    return Err(Fault::at(
                        item,
                        format!(
                            "`retry_on: {name}` is not an error type (recoverable ones: {}; legacy names such as allowance_exceeded and rate_limited work too); to match the message, write `{{pattern: \"...\"}}`",
                            known.join(", ")
                        ),
                    ));
                }
            },
            RawItem::Pattern(p) => {
                let regex = Regex::new(p).map_err(|e| {
                    let first = e.to_string();
                    let first = first.lines().last().unwrap_or("").trim().to_owned();
                    Fault::at(
                        item,
                        format!("`pattern: {p}` is not a regular expression: {first}"),
                    )
                })?;
                out.patterns.push(RetryPattern {
                    text: p.clone(),
                    substring: false,
                    regex,
                });
            }
        }
    }
    Ok(out)
}
