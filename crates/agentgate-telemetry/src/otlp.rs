//! The OTLP exporter (the crate's `otlp` feature): HTTP with protobuf
//! bodies over hyper and rustls (ring, the system's roots), or gRPC over
//! tonic, behind the SDK's batch span processor. Each export runs on a
//! one-thread runtime of its own ([`OnRuntime`]), so that the exporter's
//! I/O never runs on a run's or the server's threads; the processor's
//! thread only waits for it. The exporter reads
//! `OTEL_EXPORTER_OTLP_HEADERS` (and `..._TRACES_HEADERS`) and
//! `OTEL_EXPORTER_OTLP_TIMEOUT` itself; the processor `OTEL_BSP_*`.

use std::sync::Arc;
use std::time::Duration;

use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig, WithTonicConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SpanData, SpanExporter};

use crate::error::TelemetryError;
use crate::export_config::{ExportConfig, OtlpProtocol};

/// The batch processor over the exporter for `config`, and the runtime
/// its exports run on.
pub(crate) fn processor(
    config: &ExportConfig,
    resource: &Resource,
) -> Result<(BatchSpanProcessor, tokio::runtime::Runtime), TelemetryError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("agentgate-otlp")
        .enable_all()
        .build()
        .map_err(TelemetryError::Runtime)?;
    let exporter = {
        // tonic's channel starts its worker on the current runtime.
        let _in_runtime = runtime.enter();
        build_exporter(config)?
    };
    let mut exporter = OnRuntime {
        inner: Arc::new(exporter),
        handle: runtime.handle().clone(),
    };
    exporter.set_resource(resource);
    let processor = BatchSpanProcessor::builder(exporter)
        .with_batch_config(BatchConfigBuilder::default().build())
        .build();
    Ok((processor, runtime))
}

/// The OTLP exporter for `config`.
fn build_exporter(
    config: &ExportConfig,
) -> Result<opentelemetry_otlp::SpanExporter, TelemetryError> {
    let endpoint = config.traces_endpoint.clone();
    let built = match config.protocol {
        OtlpProtocol::HttpProtobuf => opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(http_client()?)
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(endpoint)
            .build(),
        OtlpProtocol::Grpc => {
            let mut builder = opentelemetry_otlp::SpanExporter::builder()
                .with_tonic()
                .with_protocol(Protocol::Grpc)
                .with_endpoint(endpoint.clone());
            if endpoint.starts_with("https://") {
                builder = builder.with_tls_config(
                    opentelemetry_otlp::tonic_types::transport::ClientTlsConfig::new()
                        .with_native_roots(),
                );
            }
            builder.build()
        }
    };
    built.map_err(|e| TelemetryError::Exporter(e.to_string()))
}

/// The HTTP exporter's client: hyper over rustls (ring, the system's
/// roots), `http://` endpoints as they are.
fn http_client() -> Result<impl opentelemetry_http::HttpClient + 'static, TelemetryError> {
    let connector = hyper_rustls::HttpsConnectorBuilder::new()
        .with_native_roots()
        .or_else(|_| {
            // No system roots: https cannot be verified, http still works.
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map(|b| {
                    hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(
                        b.with_root_certificates(rustls::RootCertStore::empty())
                            .with_no_client_auth(),
                    )
                })
        })
        .map_err(|e| TelemetryError::Exporter(e.to_string()))?
        .https_or_http()
        .enable_http1()
        .build();
    Ok(opentelemetry_http::hyper::HyperClient::new(
        connector,
        Duration::from_secs(10),
        None,
    ))
}

/// The OTLP exporter, each export run on the telemetry runtime (the batch
/// processor's thread only waits for it).
#[derive(Debug)]
struct OnRuntime {
    inner: Arc<opentelemetry_otlp::SpanExporter>,
    handle: tokio::runtime::Handle,
}

impl SpanExporter for OnRuntime {
    fn export(
        &self,
        batch: Vec<SpanData>,
    ) -> impl std::future::Future<Output = OTelSdkResult> + Send {
        let inner = self.inner.clone();
        let task = self.handle.spawn(async move { inner.export(batch).await });
        async move {
            task.await
                .unwrap_or_else(|e| Err(OTelSdkError::InternalFailure(e.to_string())))
        }
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.set_resource(resource);
        }
    }
}
