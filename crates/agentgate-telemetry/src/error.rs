//! Why the trace export could not be set up.

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
    /// This build has no OTLP exporter (the crate's `otlp` feature).
    #[error("this build of agentgate cannot export traces (built without the `otlp` feature)")]
    NoExporter,
}
