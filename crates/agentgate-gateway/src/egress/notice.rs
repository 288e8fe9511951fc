//! What the egress proxy reports: each refused destination, with why.

/// Why a destination was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EgressRefusal {
    /// No `egress_allow` entry names the host.
    HostNotAllowed,
    /// An entry names the host, for other ports.
    PortNotAllowed,
    /// A plain-HTTP request (`GET http://host/...`): the proxy only opens
    /// `CONNECT` tunnels.
    PlainHttp,
}

impl std::fmt::Display for EgressRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EgressRefusal::HostNotAllowed => "the host is not in the run's egress_allow",
            EgressRefusal::PortNotAllowed => {
                "the host is in the run's egress_allow for other ports"
            }
            EgressRefusal::PlainHttp => "plain HTTP is not forwarded (only CONNECT tunnels)",
        })
    }
}

/// What the egress proxy tells the run as it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EgressNotice {
    /// A destination was refused.
    Refused {
        /// `host:port` as asked for (the host normalised).
        destination: String,
        /// Why.
        reason: EgressRefusal,
    },
}
