//! One connection to the egress proxy: its request head read (bounded in
//! size and time), then either a tunnel or a refusal, and the connection
//! closed after a refusal (one request per connection).
//!
//! - `CONNECT host:port` allowed: the proxy resolves the host and connects
//!   (bounded by [`CONNECT_TIMEOUT`]), answers `200`, passes on any bytes
//!   the client sent after its head, and copies both ways until either
//!   side ends (or the proxy stops: the caller drops the whole future).
//!   A failed connect is `502` (`504` past the timeout).
//! - `CONNECT` to anything else: `403` with the reason, and a notice.
//! - Any other request: `405` (`Allow: CONNECT`); one naming a host
//!   (`GET http://host/...`, the absolute form a plain-HTTP proxy gets) is
//!   noticed as refused too. Plain HTTP is not forwarded, allowed host or
//!   not: its requests would have to be read one by one (a keep-alive
//!   connection can name another host in its next request), and what the
//!   agents fetch through a proxy (git, npm, pip, their APIs) is HTTPS,
//!   which goes through `CONNECT`.
//! - What cannot be read as a request: `400`; a head past
//!   [`MAX_HEAD_BYTES`]: `431`; none within [`HEAD_TIMEOUT`]: closed.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use super::allow::{AllowList, Destination, Host, Mismatch, parse_destination};
use super::notice::{EgressNotice, EgressRefusal};

/// The largest request head read.
pub(crate) const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Time allowed for a client to send its request head.
pub(crate) const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// Time allowed to resolve and connect to an allowed destination.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Serve one connection until it ends.
pub(crate) async fn serve<S>(
    mut client: S,
    allow: &AllowList,
    on_refused: impl FnOnce(&EgressNotice),
    on_opened: impl FnOnce(),
) where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let head = match tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await {
        Ok(Ok(head)) => head,
        Ok(Err(HeadError::TooLarge)) => {
            answer(&mut client, 431, "the request head is too large\n", &[]).await;
            return;
        }
        Ok(Err(HeadError::Closed)) | Err(_) => return,
    };
    let Some((method, target)) = request_line(&head.text) else {
        answer(&mut client, 400, "not an HTTP request\n", &[]).await;
        return;
    };
    if !method.eq_ignore_ascii_case("CONNECT") {
        let refused = host_of_absolute(target).map(|destination| EgressNotice::Refused {
            destination,
            reason: EgressRefusal::PlainHttp,
        });
        answer(
            &mut client,
            405,
            "this proxy only opens tunnels (CONNECT host:port): use https\n",
            &[("allow", "CONNECT")],
        )
        .await;
        if let Some(notice) = refused {
            on_refused(&notice);
        }
        return;
    }
    let destination = match parse_destination(target) {
        Ok(destination) => destination,
        Err(why) => {
            answer(&mut client, 400, &format!("CONNECT {target}: {why}\n"), &[]).await;
            return;
        }
    };
    if let Err(mismatch) = allow.check(&destination) {
        let reason = match mismatch {
            Mismatch::Host => EgressRefusal::HostNotAllowed,
            Mismatch::Port => EgressRefusal::PortNotAllowed,
        };
        let notice = EgressNotice::Refused {
            destination: destination.to_string(),
            reason,
        };
        on_refused(&notice);
        answer(&mut client, 403, &format!("{destination}: {reason}\n"), &[]).await;
        return;
    }
    let upstream = match tokio::time::timeout(CONNECT_TIMEOUT, connect(&destination)).await {
        Ok(Ok(upstream)) => upstream,
        Ok(Err(e)) => {
            let text = format!("{destination}: could not connect: {e}\n");
            answer(&mut client, 502, &text, &[]).await;
            return;
        }
        Err(_) => {
            let text = format!("{destination}: no connection within {CONNECT_TIMEOUT:?}\n");
            answer(&mut client, 504, &text, &[]).await;
            return;
        }
    };
    tunnel(client, upstream, &head.rest, on_opened).await;
}

/// Open the tunnel and copy both ways until either side ends.
async fn tunnel<S>(mut client: S, mut upstream: TcpStream, early: &[u8], on_opened: impl FnOnce())
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let _ = upstream.set_nodelay(true);
    let opened = async {
        client
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await?;
        upstream.write_all(early).await
    };
    if opened.await.is_err() {
        return;
    }
    on_opened();
    if let Err(error) = tokio::io::copy_bidirectional(&mut client, &mut upstream).await {
        tracing::debug!(%error, "egress: a tunnel ended with an error");
    }
}

