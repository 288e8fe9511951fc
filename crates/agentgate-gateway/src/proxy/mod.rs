//! The endpoint and the forwarding: a run's gateway.
//!
//! [`Gateway::start`] binds a loopback port (and a Unix socket, when the
//! config names one: the same service, for a sandboxed CLI), makes the
//! run's secret and serves. Every request goes through [`forward`]: its path must start with
//! the secret, the stub key is swapped for the real one ([`keys`]), the
//! run's limits are checked ([`limits`]), and the request goes to the
//! upstream over a pooled HTTP/1.1 client ([`upstream`]: plain TCP, TLS
//! from [`tls`], or through a proxy from [`proxy_connect`]). The response
//! comes back frame by frame through [`tapped_body`], which feeds the wire
//! tap; when the body ends (or fails, or the CLI goes away) the call's
//! [`call::CallTrack`] sends its [`GatewayNotice`], adds to the totals and
//! writes its line of the recording ([`record`]). [`listener`] accepts
//! connections and drains them on shutdown.
//!
//! Imports inside go one way: `listener` → `forward` → (`keys`,
//! `tapped_body` → `call`, `upstream`) → (`limits`, `notice`, `record`,
//! `tls`, `proxy_connect`); `mod.rs` holds the shared state ([`Shared`])
//! and the public face.

mod call;
mod forward;
mod keys;
mod limits;
mod listener;
mod notice;
mod proxy_connect;
mod record;
mod tapped_body;
mod tls;
mod upstream;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use crate::config::{GatewayConfig, KeyMode};
pub use notice::{GatewayNotice, GatewaySummary};

/// How long [`Gateway::shutdown`] waits for calls in flight.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

