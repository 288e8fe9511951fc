//! A small OTLP trace receiver for the trace tests, on 127.0.0.1:0: over
//! HTTP (`POST /v1/traces`, protobuf bodies decoded with the collector's
//! own messages from `opentelemetry-proto`) or gRPC (a tonic
//! `TraceService`). Other signals a CLI may send (`/v1/logs`,
//! `/v1/metrics`) are answered and dropped, their paths noted. The spans received are kept
//! flat, with their resource's `service.name`; a test waits for the ones
//! it expects with a bounded deadline ([`Receiver::wait_for`]: woken by
//! each export, never by a sleep).

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;
use serde_json::{Value, json};

/// One span as received.
#[derive(Debug, Clone)]
pub struct Span {
    pub service: String,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root.
    pub parent_span_id: String,
    pub name: String,
    /// OTLP's kind number (1 internal, 3 client, 5 consumer).
    pub kind: i32,
    pub start_ns: u64,
    pub end_ns: u64,
    pub attributes: BTreeMap<String, Value>,
    /// OTLP's status code (0 unset, 1 ok, 2 error) and message.
    pub status: (i32, String),
}

impl Span {
    pub fn attr(&self, key: &str) -> &Value {
        self.attributes.get(key).unwrap_or(&Value::Null)
    }
}

#[derive(Default)]
struct Received {
    spans: Vec<Span>,
    /// The `authorization` header of each export request (HTTP or gRPC).
    authorizations: Vec<String>,
    /// The paths of the other signals posted over HTTP (`/v1/logs`, ...).
    other_paths: Vec<String>,
}

type Shared = Arc<(Mutex<Received>, Condvar)>;

/// A receiver running on a runtime of its own.
pub struct Receiver {
    /// What `OTEL_EXPORTER_OTLP_ENDPOINT` is set to.
    pub endpoint: String,
    received: Shared,
    _runtime: tokio::runtime::Runtime,
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn keep(received: &Shared, request: ExportTraceServiceRequest, authorization: Option<String>) {
    let (lock, bell) = &**received;
    let mut r = lock.lock().unwrap();
    if let Some(a) = authorization {
        r.authorizations.push(a);
    }
    for resource_spans in request.resource_spans {
        let service = resource_spans
            .resource
            .as_ref()
            .and_then(|res| {
                res.attributes
                    .iter()
                    .find(|kv| kv.key == "service.name")
                    .map(|kv| value_of(kv.value.as_ref()))
            })
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                r.spans.push(Span {
                    service: service.clone(),
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: hex(&span.parent_span_id),
                    name: span.name,
                    kind: span.kind,
                    start_ns: span.start_time_unix_nano,
                    end_ns: span.end_time_unix_nano,
                    attributes: attributes(&span.attributes),
                    status: span.status.map(|s| (s.code, s.message)).unwrap_or_default(),
                });
            }
        }
    }
    bell.notify_all();
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn attributes(kvs: &[KeyValue]) -> BTreeMap<String, Value> {
    kvs.iter()
        .map(|kv| (kv.key.clone(), value_of(kv.value.as_ref())))
        .collect()
}

fn value_of(v: Option<&AnyValue>) -> Value {
    match v.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => json!(s),
        Some(any_value::Value::BoolValue(b)) => json!(b),
        Some(any_value::Value::IntValue(i)) => json!(i),
        Some(any_value::Value::DoubleValue(d)) => json!(d),
        Some(other) => json!(format!("{other:?}")),
        None => Value::Null,
    }
}

struct Grpc(Shared);

#[tonic::async_trait]
impl TraceService for Grpc {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let authorization = request
            .metadata()
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        keep(&self.0, request.into_inner(), authorization);
        Ok(tonic::Response::new(ExportTraceServiceResponse::default()))
    }
}

