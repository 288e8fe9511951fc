//! The upstream: its URL taken apart, and the pooled HTTP/1.1 client that
//! reaches it (plain TCP, TLS, either through a proxy), with the connector
//! that dials it.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::Uri;
use http_body_util::Full;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::{Connected, Connection};
use hyper_util::rt::{TokioExecutor, TokioIo};
use rustls_pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use super::GatewayError;
use super::proxy_connect::{self, ProxyRoute};
use crate::config::GatewayConfig;

/// How long an idle pooled connection to the upstream is kept.
const POOL_IDLE: Duration = Duration::from_secs(90);

/// The client the gateway forwards with.
pub(crate) type UpstreamClient = Client<Connector, Full<Bytes>>;

/// The upstream of one gateway.
#[derive(Debug)]
pub(crate) struct Upstream {
    /// `http` or `https`.
    scheme: &'static str,
    /// `host[:port]` as the URL gave it (the `host` header).
    authority: String,
    /// `scheme://host:port`.
    origin: String,
    /// The URL's path without its trailing `/` (`""` for none).
    base_path: String,
    /// `Proxy-Authorization` for each request, when an `http://` upstream
    /// goes through a proxy that wants it (a tunnel sends it in CONNECT).
    proxy_authorization: Option<http::HeaderValue>,
    client: UpstreamClient,
}

impl Upstream {
    /// The upstream of `cfg`: its URL checked, its TLS settings and proxy
    /// chosen.
    pub fn new(cfg: &GatewayConfig) -> Result<Upstream, GatewayError> {
        let bad = |reason: &str| GatewayError::UpstreamUrl {
            url: cfg.upstream.clone(),
            reason: reason.to_owned(),
        };
        let uri: Uri = cfg
            .upstream
            .parse()
            .map_err(|e: http::uri::InvalidUri| bad(&e.to_string()))?;
        let scheme = match uri.scheme_str() {
            Some("http") => "http",
            Some("https") => "https",
            _ => return Err(bad("it must start with http:// or https://")),
        };
        let authority = uri.authority().ok_or_else(|| bad("it names no host"))?;
        if authority.as_str().contains('@') {
            return Err(bad("it must not carry a user or password"));
        }
        let host = authority.host();
        if host.is_empty() {
            return Err(bad("it names no host"));
        }
        let port = authority
            .port_u16()
            .unwrap_or(if scheme == "https" { 443 } else { 80 });
        let tls = match scheme {
            "https" => Some(TlsConnector::from(super::tls::client_config(
                cfg.ca_file.as_deref(),
            )?)),
            _ => None,
        };
        let proxy = proxy_connect::proxy_for(scheme, host, &cfg.proxy_env)?;
        if let Some(route) = &proxy {
            tracing::debug!(proxy = %format!("{}:{}", route.host, route.port), "gateway: upstream through a proxy");
        }
        let proxy_authorization = match (&proxy, scheme) {
            (Some(route), "http") => route.authorization.clone(),
            _ => None,
        };
        let connector = Connector {
            tls,
            proxy: proxy.map(Arc::new),
        };
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(POOL_IDLE)
            .build(connector);
        Ok(Upstream {
            scheme,
            authority: authority.as_str().to_owned(),
            origin: format!("{scheme}://{host}:{port}"),
            base_path: uri.path().trim_end_matches('/').to_owned(),
            proxy_authorization,
            client,
        })
    }

    /// `scheme://host:port`.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The `host` header of a request to it.
    pub fn authority(&self) -> &str {
        &self.authority
    }

    /// The upstream URI of a request whose path after the secret is `rest`
    /// (empty or starting with `/`), with `query`.
    pub fn uri_for(&self, rest: &str, query: Option<&str>) -> Result<Uri, http::Error> {
        let mut path_and_query = format!("{}{rest}", self.base_path);
        if path_and_query.is_empty() {
            path_and_query.push('/');
        }
        if let Some(query) = query {
            path_and_query.push('?');
            path_and_query.push_str(query);
        }
        Uri::builder()
            .scheme(self.scheme)
            .authority(self.authority.as_str())
            .path_and_query(path_and_query)
            .build()
    }

    /// The `Proxy-Authorization` each request carries (a plain `http://`
    /// upstream through a proxy with a user).
    pub fn proxy_authorization(&self) -> Option<&http::HeaderValue> {
        self.proxy_authorization.as_ref()
    }

    /// The pooled client.
    pub fn client(&self) -> &UpstreamClient {
        &self.client
    }
}

/// Dials the upstream: TCP (through the proxy when there is one), then TLS
/// for `https://`.
#[derive(Clone)]
pub(crate) struct Connector {
    tls: Option<TlsConnector>,
    proxy: Option<Arc<ProxyRoute>>,
}

