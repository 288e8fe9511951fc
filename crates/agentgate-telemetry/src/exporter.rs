//! The export: one [`Telemetry`] per process, made from the environment
//! by [`init_from_env`] when export is configured (never otherwise: with
//! export off no exporter, runtime or thread exists and no span is built).
//!
//! Spans are handed to the SDK's batch span processor, whose bounded queue
//! (`OTEL_BSP_MAX_QUEUE_SIZE`, 2048) drops spans rather than wait when the
//! collector falls behind, and whose thread exports batches in the
//! background (`OTEL_BSP_SCHEDULE_DELAY`, 5 s). The OTLP exporter (HTTP
//! with hyper and rustls, or gRPC with tonic) runs on a small runtime of
//! its own, so that its I/O never runs on a run's or the server's threads.
//! [`shutdown`] is the bounded flush at the end of `agentgate run` and at
//! serve's and worker's shutdown: it waits at most its `within` for the
//! queue to be sent, then lets the process go on without it.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig, WithTonicConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{
    BatchConfigBuilder, BatchSpanProcessor, SpanData, SpanExporter, SpanProcessor,
};

use crate::export_config::{ExportConfig, OtlpProtocol};

/// Why the exporter could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TelemetryError {
    /// The variables ask for what this build cannot do.
    #[error(transparent)]
    Config(#[from] crate::export_config::ExportConfigError),
    /// The exporter's runtime did not start.
    #[error("failed to start the trace exporter's runtime: {0}")]
    Runtime(std::io::Error),
    /// The OTLP exporter refused its configuration (an endpoint it cannot
    /// read, TLS it cannot set up).
    #[error("failed to set up the OTLP trace exporter: {0}")]
    Exporter(String),
}

/// The process's trace export (see the module notes).
#[derive(Debug)]
pub struct Telemetry {
    config: ExportConfig,
    processor: BatchSpanProcessor,
    /// Where the exporter's I/O runs; kept for the process's life.
    _runtime: tokio::runtime::Runtime,
}

static TELEMETRY: OnceLock<Option<Telemetry>> = OnceLock::new();

/// Set up the export from this process's environment, once: `None` when
/// it is off, or when it cannot be set up (a warning says why; a run never
/// fails for its traces).
pub fn init_from_env() -> Option<&'static Telemetry> {
    TELEMETRY
        .get_or_init(
            || match Telemetry::from_vars(|name| std::env::var(name).ok()) {
                Ok(telemetry) => telemetry,
                Err(e) => {
                    tracing::warn!("{e}; traces are not exported");
                    None
                }
            },
        )
        .as_ref()
}

/// The process's export, when [`init_from_env`] set one up.
pub fn current() -> Option<&'static Telemetry> {
    TELEMETRY.get().and_then(Option::as_ref)
}

/// Send what is queued, waiting at most `within`, and stop the export
/// (the end of `agentgate run`, serve's and worker's shutdown). Nothing
/// when export is off.
pub fn shutdown(within: Duration) {
    if let Some(t) = current()
        && let Err(e) = t.processor.shutdown_with_timeout(within)
    {
        tracing::warn!("traces not all exported: {e}");
    }
}

impl Telemetry {
    /// The export the variables given by `var` configure, started; `None`
    /// (nothing built) when they configure none.
    pub fn from_vars(
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Telemetry>, TelemetryError> {
        match ExportConfig::from_vars(var)? {
            None => Ok(None),
            Some(config) => Telemetry::start(config).map(Some),
        }
    }

    /// The export `config` describes, started.
    pub fn start(config: ExportConfig) -> Result<Telemetry, TelemetryError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("agentgate-otlp")
            .enable_all()
            .build()
            .map_err(TelemetryError::Runtime)?;
        let exporter = {
            // tonic's channel starts its worker on the current runtime.
            let _in_runtime = runtime.enter();
            build_exporter(&config)?
        };
        let mut exporter = OnRuntime {
            inner: Arc::new(exporter),
            handle: runtime.handle().clone(),
        };
        let resource = Resource::builder()
            .with_service_name(config.service_name.clone())
            .with_attribute(opentelemetry::KeyValue::new(
                "service.version",
                env!("CARGO_PKG_VERSION"),
            ))
            .build();
        exporter.set_resource(&resource);
        let processor = BatchSpanProcessor::builder(exporter)
            .with_batch_config(BatchConfigBuilder::default().build())
            .build();
        tracing::debug!(
            protocol = config.protocol.as_str(),
            endpoint = config.traces_endpoint,
            "exporting traces"
        );
        Ok(Telemetry {
            config,
            processor,
            _runtime: runtime,
        })
    }

    /// Where the traces go.
    pub fn config(&self) -> &ExportConfig {
        &self.config
    }

    /// Queue finished spans for export (never waits: a full queue drops).
    pub(crate) fn submit(&self, spans: Vec<SpanData>) {
        for span in spans {
            self.processor.on_end(span);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_otel_variables_no_exporter_is_built() {
        // Whatever this process's environment holds, no variable given.
        let built = Telemetry::from_vars(|_| None);
        assert!(matches!(built, Ok(None)));
        assert!(current().is_none(), "nothing was initialised");
    }

    #[test]
    fn a_configured_endpoint_builds_the_exporter_without_reaching_it() {
        for protocol in ["grpc", "http/protobuf"] {
            let vars = [
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol),
            ];
            let built = Telemetry::from_vars(|name| {
                vars.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| (*v).to_owned())
            });
            let telemetry = built.ok().flatten();
            assert!(telemetry.is_some(), "{protocol}");
        }
    }
}
