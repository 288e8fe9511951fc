//! The egress proxy of a `--sandbox strict` run: an HTTP CONNECT proxy on a
//! Unix socket that opens a tunnel only to the `host:port` destinations of
//! the run's `egress_allow`, matched by the host name the CLI asked for
//! (never by a resolved address or a port alone), and refuses every other
//! with 403. The sandbox relays a loopback port inside the CLI's network
//! namespace to the socket, and the CLI is given `HTTPS_PROXY`.

use std::path::{Path, PathBuf};

use crate::GatewayError;

/// A running egress proxy, serving until [`EgressProxy::shutdown`] (or
/// dropped).
#[derive(Debug)]
pub struct EgressProxy {
    socket: PathBuf,
}

impl EgressProxy {
    /// Listen on `socket` (created, mode 600) and tunnel to the `allow`
    /// destinations (`host:port`, a host name or an address; `*.example.com`
    /// matches its subdomains).
    pub async fn start(allow: &[String], socket: &Path) -> Result<EgressProxy, GatewayError> {
        let _ = allow;
        Err(GatewayError::Bind(std::io::Error::other(format!(
            "the egress proxy is not built yet ({})",
            socket.display()
        ))))
    }

    /// The Unix socket it listens on.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// Stop accepting and close the tunnels.
    pub async fn shutdown(self) {}
}