/// Resolve (a name) and connect to the first address that answers.
async fn connect(destination: &Destination) -> std::io::Result<TcpStream> {
    let addresses: Vec<SocketAddr> = match &destination.host {
        Host::Ip(ip) => vec![SocketAddr::new(*ip, destination.port)],
        Host::Name(name) => tokio::net::lookup_host((name.as_str(), destination.port))
            .await?
            .collect(),
    };
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "the name has no address");
    for address in addresses {
        match TcpStream::connect(address).await {
            Ok(stream) => return Ok(stream),
            Err(e) => last = e,
        }
    }
    Err(last)
}

/// A request head and what came after it.
struct Head {
    text: String,
    rest: Vec<u8>,
}

enum HeadError {
    TooLarge,
    Closed,
}

/// Read up to the blank line that ends the head.
async fn read_head<S: AsyncRead + Unpin>(client: &mut S) -> Result<Head, HeadError> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 2048];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = buf.split_off(end + 4);
            return Ok(Head {
                text: String::from_utf8_lossy(&buf).into_owned(),
                rest,
            });
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Err(HeadError::TooLarge);
        }
        match client.read(&mut chunk).await {
            Ok(0) | Err(_) => return Err(HeadError::Closed),
            Ok(n) => buf.extend_from_slice(chunk.get(..n).unwrap_or_default()),
        }
    }
}

/// `METHOD TARGET HTTP/1.x`: the method and the target.
fn request_line(head: &str) -> Option<(&str, &str)> {
    let line = head.split("\r\n").next()?;
    let mut words = line.split(' ');
    let (method, target, version) = (words.next()?, words.next()?, words.next()?);
    let token = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphabetic());
    (words.next().is_none()
        && token(method)
        && !target.is_empty()
        && (version == "HTTP/1.1" || version == "HTTP/1.0"))
        .then_some((method, target))
}

/// `host:port` of an absolute-form target (`http://host[:port]/...`).
fn host_of_absolute(target: &str) -> Option<String> {
    let (scheme, rest) = target.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit('@').next()?;
    if authority.is_empty() {
        return None;
    }
    let default_port = if scheme.eq_ignore_ascii_case("https") {
        443
    } else {
        80
    };
    let with_port = if authority.ends_with(']') || !authority.contains(':') {
        format!("{authority}:{default_port}")
    } else {
        authority.to_owned()
    };
    Some(
        parse_destination(&with_port)
            .map(|d| d.to_string())
            .unwrap_or(with_port),
    )
}

/// A whole short answer, then the connection is done.
async fn answer<S: AsyncWrite + Unpin>(
    client: &mut S,
    status: u16,
    body: &str,
    headers: &[(&str, &str)],
) {
    let reason = match status {
        400 => "Bad Request",
        403 => "Forbidden",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        502 => "Bad Gateway",
        504 => "Gateway Timeout",
        _ => "Error",
    };
    let mut text = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    let _ = client.write_all(text.as_bytes()).await;
    let _ = client.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_line_is_read_strictly() {
        assert_eq!(
            request_line("CONNECT a.example:443 HTTP/1.1\r\nHost: x\r\n\r\n"),
            Some(("CONNECT", "a.example:443"))
        );
        assert_eq!(request_line("CONNECT a.example:443\r\n\r\n"), None);
        assert_eq!(request_line("\u{16}\u{3}\u{1} junk HTTP/1.1\r\n\r\n"), None);
        assert_eq!(request_line("GET  / HTTP/1.1\r\n\r\n"), None);
    }

    #[test]
    fn an_absolute_target_names_its_destination() {
        assert_eq!(
            host_of_absolute("http://Example.com/x?y").as_deref(),
            Some("example.com:80")
        );
        assert_eq!(
            host_of_absolute("http://user@example.com:8080/").as_deref(),
            Some("example.com:8080")
        );
        assert_eq!(
            host_of_absolute("http://[::1]/").as_deref(),
            Some("[::1]:80")
        );
        assert_eq!(host_of_absolute("/index.html"), None);
    }
}
