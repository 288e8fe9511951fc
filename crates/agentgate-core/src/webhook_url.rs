//! A webhook's destination, checked: an `http://` or `https://` URL with a
//! host, split into what a delivery needs (scheme, host, port, the path
//! with its query). A leaf: the config's `webhooks:` and a run request's
//! `callback_url` check their URLs here; `agentgate serve`'s delivery
//! worker resolves the host and checks its addresses before it connects.
//!
//! No user name or password in the URL (it would be a secret in the store
//! and in `GET /v1/webhooks/deliveries`), no fragment, no spaces.

/// The longest URL accepted, in bytes.
pub const WEBHOOK_URL_MAX: usize = 2048;

/// A checked webhook URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookUrl {
    /// `true` for `https`.
    pub https: bool,
    /// The host: a name, or an IP address (an IPv6 one without its
    /// brackets).
    pub host: String,
    /// The port: the URL's, else 80 or 443.
    pub port: u16,
    /// The path and the query, from its `/` (`/` when the URL has none).
    pub path_and_query: String,
}

impl WebhookUrl {
    /// Check `text`; the error says what is wrong.
    pub fn parse(text: &str) -> Result<WebhookUrl, String> {
        if text.len() > WEBHOOK_URL_MAX {
            return Err(format!("it is longer than {WEBHOOK_URL_MAX} bytes"));
        }
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err("it holds a space or a control character".to_owned());
        }
        let lower = text.to_ascii_lowercase();
        let (https, rest) = if lower.starts_with("https://") {
            (true, &text["https://".len()..])
        } else if lower.starts_with("http://") {
            (false, &text["http://".len()..])
        } else {
            return Err(format!(
                "`{text}` is not an http:// or https:// URL (the only schemes a webhook may use)"
            ));
        };
        if rest.contains('#') {
            return Err("a webhook URL has no fragment (`#...`)".to_owned());
        }
        let split = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(split);
        if authority.contains('@') {
            return Err("a webhook URL holds no user name or password".to_owned());
        }
        let (host, port) = split_host_port(authority)?;
        if host.is_empty() {
            return Err(format!("`{text}` has no host"));
        }
        let path_and_query = if tail.is_empty() {
            "/".to_owned()
        } else if tail.starts_with('?') {
            format!("/{tail}")
        } else {
            tail.to_owned()
        };
        Ok(WebhookUrl {
            https,
            host: host.to_ascii_lowercase(),
            port: port.unwrap_or(if https { 443 } else { 80 }),
            path_and_query,
        })
    }

    /// The `Host` header's value.
    pub fn host_header(&self) -> String {
        let default = if self.https { 443 } else { 80 };
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == default {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }
}

fn split_host_port(authority: &str) -> Result<(&str, Option<u16>), String> {
    let (host, port) = if let Some(inner) = authority.strip_prefix('[') {
        let Some(end) = inner.find(']') else {
            return Err("an IPv6 host without its closing `]`".to_owned());
        };
        let host = &inner[..end];
        if host.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("`[{host}]` is not an IPv6 address"));
        }
        let after = &inner[end + 1..];
        match after.strip_prefix(':') {
            Some(port) => (host, Some(port)),
            None if after.is_empty() => (host, None),
            None => return Err(format!("`{after}` after the IPv6 host")),
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if !host.contains(':')
        && !host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    {
        return Err(format!("`{host}` is not a host name"));
    }
    let port = match port {
        None => None,
        Some(p) => match p.parse::<u16>() {
            Ok(n) if n > 0 => Some(n),
            _ => return Err(format!("`{p}` is not a port")),
        },
    };
    Ok((host, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_split_and_other_schemes_refused() {
        let u = WebhookUrl::parse("https://Hooks.example.com/agentgate?x=1").unwrap();
        assert_eq!(
            (u.https, u.host.as_str(), u.port, u.path_and_query.as_str()),
            (true, "hooks.example.com", 443, "/agentgate?x=1")
        );
        let u = WebhookUrl::parse("http://127.0.0.1:8080").unwrap();
        assert_eq!((u.port, u.path_and_query.as_str()), (8080, "/"));
        assert_eq!(u.host_header(), "127.0.0.1:8080");
        let u = WebhookUrl::parse("http://[::1]:9/h").unwrap();
        assert_eq!((u.host.as_str(), u.port), ("::1", 9));
        assert_eq!(u.host_header(), "[::1]:9");
        for bad in [
            "ftp://example.com/",
            "file:///etc/passwd",
            "gopher://x",
            "https://",
            "https://user:pw@example.com/",
            "https://example.com:0/",
            "https://example.com:99999/",
            "https://exa mple.com/",
            "https://example.com/#frag",
            "https://[::1/",
            "example.com/hook",
        ] {
            assert!(WebhookUrl::parse(bad).is_err(), "{bad} was accepted");
        }
    }
}
