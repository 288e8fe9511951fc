//! Scripted response headers (`headers:` on a turn or its `error:`): their
//! YAML form and the check, at script load, that each name and value can
//! go on an HTTP response.

use std::collections::BTreeMap;

use axum::http::{HeaderName, HeaderValue};
use serde::Deserialize;

/// Headers as a script writes them: `{name: value, ...}`.
pub type HeadersSpec = BTreeMap<String, HeaderText>;

/// A header value as written: text, or a bare number (`retry-after: 2`)
/// or flag, sent as YAML reads it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum HeaderText {
    /// `"0.97"`.
    Text(String),
    /// `2`.
    Integer(i64),
    /// `0.97`.
    Number(f64),
    /// `true`.
    Flag(bool),
}

impl HeaderText {
    /// The value as it goes on the wire.
    pub fn as_text(&self) -> String {
        match self {
            HeaderText::Text(s) => s.clone(),
            HeaderText::Integer(n) => n.to_string(),
            HeaderText::Number(x) => x.to_string(),
            HeaderText::Flag(b) => b.to_string(),
        }
    }
}

/// Headers the server frames the body with: a script may not set them.
const FRAMING: &[&str] = &[
    "content-length",
    "transfer-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
];

/// Check `spec` (the key it was given under is `key`, for the message) and
/// turn it into header pairs, names lower-cased.
pub fn checked(spec: &HeadersSpec, key: &str) -> Result<Vec<(HeaderName, HeaderValue)>, String> {
    let mut out = Vec::with_capacity(spec.len());
    for (name, value) in spec {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{key}`: {name:?} is not a valid header name"))?;
        if FRAMING.contains(&header.as_str()) {
            return Err(format!(
                "`{key}`: `{header}` is set by the server (it frames the body) and cannot be scripted"
            ));
        }
        let text = value.as_text();
        let value = HeaderValue::from_str(&text).map_err(|_| {
            format!("`{key}`: the value of `{header}` ({text:?}) is not a valid header value")
        })?;
        out.push((header, value));
    }
    Ok(out)
}
