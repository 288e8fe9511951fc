//! `agentgate worker --metrics-listen`: a listener of its own that serves
//! `GET /metrics` and nothing else, behind the same bearer token as
//! `serve`'s API (chosen the same way, [`token::choose`]), through the
//! same gate (every path needs the token) and accept loop (the default
//! [`ConnLimits`]). It is the worker's
//! [`MetricsExport`]: the executor crate's `Worker` has no HTTP of its own.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use agentgate_executor::{MetricsExport, MetricsSource};
use axum::Router;
use axum::extract::{Request, State};
use axum::middleware;
use axum::response::Response;
use axum::routing::get;

use super::endpoint::page;
use crate::conn::ConnLimits;
use crate::error::{ApiError, ServeError};
use crate::gate::Gate;
use crate::token::{self, Token, TokenSource};

/// `agentgate worker --metrics-listen`'s listener, bound and its token
/// chosen (`token::choose`, as `serve` does), not yet serving.
#[derive(Debug)]
pub struct MetricsListener {
    listener: std::net::TcpListener,
    addr: SocketAddr,
    token: Token,
    token_source: TokenSource,
}

impl MetricsListener {
    /// Parse `listen` (`IP:PORT`), choose the token (a non-loopback
    /// address needs an explicit one) and bind.
    pub fn bind(listen: &str, token_file: Option<PathBuf>) -> Result<MetricsListener, ServeError> {
        let addr = crate::listen::parse_listen(listen)?;
        let loopback = crate::listen::is_loopback(addr.ip());
        let (token, token_source) = token::choose(addr, loopback, token_file)?;
        let listener = std::net::TcpListener::bind(addr)
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .map_err(|source| ServeError::Bind { addr, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| ServeError::Bind { addr, source })?;
        Ok(MetricsListener {
            listener,
            addr,
            token,
            token_source,
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where the token came from (its path, never its value).
    pub fn token_source(&self) -> &TokenSource {
        &self.token_source
    }
}

impl MetricsExport for MetricsListener {
    /// Serve `GET /metrics` of the worker, on the current tokio runtime,
    /// until `stop` turns true.
    fn serve(
        self,
        source: MetricsSource,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<tokio::task::JoinHandle<()>, Box<dyn std::error::Error + Send + Sync>> {
        let addr = self.addr;
        let listener = tokio::net::TcpListener::from_std(self.listener)
            .map_err(|source| ServeError::Bind { addr, source })?;
        let app = Router::new()
            .route("/metrics", get(worker_scrape))
            .fallback(not_found)
            .method_not_allowed_fallback(method_not_allowed)
            .with_state(source)
            .layer(middleware::from_fn_with_state(
                Arc::new(Gate::everything(self.token)),
                crate::gate::gate,
            ));
        Ok(tokio::spawn(crate::conn::serve(
            listener,
            app,
            ConnLimits::default(),
            stop,
        )))
    }
}

async fn worker_scrape(State(source): State<MetricsSource>) -> Response {
    let metrics = source.metrics.clone();
    let now = source.clock.now();
    page(source.store, now, metrics, Some(source.executor)).await
}

async fn not_found(request: Request) -> ApiError {
    ApiError::not_found(request.method().as_str(), request.uri().path())
}

async fn method_not_allowed(request: Request) -> ApiError {
    ApiError::method_not_allowed(request.method().as_str(), request.uri().path())
}
