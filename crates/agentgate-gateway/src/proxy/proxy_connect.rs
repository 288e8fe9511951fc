//! HTTP proxies: which one an upstream goes through (`HTTPS_PROXY` for
//! `https://`, `HTTP_PROXY` for `http://`, either case; `NO_PROXY` and
//! loopback never proxied), and the CONNECT tunnel an `https://` upstream
//! is reached through.

use http::HeaderValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::GatewayError;

/// The most a proxy's answer to CONNECT may take before its blank line.
const CONNECT_REPLY_MAX: usize = 16 * 1024;

/// The proxy an upstream goes through.
#[derive(Debug, Clone)]
pub(crate) struct ProxyRoute {
    /// The proxy's host (no brackets around an IPv6 address).
    pub host: String,
    /// The proxy's port.
    pub port: u16,
    /// `Proxy-Authorization` from the proxy URL's user and password.
    pub authorization: Option<HeaderValue>,
}

/// The proxy for an upstream of `scheme` (`http` or `https`) at `host`,
/// from the proxy settings `env`; `None` when it goes direct.
pub(crate) fn proxy_for(
    scheme: &str,
    host: &str,
    env: &[(String, String)],
) -> Result<Option<ProxyRoute>, GatewayError> {
    let lookup = |name: &str| {
        env.iter()
            .find(|(k, v)| k == name && !v.trim().is_empty())
            .map(|(k, v)| (k.clone(), v.trim().to_owned()))
    };
    let (upper, lower) = match scheme {
        "https" => ("HTTPS_PROXY", "https_proxy"),
        _ => ("HTTP_PROXY", "http_proxy"),
    };
    let Some((name, value)) = lookup(lower).or_else(|| lookup(upper)) else {
        return Ok(None);
    };
    if is_loopback(host) {
        return Ok(None);
    }
    let no_proxy = lookup("no_proxy").or_else(|| lookup("NO_PROXY"));
    if let Some((_, list)) = no_proxy
        && no_proxy_matches(&list, host)
    {
        return Ok(None);
    }
    parse_proxy_url(&value)
        .map(Some)
        .map_err(|reason| GatewayError::Proxy { name, reason })
}

/// Whether `host` is this machine (never proxied).
fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether a `NO_PROXY` list (hosts, domain suffixes with or without a
/// leading dot or `*.`, `*` for all; ports ignored) covers `host`.
fn no_proxy_matches(list: &str, host: &str) -> bool {
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    list.split(',').map(str::trim).any(|entry| {
        if entry == "*" {
            return true;
        }
        let entry = entry.trim_start_matches("*.").trim_start_matches('.');
        let entry = strip_port(entry).to_ascii_lowercase();
        !entry.is_empty()
            && (host == entry
                || host
                    .strip_suffix(&entry)
                    .is_some_and(|head| head.ends_with('.')))
    })
}

/// `host:port` → `host`; an IPv6 address in brackets loses them.
fn strip_port(entry: &str) -> &str {
    if let Some(rest) = entry.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    match entry.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') && port.parse::<u16>().is_ok() => host,
        _ => entry,
    }
}

