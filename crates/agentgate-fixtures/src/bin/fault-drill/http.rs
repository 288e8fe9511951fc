//! One HTTP/1.1 request per connection to `serve` over 127.0.0.1: the
//! drill submits, cancels and reads through the real API.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

/// The bearer token the drill gives `serve`.
pub const TOKEN: &str = "fault-drill-token-0123456789abcdef";

/// The longest one request may take.
const REQUEST_LIMIT: Duration = Duration::from_secs(60);

/// `METHOD path` with an optional JSON body; the status and the JSON answer
/// (`Value::Null` for an empty body).
pub fn request(
    base: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let addr = base.trim_start_matches("http://");
    let body = body.map(Value::to_string).unwrap_or_default();
    let fail = |e: std::io::Error| format!("{method} {path}: {e}");
    let mut stream = TcpStream::connect(addr).map_err(fail)?;
    stream.set_read_timeout(Some(REQUEST_LIMIT)).map_err(fail)?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\
         Connection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .map_err(fail)?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw).map_err(fail)?;
    let (head, rest) = raw
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{method} {path}: no HTTP answer"))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{method} {path}: bad status line {head:?}"))?;
    let value = if rest.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(rest).map_err(|e| format!("{method} {path}: {e}: {rest:?}"))?
    };
    Ok((status, value))
}
