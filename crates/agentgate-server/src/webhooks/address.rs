//! Which addresses a delivery may connect to: a webhook URL is the
//! caller's choice (a run request's `callback_url`), so without this
//! filter it would be a way to make the server send requests into its own
//! host and network. Unless `webhooks.allow_private` is true, these are
//! refused: loopback, unspecified, private (RFC 1918, and IPv6 unique
//! local), link-local, carrier-grade NAT (100.64.0.0/10), multicast,
//! broadcast, the IETF's reserved and documentation ranges, and the IPv6
//! forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible
//! `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) whose IPv4
//! address is one of them.
//!
//! The check is made on the addresses the host name resolves to at
//! delivery time, and the delivery connects to the address checked (never
//! resolving again): a name that resolves to a public address once and a
//! private one the next time (DNS rebinding) cannot slip through.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why `ip` is refused, or `None` when it is a public address.
pub fn refused_because(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => refused_v4(v4),
        IpAddr::V6(v6) => refused_v6(v6),
    }
}

fn refused_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    if ip.is_unspecified() || a == 0 {
        Some("an unspecified address (0.0.0.0/8)")
    } else if ip.is_loopback() {
        Some("a loopback address")
    } else if ip.is_private() {
        Some("a private address (RFC 1918)")
    } else if ip.is_link_local() {
        Some("a link-local address")
    } else if a == 100 && (b & 0xc0) == 64 {
        Some("a carrier-grade NAT address (100.64.0.0/10)")
    } else if ip.is_multicast() {
        Some("a multicast address")
    } else if ip.is_broadcast() || a >= 240 {
        Some("a reserved or broadcast address (240.0.0.0/4)")
    } else if a == 192 && b == 0 && c == 0 {
        Some("an IETF protocol assignment (192.0.0.0/24)")
    } else if ip.is_documentation() {
        Some("a documentation address")
    } else if a == 198 && (b & 0xfe) == 18 {
        Some("a benchmarking address (198.18.0.0/15)")
    } else {
        None
    }
}

fn refused_v6(ip: Ipv6Addr) -> Option<&'static str> {
    let segments = ip.segments();
    if let Some(v4) = embedded_v4(ip) {
        return refused_v4(v4);
    }
    if ip.is_unspecified() {
        Some("an unspecified address (::)")
    } else if ip.is_loopback() {
        Some("a loopback address (::1)")
    } else if (segments[0] & 0xfe00) == 0xfc00 {
        Some("a unique local address (fc00::/7)")
    } else if (segments[0] & 0xffc0) == 0xfe80 {
        Some("a link-local address (fe80::/10)")
    } else if (segments[0] & 0xffc0) == 0xfec0 {
        Some("a site-local address (fec0::/10)")
    } else if ip.is_multicast() {
        Some("a multicast address")
    } else if segments[0] == 0x2001 && segments[1] == 0x0db8 {
        Some("a documentation address (2001:db8::/32)")
    } else if segments[0] == 0x0100 && segments[1..4] == [0, 0, 0] {
        Some("a discard-only address (100::/64)")
    } else {
        None
    }
}

/// The IPv4 address an IPv6 one carries: mapped (`::ffff:0:0/96`),
/// compatible (`::/96`, not `::` and `::1`), NAT64 (`64:ff9b::/96`), 6to4
/// (`2002::/16`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = |hi: u16, lo: u16| {
        let ([a, b], [c, d]) = (hi.to_be_bytes(), lo.to_be_bytes());
        Ipv4Addr::new(a, b, c, d)
    };
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    if s[..6] == [0, 0, 0, 0, 0, 0] && !ip.is_unspecified() && !ip.is_loopback() {
        return Some(low(s[6], s[7]));
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(low(s[6], s[7]));
    }
    if s[0] == 0x2002 {
        return Some(low(s[1], s[2]));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refused_range_is_refused_and_public_addresses_pass() {
        for refused in [
            "0.0.0.0",
            "0.1.2.3",
            "127.0.0.1",
            "127.255.255.254",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.255",
            "224.0.0.1",
            "239.255.255.250",
            "255.255.255.255",
            "240.0.0.1",
            "192.0.0.8",
            "192.0.2.1",
            "198.51.100.7",
            "203.0.113.9",
            "198.18.0.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "100::1",
            "::ffff:127.0.0.1",
            "::ffff:10.1.2.3",
            "::ffff:169.254.169.254",
            "::ffff:0.0.0.0",
            "::127.0.0.1",
            "::10.0.0.1",
            "64:ff9b::7f00:1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::",
            "2002:c0a8:101::1",
        ] {
            let ip: IpAddr = refused.parse().unwrap();
            assert!(refused_because(ip).is_some(), "{refused} was let through");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "100.63.255.255",
            "100.128.0.1",
            "172.32.0.1",
            "192.169.0.1",
            "2606:4700:4700::1111",
            "2a00:1450:4001::1",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
        ] {
            let ip: IpAddr = public.parse().unwrap();
            assert_eq!(refused_because(ip), None, "{public} was refused");
        }
    }
}
