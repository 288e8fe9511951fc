//! The egress allowlist and the destinations asked for: `host:port`
//! parsed, host names normalised (lower case, one trailing dot dropped),
//! and matched by name, never by a resolved address: `example.com:443`
//! matches that name only, `*.example.com:443` its subdomains (not the
//! apex), and an address (`192.0.2.7:443`, `[2001:db8::1]:443`) only the
//! same address. Pure functions, no I/O.

use std::net::IpAddr;

/// A host as asked for or allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Host {
    /// A host name, normalised.
    Name(String),
    /// An address literal.
    Ip(IpAddr),
}

impl std::fmt::Display for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Host::Name(name) => f.write_str(name),
            Host::Ip(IpAddr::V6(ip)) => write!(f, "[{ip}]"),
            Host::Ip(ip) => write!(f, "{ip}"),
        }
    }
}

/// A destination asked for: `CONNECT host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Destination {
    pub(crate) host: Host,
    pub(crate) port: u16,
}

impl std::fmt::Display for Destination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.host, self.port)
    }
}

/// One allow entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    /// This host exactly.
    Exact(Host),
    /// Any subdomain of this name (`*.example.com` holds `example.com`).
    Subdomains(String),
}

/// The parsed `egress_allow`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct AllowList {
    rules: Vec<(Rule, u16)>,
}

/// Why a destination is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mismatch {
    /// No entry names the host.
    Host,
    /// An entry names the host, for other ports.
    Port,
}

impl AllowList {
    /// Parse the entries; the error names the first unusable one.
    pub(crate) fn parse(entries: &[String]) -> Result<AllowList, String> {
        let rules = entries
            .iter()
            .map(|entry| parse_rule(entry).map_err(|why| format!("`{entry}`: {why}")))
            .collect::<Result<_, _>>()?;
        Ok(AllowList { rules })
    }

    /// Whether `destination` is allowed, else why not.
    pub(crate) fn check(&self, destination: &Destination) -> Result<(), Mismatch> {
        let mut host_named = false;
        for (rule, port) in &self.rules {
            if rule_matches(rule, &destination.host) {
                if *port == destination.port {
                    return Ok(());
                }
                host_named = true;
            }
        }
        Err(if host_named {
            Mismatch::Port
        } else {
            Mismatch::Host
        })
    }
}

fn rule_matches(rule: &Rule, host: &Host) -> bool {
    match (rule, host) {
        (Rule::Exact(allowed), host) => allowed == host,
        (Rule::Subdomains(parent), Host::Name(name)) => name
            .strip_suffix(parent.as_str())
            .and_then(|head| head.strip_suffix('.'))
            .is_some_and(|label| !label.is_empty()),
        (Rule::Subdomains(_), Host::Ip(_)) => false,
    }
}

fn parse_rule(entry: &str) -> Result<(Rule, u16), String> {
    let (host, port) = split_host_port(entry)?;
    if let Some(parent) = host.strip_prefix("*.") {
        return match parse_host(parent)? {
            Host::Name(name) => Ok((Rule::Subdomains(name), port)),
            Host::Ip(_) => Err("a wildcard takes a host name, not an address".to_owned()),
        };
    }
    Ok((Rule::Exact(parse_host(host)?), port))
}

/// Parse `host:port` as a `CONNECT` names it.
pub(crate) fn parse_destination(authority: &str) -> Result<Destination, String> {
    let (host, port) = split_host_port(authority)?;
    Ok(Destination {
        host: parse_host(host)?,
        port,
    })
}

/// `host:port` or `[v6]:port`, split; the port is 1..=65535.
fn split_host_port(text: &str) -> Result<(&str, u16), String> {
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (inside, after) = rest
            .split_once(']')
            .ok_or_else(|| "an unclosed `[`".to_owned())?;
        let port = after
            .strip_prefix(':')
            .ok_or_else(|| "no port after the address".to_owned())?;
        (inside, port)
    } else {
        let (host, port) = text
            .rsplit_once(':')
            .ok_or_else(|| "not host:port".to_owned())?;
        if host.contains(':') {
            return Err("an IPv6 address goes in brackets ([::1]:443)".to_owned());
        }
        (host, port)
    };
    match port.parse::<u16>() {
        Ok(port) if port != 0 => Ok((host, port)),
        _ => Err(format!("`{port}` is not a port")),
    }
}

