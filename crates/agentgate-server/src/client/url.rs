//! The server's address as the clients take it: `http://HOST:PORT`, with an
//! optional path prefix (a server mounted behind a proxy at `/agentgate`).

use std::fmt;

/// The variable that names the server for the clients.
pub const SERVER_ENV: &str = "AGENTGATE_SERVER";

/// Where the clients send requests when neither `--server` nor
/// `AGENTGATE_SERVER` says.
pub const DEFAULT_SERVER: &str = "http://127.0.0.1:7700";

/// A parsed server URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerUrl {
    /// `HOST:PORT`, as connected to and sent as `Host`.
    pub authority: String,
    /// The path prefix, without a trailing slash (`""` for none).
    pub prefix: String,
}

/// A server URL that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("server URL `{url}`: {reason}")]
pub struct BadServerUrl {
    /// The URL as given.
    pub url: String,
    /// What is wrong.
    pub reason: &'static str,
}

impl ServerUrl {
    /// Parse `http://HOST[:PORT][/PREFIX]` (port 80 when absent).
    pub fn parse(url: &str) -> Result<ServerUrl, BadServerUrl> {
        let bad = |reason| BadServerUrl {
            url: url.to_owned(),
            reason,
        };
        let trimmed = url.trim();
        if trimmed.starts_with("https://") {
            return Err(bad(
                "https is not supported: agentgate serve speaks plain HTTP (reach a remote server through an SSH tunnel)",
            ));
        }
        let rest = trimmed
            .strip_prefix("http://")
            .ok_or_else(|| bad("expected http://HOST:PORT"))?;
        let (authority, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        if authority.is_empty() || authority.contains('@') {
            return Err(bad("expected http://HOST:PORT"));
        }
        let authority = if has_port(authority) {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        };
        if path.contains(['?', '#']) {
            return Err(bad("a query or fragment has no place in the server URL"));
        }
        Ok(ServerUrl {
            authority,
            prefix: path.trim_end_matches('/').to_owned(),
        })
    }

    /// The request target for an API path (`/v1/runs`).
    pub fn target(&self, path: &str) -> String {
        format!("{}{path}", self.prefix)
    }
}

/// Whether `HOST:PORT` (or `[V6]:PORT`) has its port.
fn has_port(authority: &str) -> bool {
    match authority.rsplit_once(':') {
        Some((host, port)) => {
            !port.is_empty()
                && port.bytes().all(|b| b.is_ascii_digit())
                && (!host.starts_with('[') || host.ends_with(']'))
        }
        None => false,
    }
}

impl fmt::Display for ServerUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http://{}{}", self.authority, self.prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_with_port_prefix_and_ipv6() {
        let u = ServerUrl::parse("http://127.0.0.1:7700").unwrap();
        assert_eq!(
            (u.authority.as_str(), u.prefix.as_str()),
            ("127.0.0.1:7700", "")
        );
        let u = ServerUrl::parse("http://gate.local/agentgate/").unwrap();
        assert_eq!(u.authority, "gate.local:80");
        assert_eq!(u.target("/v1/runs"), "/agentgate/v1/runs");
        assert_eq!(
            ServerUrl::parse("http://[::1]:9").unwrap().authority,
            "[::1]:9"
        );
        assert_eq!(
            ServerUrl::parse("http://[::1]").unwrap().authority,
            "[::1]:80"
        );
    }

    #[test]
    fn unusable_urls_say_why() {
        for (url, word) in [
            ("https://x:1", "https"),
            ("127.0.0.1:7700", "http://"),
            ("http://", "http://"),
            ("http://u:p@x:1", "http://"),
            ("http://x:1/?a=1", "query"),
        ] {
            let err = ServerUrl::parse(url).unwrap_err();
            assert!(err.to_string().contains(word), "{url}: {err}");
        }
    }
}
