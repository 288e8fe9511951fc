//! The export: one [`Telemetry`] per process, made from the environment
//! by [`init_from_env`] when export is configured (never otherwise: with
//! export off no exporter, runtime or thread exists and no span is built).
//!
//! Spans are handed to the SDK's batch span processor, whose bounded queue
//! (`OTEL_BSP_MAX_QUEUE_SIZE`, 2048) drops spans rather than wait when the
//! collector falls behind, and whose thread exports batches in the
//! background (`OTEL_BSP_SCHEDULE_DELAY`, 5 s). The OTLP exporter (HTTP
//! with hyper and rustls, or gRPC with tonic; `otlp.rs`, the crate's
//! `otlp` feature: without it no export can be set up) runs on a small
//! runtime of its own, so that its I/O never runs on a run's or the
//! server's threads. [`shutdown`] is the bounded flush at the end of
//! `agentgate run` and at serve's and worker's shutdown: it waits at most
//! its `within` for the queue to be sent, then lets the process go on
//! without it.

use std::sync::OnceLock;
use std::time::Duration;

use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{BatchSpanProcessor, SpanData, SpanProcessor};

use crate::error::TelemetryError;
use crate::export_config::ExportConfig;

/// The process's trace export (see the module notes).
#[derive(Debug)]
pub struct Telemetry {
    config: ExportConfig,
    processor: BatchSpanProcessor,
    /// Where the exporter's I/O runs; kept for the process's life.
    _runtime: Option<tokio::runtime::Runtime>,
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

/// The batch processor over the OTLP exporter for `config`, and the
/// runtime its exports run on.
#[cfg(feature = "otlp")]
fn processor(
    config: &ExportConfig,
    resource: &Resource,
) -> Result<(BatchSpanProcessor, Option<tokio::runtime::Runtime>), TelemetryError> {
    let (processor, runtime) = crate::otlp::processor(config, resource)?;
    Ok((processor, Some(runtime)))
}

/// Without the OTLP exporter there is nothing to export with.
#[cfg(not(feature = "otlp"))]
fn processor(
    _config: &ExportConfig,
    _resource: &Resource,
) -> Result<(BatchSpanProcessor, Option<tokio::runtime::Runtime>), TelemetryError> {
    Err(TelemetryError::NoExporter)
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
        let resource = Resource::builder()
            .with_service_name(config.service_name.clone())
            .with_attribute(opentelemetry::KeyValue::new(
                "service.version",
                env!("CARGO_PKG_VERSION"),
            ))
            .build();
        let (processor, runtime) = processor(&config, &resource)?;
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

    #[cfg(feature = "otlp")]
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