/// A host name (letters, digits, `-`, `_`, dots between non-empty labels;
/// lower-cased, one trailing dot dropped) or an address literal.
fn parse_host(text: &str) -> Result<Host, String> {
    if let Ok(ip) = text.parse::<IpAddr>() {
        return Ok(Host::Ip(ip));
    }
    let name = text.strip_suffix('.').unwrap_or(text).to_ascii_lowercase();
    let valid = !name.is_empty()
        && name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
    if !valid {
        return Err(format!("`{text}` is not a host name or an address"));
    }
    // A name of digits and dots only is an address in a form the resolver
    // may still read (`2130706433`, `127.1`): refused, addresses are
    // written in full.
    if name.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return Err(format!("`{text}` is not a host name or an address"));
    }
    Ok(Host::Name(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(entries: &[&str]) -> AllowList {
        AllowList::parse(&entries.iter().map(|e| (*e).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    fn check(list: &AllowList, authority: &str) -> Result<(), Mismatch> {
        list.check(&parse_destination(authority).unwrap())
    }

    #[test]
    fn names_match_without_case_or_a_trailing_dot() {
        let list = allow(&["GitHub.com:443", "registry.npmjs.org.:443"]);
        assert_eq!(check(&list, "github.com:443"), Ok(()));
        assert_eq!(check(&list, "GITHUB.COM.:443"), Ok(()));
        assert_eq!(check(&list, "registry.npmjs.org:443"), Ok(()));
        assert_eq!(check(&list, "api.github.com:443"), Err(Mismatch::Host));
        assert_eq!(check(&list, "github.com:22"), Err(Mismatch::Port));
        assert_eq!(
            check(&list, "github.com.evil.example:443"),
            Err(Mismatch::Host)
        );
    }

    #[test]
    fn a_wildcard_matches_subdomains_and_not_the_apex() {
        let list = allow(&["*.example.com:443"]);
        assert_eq!(check(&list, "api.example.com:443"), Ok(()));
        assert_eq!(check(&list, "a.b.Example.com.:443"), Ok(()));
        assert_eq!(check(&list, "example.com:443"), Err(Mismatch::Host));
        assert_eq!(check(&list, "badexample.com:443"), Err(Mismatch::Host));
        assert_eq!(check(&list, "api.example.com:80"), Err(Mismatch::Port));
    }

    #[test]
    fn an_address_matches_only_the_same_address() {
        let list = allow(&["localhost:8080", "192.0.2.7:443", "[2001:db8::1]:443"]);
        assert_eq!(check(&list, "127.0.0.1:8080"), Err(Mismatch::Host));
        assert_eq!(check(&list, "192.0.2.7:443"), Ok(()));
        assert_eq!(check(&list, "[2001:0db8:0::1]:443"), Ok(()));
        assert_eq!(check(&list, "[::1]:443"), Err(Mismatch::Host));
        let names = allow(&["*.example.com:443"]);
        assert_eq!(check(&names, "192.0.2.7:443"), Err(Mismatch::Host));
    }

    #[test]
    fn unusable_entries_and_destinations_are_errors() {
        for bad in [
            "github.com",
            "github.com:0",
            "github.com:99999",
            ":443",
            "*.:443",
            "*.10.0.0.1:443",
            "a..b:443",
            "exa mple.com:443",
            "::1:443",
            "[::1:443",
            "2130706433:443",
            "127.1:443",
        ] {
            assert!(
                AllowList::parse(&[bad.to_owned()]).is_err(),
                "{bad} was taken"
            );
        }
        assert!(parse_destination("*.example.com:443").is_err());
        assert!(parse_destination("example.com:https").is_err());
        assert_eq!(
            parse_destination("[::1]:443").unwrap().to_string(),
            "[::1]:443"
        );
    }
}
