//! The address a listener is asked for (`serve --listen`, `worker
//! --metrics-listen`): parsed, and whether it is a loopback one (which
//! decides whether a token may be made up, see `token.rs`). A leaf: both
//! the server and the worker's metrics listener use it.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use crate::error::ServeError;

/// `IP:PORT`, or `localhost:PORT` for 127.0.0.1.
pub fn parse_listen(given: &str) -> Result<SocketAddr, ServeError> {
    let bad = || ServeError::BadListen {
        given: given.to_owned(),
    };
    if let Ok(addr) = given.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let (host, port) = given.rsplit_once(':').ok_or_else(bad)?;
    let port: u16 = port.parse().map_err(|_| bad())?;
    if host.eq_ignore_ascii_case("localhost") {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    Err(bad())
}

/// 127.0.0.0/8, ::1, and ::ffff:127.x.y.z.
pub fn is_loopback(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(
            parse_listen("127.0.0.1:0").unwrap(),
            "127.0.0.1:0".parse().unwrap()
        );
        assert_eq!(
            parse_listen("localhost:7700").unwrap(),
            "127.0.0.1:7700".parse().unwrap()
        );
        assert_eq!(
            parse_listen("[::1]:80").unwrap(),
            "[::1]:80".parse().unwrap()
        );
        for bad in ["7700", "example.com:80", "127.0.0.1:99999", "127.0.0.1"] {
            let err = parse_listen(bad).unwrap_err().to_string();
            assert!(err.contains("IP:PORT"), "{bad}: {err}");
        }
    }

    #[test]
    fn loopback_addresses() {
        for ip in ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"] {
            assert!(is_loopback(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["0.0.0.0", "::", "10.0.0.1", "::ffff:10.0.0.1"] {
            assert!(!is_loopback(ip.parse().unwrap()), "{ip}");
        }
    }
}