/// A proxy URL: `http://[user:password@]host[:port]` (the scheme may be
/// left out; a TLS proxy, `https://`, is not supported).
fn parse_proxy_url(value: &str) -> Result<ProxyRoute, String> {
    let rest = match value.split_once("://") {
        Some((scheme, rest)) if scheme.eq_ignore_ascii_case("http") => rest,
        Some((scheme, _)) => {
            return Err(format!(
                "a {scheme}:// proxy is not supported (http:// only)"
            ));
        }
        None => value,
    };
    let authority = rest.split('/').next().unwrap_or(rest);
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((userinfo, hostport)) => (Some(userinfo), hostport),
        None => (None, authority),
    };
    let (host, port) = if let Some(v6) = hostport.strip_prefix('[') {
        let (host, after) = v6.split_once(']').ok_or("an unclosed [ in its host")?;
        let port = after.strip_prefix(':').unwrap_or("");
        (host, port)
    } else {
        match hostport.rsplit_once(':') {
            Some((host, port)) => (host, port),
            None => (hostport, ""),
        }
    };
    if host.is_empty() {
        return Err("it names no host".to_owned());
    }
    let port = if port.is_empty() {
        80
    } else {
        port.parse::<u16>()
            .map_err(|_| format!("its port {port:?} is not a number"))?
    };
    let authorization = match userinfo {
        Some(userinfo) => {
            let value = format!("Basic {}", base64(userinfo.as_bytes()));
            let mut value = HeaderValue::from_str(&value)
                .map_err(|_| "its user and password are not valid in a header".to_owned())?;
            value.set_sensitive(true);
            Some(value)
        }
        None => None,
    };
    Ok(ProxyRoute {
        host: host.to_owned(),
        port,
        authorization,
    })
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Ask the proxy on `stream` for a tunnel to `host:port` and read its
/// answer; any status but 2xx is an error.
pub(crate) async fn open_tunnel(
    stream: &mut TcpStream,
    host: &str,
    port: u16,
    route: &ProxyRoute,
) -> std::io::Result<()> {
    let target = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let mut request = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n").into_bytes();
    if let Some(auth) = &route.authorization {
        request.extend_from_slice(b"Proxy-Authorization: ");
        request.extend_from_slice(auth.as_bytes());
        request.extend_from_slice(b"\r\n");
    }
    request.extend_from_slice(b"\r\n");
    stream.write_all(&request).await?;
    let mut reply = Vec::with_capacity(256);
    let mut buf = [0u8; 1024];
    while !reply.windows(4).any(|w| w == b"\r\n\r\n") {
        if reply.len() > CONNECT_REPLY_MAX {
            return Err(std::io::Error::other(
                "the proxy's answer to CONNECT is too long",
            ));
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return Err(std::io::Error::other(
                "the proxy closed the connection during CONNECT",
            ));
        }
        reply.extend_from_slice(&buf[..n]);
    }
    let status_line = reply.split(|b| *b == b'\n').next().unwrap_or_default();
    let status_line = String::from_utf8_lossy(status_line);
    let status = status_line.split_whitespace().nth(1).unwrap_or_default();
    if status.starts_with('2') {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "the proxy {}:{} refused the tunnel to {target}: {}",
            route.host,
            route.port,
            status_line.trim()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn https_upstreams_take_https_proxy_and_http_ones_http_proxy() {
        let e = env(&[("HTTPS_PROXY", "http://p:3128"), ("http_proxy", "q:8080")]);
        let https = proxy_for("https", "api.openai.com", &e).unwrap().unwrap();
        assert_eq!((https.host.as_str(), https.port), ("p", 3128));
        let http = proxy_for("http", "api.openai.com", &e).unwrap().unwrap();
        assert_eq!((http.host.as_str(), http.port), ("q", 8080));
        assert!(proxy_for("https", "x", &env(&[])).unwrap().is_none());
    }

    #[test]
    fn no_proxy_and_loopback_go_direct() {
        let e = env(&[
            ("HTTPS_PROXY", "http://p:3128"),
            ("NO_PROXY", "example.com, .corp:443,10.0.0.1"),
        ]);
        assert!(proxy_for("https", "example.com", &e).unwrap().is_none());
        assert!(proxy_for("https", "api.example.com", &e).unwrap().is_none());
        assert!(proxy_for("https", "x.corp", &e).unwrap().is_none());
        assert!(proxy_for("https", "10.0.0.1", &e).unwrap().is_none());
        assert!(proxy_for("https", "badexample.com", &e).unwrap().is_some());
        assert!(proxy_for("https", "127.0.0.1", &e).unwrap().is_none());
        assert!(proxy_for("https", "[::1]", &e).unwrap().is_none());
        assert!(proxy_for("https", "localhost", &e).unwrap().is_none());
        let all = env(&[("https_proxy", "p:1"), ("no_proxy", "*")]);
        assert!(
            proxy_for("https", "api.anthropic.com", &all)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_proxy_user_becomes_basic_authorization_and_bad_settings_are_errors() {
        let e = env(&[("HTTPS_PROXY", "http://user:pa55@p:3128")]);
        let route = proxy_for("https", "h", &e).unwrap().unwrap();
        assert_eq!(
            route.authorization.unwrap().to_str().unwrap(),
            "Basic dXNlcjpwYTU1"
        );
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(base64(b"a"), "YQ==");
        let tls = env(&[("HTTPS_PROXY", "https://p:3128")]);
        assert!(matches!(
            proxy_for("https", "h", &tls),
            Err(GatewayError::Proxy { .. })
        ));
        let port = env(&[("HTTPS_PROXY", "http://p:port")]);
        assert!(proxy_for("https", "h", &port).is_err());
    }
}
