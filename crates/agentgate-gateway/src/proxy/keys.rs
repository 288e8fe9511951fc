//! The CLI's key: with an API key held by the gateway, the key the CLI
//! sent (`x-api-key`, `authorization: Bearer`, `x-goog-api-key`, or the
//! query's `key=`) must be the run's stub, and the real key takes its
//! place; in passthrough the credentials go on untouched.

use http::{HeaderMap, HeaderValue, header};

use crate::config::KeyMode;

/// Why the CLI's key was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyRefusal {
    /// No key, or a key that is not the stub.
    WrongKey,
    /// The real key cannot be put in a header (it holds characters no
    /// header may).
    BadRealKey,
}

/// Check the CLI's key in `headers` and `query` and put the real one in
/// its place; the query to send upstream comes back.
pub(crate) fn swap_key(
    mode: &KeyMode,
    headers: &mut HeaderMap,
    query: Option<&str>,
) -> Result<Option<String>, KeyRefusal> {
    let KeyMode::ApiKey { real, stub } = mode else {
        return Ok(query.map(str::to_owned));
    };
    let mut found = false;
    for name in ["x-api-key", "x-goog-api-key"] {
        for value in headers.get_all(name) {
            found = true;
            if !same(value.as_bytes(), stub.as_bytes()) {
                return Err(KeyRefusal::WrongKey);
            }
        }
    }
    for value in headers.get_all(header::AUTHORIZATION) {
        found = true;
        let token = bearer_token(value.as_bytes()).ok_or(KeyRefusal::WrongKey)?;
        if !same(token, stub.as_bytes()) {
            return Err(KeyRefusal::WrongKey);
        }
    }
    let query_keys = query.map(query_key_values).unwrap_or_default();
    for value in &query_keys {
        found = true;
        if !same(value.as_bytes(), stub.as_bytes()) {
            return Err(KeyRefusal::WrongKey);
        }
    }
    if !found {
        return Err(KeyRefusal::WrongKey);
    }
    let sensitive = |text: &str| {
        let mut value = HeaderValue::from_str(text).map_err(|_| KeyRefusal::BadRealKey)?;
        value.set_sensitive(true);
        Ok::<_, KeyRefusal>(value)
    };
    for name in ["x-api-key", "x-goog-api-key"] {
        if headers.contains_key(name) {
            headers.insert(name, sensitive(real)?);
        }
    }
    if headers.contains_key(header::AUTHORIZATION) {
        headers.insert(header::AUTHORIZATION, sensitive(&format!("Bearer {real}"))?);
    }
    Ok(query.map(|q| {
        if query_keys.is_empty() {
            q.to_owned()
        } else {
            replace_query_key(q, real)
        }
    }))
}

/// The token of `Bearer TOKEN` (the scheme in any case).
fn bearer_token(value: &[u8]) -> Option<&[u8]> {
    let (scheme, token) = value.split_at_checked(7)?;
    scheme
        .eq_ignore_ascii_case(b"bearer ")
        .then(|| token.trim_ascii())
}

/// Equal, in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The values of `key=` in a query, percent-decoded.
fn query_key_values(query: &str) -> Vec<String> {
    query
        .split('&')
        .filter_map(|pair| pair.strip_prefix("key="))
        .map(percent_decode)
        .collect()
}

/// `query` with every `key=` value replaced by `real` (percent-encoded).
fn replace_query_key(query: &str, real: &str) -> String {
    query
        .split('&')
        .map(|pair| {
            if pair.starts_with("key=") {
                format!("key={}", percent_encode(real))
            } else {
                pair.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// `query` without its `key=` pairs (what is recorded); `None` when
/// nothing is left.
pub(crate) fn query_without_key(query: &str) -> Option<String> {
    let kept: Vec<&str> = query
        .split('&')
        .filter(|pair| !pair.starts_with("key=") && !pair.is_empty())
        .collect();
    (!kept.is_empty()).then(|| kept.join("&"))
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                let value = hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0);
                out.push(u8::try_from(value).unwrap_or(b'?'));
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn api_key() -> KeyMode {
        KeyMode::ApiKey {
            real: "sk-real".into(),
            stub: "stub-1".into(),
        }
    }

    #[test]
    fn the_stub_is_replaced_where_the_cli_put_it() {
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_static("stub-1"));
        assert_eq!(swap_key(&api_key(), &mut headers, None), Ok(None));
        assert_eq!(headers["x-api-key"], "sk-real");

        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_static("Bearer stub-1"));
        swap_key(&api_key(), &mut headers, None).unwrap();
        assert_eq!(headers["authorization"], "Bearer sk-real");

        let mut headers = HeaderMap::new();
        let query = swap_key(&api_key(), &mut headers, Some("alt=sse&key=stub-1")).unwrap();
        assert_eq!(query.as_deref(), Some("alt=sse&key=sk-real"));
        assert_eq!(
            query_without_key("alt=sse&key=stub-1").as_deref(),
            Some("alt=sse")
        );
        assert_eq!(query_without_key("key=stub-1"), None);
    }

    #[test]
    fn a_missing_or_wrong_key_is_refused_and_passthrough_touches_nothing() {
        let mut headers = HeaderMap::new();
        assert_eq!(
            swap_key(&api_key(), &mut headers, None),
            Err(KeyRefusal::WrongKey)
        );
        headers.insert("x-goog-api-key", HeaderValue::from_static("stub-2"));
        assert_eq!(
            swap_key(&api_key(), &mut headers, None),
            Err(KeyRefusal::WrongKey)
        );
        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_static("Basic stub-1"));
        assert_eq!(
            swap_key(&api_key(), &mut headers, None),
            Err(KeyRefusal::WrongKey)
        );
        let mut headers = HeaderMap::new();
        headers.insert("x-api-key", HeaderValue::from_static("stub-1"));
        assert_eq!(
            swap_key(&api_key(), &mut headers, Some("key=other")),
            Err(KeyRefusal::WrongKey)
        );

        let mut headers = HeaderMap::new();
        headers.insert("authorization", HeaderValue::from_static("Bearer mine"));
        let query = swap_key(&KeyMode::Passthrough, &mut headers, Some("key=k")).unwrap();
        assert_eq!(
            (headers["authorization"].to_str().unwrap(), query.as_deref()),
            ("Bearer mine", Some("key=k"))
        );
    }
}