/// Why a gateway could not start.
#[derive(Debug, thiserror::Error)]
pub enum GatewayError {
    /// The loopback port could not be bound.
    #[error("the gateway could not bind a loopback port: {0}")]
    Bind(#[source] std::io::Error),
    /// The Unix socket ([`GatewayConfig::unix_socket`]) could not be made.
    #[error("the gateway could not make its Unix socket: {0}")]
    BindUnix(#[source] std::io::Error),
    /// An `egress_allow` entry of the egress proxy is not `host:port`.
    #[error("the egress allowlist entry {0}")]
    EgressAllow(String),
    /// The upstream URL is not an `http://` or `https://` URL with a host.
    #[error("the gateway's upstream URL {url:?} is not usable: {reason}")]
    UpstreamUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The CA file could not be read or holds no valid certificate.
    #[error("the gateway's CA file {path} is not usable: {reason}")]
    CaFile {
        /// The file.
        path: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The TLS settings could not be built.
    #[error("the gateway's TLS settings could not be built: {0}")]
    Tls(String),
    /// A proxy setting is not usable.
    #[error("the proxy setting {name} is not usable: {reason}")]
    Proxy {
        /// The variable (`HTTPS_PROXY`, ...).
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No randomness for the run's secret.
    #[error("the gateway could not make its secret: {0}")]
    Secret(String),
}

/// What every connection of one gateway shares.
#[derive(Debug)]
pub(crate) struct Shared {
    /// The path prefix, `/<secret>`.
    prefix: String,
    key: KeyMode,
    limits: crate::config::CallLimits,
    response_timeout: Duration,
    max_request_bytes: u64,
    max_response_bytes: u64,
    upstream: upstream::Upstream,
    ledger: limits::Ledger,
    notices: mpsc::UnboundedSender<GatewayNotice>,
    recorder: Option<record::Recorder>,
}

/// A run's gateway, serving until [`Gateway::shutdown`].
#[derive(Debug)]
pub struct Gateway {
    base_url: String,
    port: u16,
    stub: Option<String>,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    accept: tokio::task::JoinHandle<()>,
    connections_done: mpsc::Receiver<()>,
    /// The Unix socket's accept loop and file, when there is one.
    unix: Option<(tokio::task::JoinHandle<()>, crate::unix_socket::SocketFile)>,
}

impl Gateway {
    /// Bind 127.0.0.1:0, make the run's secret (random, 48 hex characters)
    /// and serve. The receiver gets one [`GatewayNotice::Call`] per model
    /// call as it ends, and [`GatewayNotice::LimitCrossed`] once per limit.
    pub async fn start(
        cfg: GatewayConfig,
    ) -> Result<(Gateway, mpsc::UnboundedReceiver<GatewayNotice>), GatewayError> {
        let upstream = upstream::Upstream::new(&cfg)?;
        let secret = new_secret()?;
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(GatewayError::Bind)?;
        let addr = listener.local_addr().map_err(GatewayError::Bind)?;
        let (notices, notice_rx) = mpsc::unbounded_channel();
        let recorder = cfg
            .record_dir
            .as_deref()
            .map(|dir| record::Recorder::start(dir, cfg.redact.clone()));
        let stub = match &cfg.key {
            KeyMode::ApiKey { stub, .. } => Some(stub.clone()),
            KeyMode::Passthrough => None,
        };
        let shared = Arc::new(Shared {
            prefix: format!("/{secret}"),
            key: cfg.key,
            limits: cfg.limits,
            response_timeout: cfg.response_timeout,
            max_request_bytes: cfg.max_request_bytes,
            max_response_bytes: cfg.max_response_bytes,
            upstream,
            ledger: limits::Ledger::default(),
            notices,
            recorder,
        });
        let (stop, stop_rx) = watch::channel(false);
        let (connection_token, connections_done) = mpsc::channel(1);
        let unix = match &cfg.unix_socket {
            None => None,
            Some(path) => {
                let (unix_listener, file) =
                    crate::unix_socket::bind_unix(path).map_err(GatewayError::BindUnix)?;
                let accept = tokio::spawn(listener::accept_unix_loop(
                    unix_listener,
                    shared.clone(),
                    stop_rx.clone(),
                    connection_token.clone(),
                ));
                Some((accept, file))
            }
        };
        let accept = tokio::spawn(listener::accept_loop(
            listener,
            shared.clone(),
            stop_rx,
            connection_token,
        ));
        tracing::debug!(%addr, upstream = %shared.upstream.origin(), "gateway listening");
        let gateway = Gateway {
            base_url: format!("http://{addr}/{secret}"),
            port: addr.port(),
            stub,
            shared,
            stop,
            accept,
            connections_done,
            unix,
        };
        Ok((gateway, notice_rx))
    }

    /// `http://127.0.0.1:PORT/<secret>`: the base URL the CLI is given in
    /// place of the upstream.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The port of its listener on 127.0.0.1 (the one in
    /// [`Gateway::base_url`]).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The stub key the CLI is given (an API key held by the gateway), else
    /// `None`.
    pub fn stub_key(&self) -> Option<&str> {
        self.stub.as_deref()
    }

    /// The totals so far.
    pub fn summary(&self) -> GatewaySummary {
        self.shared
            .ledger
            .summary(self.shared.upstream.origin().to_owned())
    }

    /// The totals since the gateway started or since the last take, and
    /// its ledger started again: the next calls numbered from 1 and the
    /// limits counted afresh. A warm process's gateway serves one turn
    /// after another; each turn takes its own totals.
    pub fn take_totals(&self) -> GatewaySummary {
        self.shared
            .ledger
            .take(self.shared.upstream.origin().to_owned())
    }

    /// Stop accepting, wait (at most about 2 s) for the calls in flight,
    /// close the recording, remove the Unix socket, and give the totals.
    pub async fn shutdown(mut self) -> GatewaySummary {
        self.stop.send_replace(true);
        let _ = (&mut self.accept).await;
        if let Some((accept, _)) = &mut self.unix {
            let _ = accept.await;
        }
        // Every connection holds a clone of the token; recv() gives None
        // once the last one ended.
        let drained = tokio::time::timeout(DRAIN_TIMEOUT, self.connections_done.recv()).await;
        if drained.is_err() {
            tracing::warn!(
                "gateway: calls still in flight after {DRAIN_TIMEOUT:?}; stopping anyway"
            );
        }
        if let Some(recorder) = &self.shared.recorder {
            recorder.close(DRAIN_TIMEOUT).await;
        }
        // The socket file goes with it.
        self.unix = None;
        self.summary()
    }
}

/// 24 random bytes as 48 hex characters.
fn new_secret() -> Result<String, GatewayError> {
    let mut bytes = [0u8; 24];
    getrandom::fill(&mut bytes).map_err(|e| GatewayError::Secret(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