impl Receiver {
    /// A receiver of OTLP over HTTP with protobuf bodies.
    pub fn http() -> Receiver {
        let runtime = runtime();
        let received: Shared = Arc::default();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let shared = received.clone();
        let app = axum::Router::new()
            .route(
                "/v1/traces",
                axum::routing::post(move |headers: HeaderMap, body: Bytes| {
                    let shared = shared.clone();
                    async move {
                        let Ok(request) = ExportTraceServiceRequest::decode(body) else {
                            return (StatusCode::BAD_REQUEST, Vec::new());
                        };
                        let authorization = headers
                            .get("authorization")
                            .and_then(|v| v.to_str().ok())
                            .map(str::to_owned);
                        keep(&shared, request, authorization);
                        (
                            StatusCode::OK,
                            ExportTraceServiceResponse::default().encode_to_vec(),
                        )
                    }
                }),
            )
            // A CLI's logs and metrics: their paths noted, the rest dropped.
            .fallback({
                let shared = received.clone();
                move |uri: axum::http::Uri| {
                    let shared = shared.clone();
                    async move {
                        let (lock, bell) = &*shared;
                        lock.lock().unwrap().other_paths.push(uri.path().to_owned());
                        bell.notify_all();
                        (StatusCode::OK, Vec::<u8>::new())
                    }
                }
            });
        runtime.spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Receiver {
            endpoint,
            received,
            _runtime: runtime,
        }
    }

    /// A receiver of OTLP over gRPC.
    pub fn grpc() -> Receiver {
        let runtime = runtime();
        let received: Shared = Arc::default();
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        let service = TraceServiceServer::new(Grpc(received.clone()));
        runtime.spawn(async move {
            let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener);
            let _ = tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming(incoming)
                .await;
        });
        Receiver {
            endpoint,
            received,
            _runtime: runtime,
        }
    }

    /// The spans received once `done` holds of them, waiting at most
    /// `limit` (then the test fails, showing what came).
    pub fn wait_for(&self, limit: Duration, done: impl Fn(&[Span]) -> bool) -> Vec<Span> {
        let deadline = Instant::now() + limit;
        let (lock, bell) = &*self.received;
        let mut r = lock.lock().unwrap();
        loop {
            if done(&r.spans) {
                return r.spans.clone();
            }
            let now = Instant::now();
            assert!(
                now < deadline,
                "the expected spans did not arrive within {limit:?}; received: {:#?}",
                r.spans
            );
            r = bell.wait_timeout(r, deadline - now).unwrap().0;
        }
    }

    /// Wait (at most `limit`) until another signal was posted to `path`.
    pub fn wait_for_path(&self, limit: Duration, path: &str) {
        let deadline = Instant::now() + limit;
        let (lock, bell) = &*self.received;
        let mut r = lock.lock().unwrap();
        while !r.other_paths.iter().any(|p| p == path) {
            let now = Instant::now();
            assert!(
                now < deadline,
                "nothing posted to {path} within {limit:?}; paths: {:?}",
                r.other_paths
            );
            r = bell.wait_timeout(r, deadline - now).unwrap().0;
        }
    }

    /// The `authorization` headers the exports came with.
    pub fn authorizations(&self) -> Vec<String> {
        self.received.0.lock().unwrap().authorizations.clone()
    }
}

/// The variables that point agentgate at `receiver` over `protocol`
/// (`grpc` or `http/protobuf`), its batches sent within 200 ms; the CLIs'
/// own exports get 30 s rather than agentgate's 1 s bound (on a loaded
/// machine a CLI's last export must not be cut short: the tests wait for
/// it).
pub fn otel_env(receiver: &Receiver, protocol: &str) -> Vec<(String, String)> {
    [
        ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint.clone()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol.to_owned()),
        ("OTEL_BSP_SCHEDULE_DELAY", "200".to_owned()),
        ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "30000".to_owned()),
        ("OTEL_BSP_EXPORT_TIMEOUT", "30000".to_owned()),
        ("OTEL_SHUTDOWN_TIMEOUT_MS", "30000".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// agentgate's own spans (the CLIs' are left out).
pub fn agentgate_spans(spans: &[Span]) -> Vec<&Span> {
    spans.iter().filter(|s| s.service == "agentgate").collect()
}

/// The spans whose parent is `parent`.
pub fn children<'a>(spans: &[&'a Span], parent: &Span) -> Vec<&'a Span> {
    spans
        .iter()
        .copied()
        .filter(|s| s.parent_span_id == parent.span_id)
        .collect()
}

/// The one span named `name`.
pub fn named<'a>(spans: &[&'a Span], name: &str) -> &'a Span {
    let found: Vec<&Span> = spans.iter().copied().filter(|s| s.name == name).collect();
    assert_eq!(found.len(), 1, "one span {name} expected: {spans:#?}");
    found[0]
}