impl std::fmt::Debug for Connector {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connector")
            .field("tls", &self.tls.is_some())
            .field("proxy", &self.proxy)
            .finish()
    }
}

impl tower_service::Service<Uri> for Connector {
    type Response = TokioIo<UpstreamStream>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Self::Response>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { this.connect(uri).await.map(TokioIo::new) })
    }
}

impl Connector {
    async fn connect(self, uri: Uri) -> io::Result<UpstreamStream> {
        let https = uri.scheme_str() == Some("https");
        let host = uri
            .host()
            .ok_or_else(|| io::Error::other("the upstream URI has no host"))?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_owned();
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let tcp = match &self.proxy {
            Some(route) => {
                let mut tcp = dial(&route.host, route.port).await.map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("proxy {}:{} unreachable: {e}", route.host, route.port),
                    )
                })?;
                if https {
                    proxy_connect::open_tunnel(&mut tcp, &host, port, route).await?;
                }
                tcp
            }
            None => dial(&host, port).await?,
        };
        match (&self.tls, https) {
            (Some(tls), true) => {
                let name = ServerName::try_from(host.clone()).map_err(|e| {
                    io::Error::new(io::ErrorKind::InvalidInput, format!("{host:?}: {e}"))
                })?;
                let stream = tls.connect(name, tcp).await.map_err(|e| {
                    io::Error::new(e.kind(), format!("TLS with {host}:{port}: {e}"))
                })?;
                Ok(UpstreamStream::Tls(Box::new(stream)))
            }
            (None, true) => Err(io::Error::other("no TLS settings for an https upstream")),
            (_, false) => Ok(UpstreamStream::Plain {
                tcp,
                proxied: self.proxy.is_some(),
            }),
        }
    }
}

/// TCP to `host:port`, Nagle off (small SSE frames go out at once).
async fn dial(host: &str, port: u16) -> io::Result<TcpStream> {
    let tcp = TcpStream::connect((host, port)).await?;
    tcp.set_nodelay(true)?;
    Ok(tcp)
}

/// A connection to the upstream.
#[derive(Debug)]
pub(crate) enum UpstreamStream {
    /// Plain TCP; `proxied` when it goes to an HTTP proxy (the request is
    /// then sent in absolute form).
    Plain { tcp: TcpStream, proxied: bool },
    /// TLS (direct or through a CONNECT tunnel).
    Tls(Box<TlsStream<TcpStream>>),
}

impl Connection for UpstreamStream {
    fn connected(&self) -> Connected {
        match self {
            Self::Plain { proxied, .. } => Connected::new().proxy(*proxied),
            Self::Tls(_) => Connected::new(),
        }
    }
}

impl AsyncRead for UpstreamStream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain { tcp, .. } => Pin::new(tcp).poll_read(cx, buf),
            Self::Tls(tls) => Pin::new(tls.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for UpstreamStream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain { tcp, .. } => Pin::new(tcp).poll_write(cx, buf),
            Self::Tls(tls) => Pin::new(tls.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain { tcp, .. } => Pin::new(tcp).poll_write_vectored(cx, bufs),
            Self::Tls(tls) => Pin::new(tls.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Self::Plain { tcp, .. } => tcp.is_write_vectored(),
            Self::Tls(tls) => tls.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain { tcp, .. } => Pin::new(tcp).poll_flush(cx),
            Self::Tls(tls) => Pin::new(tls.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain { tcp, .. } => Pin::new(tcp).poll_shutdown(cx),
            Self::Tls(tls) => Pin::new(tls.as_mut()).poll_shutdown(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::KeyMode;

    fn upstream(url: &str) -> Result<Upstream, GatewayError> {
        Upstream::new(&GatewayConfig::new(url, KeyMode::Passthrough))
    }

    #[tokio::test]
    async fn the_rest_of_the_path_is_appended_to_the_upstreams_path() {
        let up = upstream("http://127.0.0.1:9/v1/").unwrap();
        assert_eq!(up.origin(), "http://127.0.0.1:9");
        let uri = up.uri_for("/responses", Some("x=1")).unwrap();
        assert_eq!(uri.to_string(), "http://127.0.0.1:9/v1/responses?x=1");
        let bare = upstream("http://localhost").unwrap();
        assert_eq!(bare.origin(), "http://localhost:80");
        assert_eq!(
            bare.uri_for("", None).unwrap().to_string(),
            "http://localhost/"
        );
    }

    #[tokio::test]
    async fn urls_that_are_not_http_are_refused() {
        for url in ["ftp://x", "x", "http://u:p@host", ""] {
            assert!(
                matches!(upstream(url), Err(GatewayError::UpstreamUrl { .. })),
                "{url}"
            );
        }
    }
}
