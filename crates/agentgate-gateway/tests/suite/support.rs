//! What the tests share: a gateway started on a config, an HTTP client,
//! a raw upstream that records what it was sent, and bounded waits.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agentgate_gateway::{Gateway, GatewayConfig, GatewayNotice, KeyMode};
use agentgate_protocol::ModelCallEvent;
use bytes::Bytes;
use http::{HeaderMap, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc::UnboundedReceiver;

/// The longest any test waits for one thing.
pub const WAIT: Duration = Duration::from_secs(20);

/// An Anthropic Messages request body asking for a stream.
pub const ANTHROPIC_STREAM: &str = r#"{"model":"claude-sonnet-4-5","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hello"}]}"#;

/// A gateway and its notices.
pub struct Gw {
    pub gateway: Gateway,
    pub notices: UnboundedReceiver<GatewayNotice>,
}

impl Gw {
    pub async fn start(cfg: GatewayConfig) -> Gw {
        let (gateway, notices) = Gateway::start(cfg).await.unwrap();
        Gw { gateway, notices }
    }

    /// `<base>/<rest>`.
    pub fn url(&self, rest: &str) -> String {
        format!("{}{rest}", self.gateway.base_url())
    }

    /// The next notice (bounded wait).
    pub async fn notice(&mut self) -> GatewayNotice {
        tokio::time::timeout(WAIT, self.notices.recv())
            .await
            .expect("a notice in time")
            .expect("the gateway is still running")
    }

    /// The next model call event (bounded wait).
    pub async fn call(&mut self) -> ModelCallEvent {
        match self.notice().await {
            GatewayNotice::Call(event) => event,
            other => panic!("expected a call, got {other:?}"),
        }
    }
}

/// A config for `upstream` with the key a stub for `sk-real-0123`.
pub fn api_key_config(upstream: &str) -> GatewayConfig {
    GatewayConfig::new(
        upstream,
        KeyMode::ApiKey {
            real: "sk-real-0123".into(),
            stub: "stub-key-for-this-run".into(),
        },
    )
}

pub type HttpClient = Client<HttpConnector, Full<Bytes>>;

pub fn client() -> HttpClient {
    Client::builder(TokioExecutor::new()).build_http()
}

/// A request to `url` with `headers` and `body` (POST when there is a body).
pub fn request(url: &str, headers: &[(&str, &str)], body: Option<&str>) -> Request<Full<Bytes>> {
    let mut builder = Request::builder()
        .method(if body.is_some() { "POST" } else { "GET" })
        .uri(url);
    for (name, value) in headers {
        builder = builder.header(*name, *value);
    }
    builder
        .body(Full::new(Bytes::from(body.unwrap_or_default().to_owned())))
        .unwrap()
}

/// Send and read the whole answer.
pub async fn send(req: Request<Full<Bytes>>) -> (StatusCode, HeaderMap, Bytes) {
    let response = tokio::time::timeout(WAIT, client().request(req))
        .await
        .expect("an answer in time")
        .expect("an answer");
    let (parts, body) = response.into_parts();
    let body = tokio::time::timeout(WAIT, body.collect())
        .await
        .expect("the body in time")
        .expect("a whole body")
        .to_bytes();
    (parts.status, parts.headers, body)
}

/// One request as a raw upstream read it.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The request line and headers, as text.
    pub head: String,
    pub body: Vec<u8>,
}

/// Read one HTTP/1.1 request (head, then a `content-length` body).
pub async fn read_request<S: AsyncRead + Unpin>(stream: &mut S) -> Option<Seen> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (name, value) = l.split_once(':')?;
            name.eq_ignore_ascii_case("content-length")
                .then(|| value.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some(Seen { head, body })
}

/// A raw upstream that records each request and answers every one with
/// `response` (a whole HTTP/1.1 response, keep-alive).
pub struct RawUpstream {
    pub addr: SocketAddr,
    pub seen: Arc<Mutex<Vec<Seen>>>,
}

impl RawUpstream {
    pub async fn start(response: &'static str) -> RawUpstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let log = log.clone();
                tokio::spawn(async move {
                    while let Some(request) = read_request(&mut stream).await {
                        log.lock().unwrap().push(request);
                        if stream.write_all(response.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        RawUpstream { addr, seen }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// A whole JSON answer.
pub const OK_JSON: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{\"ok\":true}";

/// A listener that accepts and holds each connection, never answering.
pub async fn silent_upstream() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held: Vec<TcpStream> = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    addr
}
