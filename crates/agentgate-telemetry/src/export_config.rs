//! Whether traces are exported, and where: read from the standard
//! OpenTelemetry variables, once, by [`ExportConfig::from_vars`].
//!
//! Export is off unless configured: it is on when an OTLP endpoint is
//! named (`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
//! `OTEL_EXPORTER_OTLP_ENDPOINT`) or `OTEL_TRACES_EXPORTER=otlp` asks for
//! the default one, and off whatever else says when `OTEL_SDK_DISABLED=true`
//! or `OTEL_TRACES_EXPORTER=none`. The protocol is
//! `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`,
//! else `http/protobuf` (the specification's default); `grpc` is the
//! other one. The headers (`OTEL_EXPORTER_OTLP_HEADERS`,
//! `..._TRACES_HEADERS`) are read by the exporter itself and never kept
//! here: they may hold a collector's key, and nothing here is logged with
//! them.

use std::fmt;

/// The protocol of the OTLP export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OtlpProtocol {
    /// gRPC (`grpc`), port 4317 by default.
    Grpc,
    /// HTTP with protobuf bodies (`http/protobuf`), port 4318 by default.
    HttpProtobuf,
}

impl OtlpProtocol {
    /// The value of `OTEL_EXPORTER_OTLP_PROTOCOL` that names it.
    pub fn as_str(self) -> &'static str {
        match self {
            OtlpProtocol::Grpc => "grpc",
            OtlpProtocol::HttpProtobuf => "http/protobuf",
        }
    }
}

/// Why the variables ask for an export this build cannot do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportConfigError {
    /// A protocol other than `grpc` and `http/protobuf` (`http/json`).
    #[error("OTEL_EXPORTER_OTLP_PROTOCOL `{0}` is not supported: use `grpc` or `http/protobuf`")]
    Protocol(String),
    /// An exporter other than `otlp` and `none`.
    #[error("OTEL_TRACES_EXPORTER `{0}` is not supported: use `otlp` or `none`")]
    Exporter(String),
}

/// Where traces go (see the module notes).
#[derive(Clone, PartialEq, Eq)]
pub struct ExportConfig {
    /// The protocol.
    pub protocol: OtlpProtocol,
    /// The traces endpoint: for HTTP the whole URL (`.../v1/traces`), for
    /// gRPC the collector's address.
    pub traces_endpoint: String,
    /// The endpoint as given in `OTEL_EXPORTER_OTLP_ENDPOINT` (without the
    /// signal's path), when it was: what a CLI's own exporter is given.
    pub base_endpoint: Option<String>,
    /// `OTEL_SERVICE_NAME`, else `agentgate`.
    pub service_name: String,
}

impl fmt::Debug for ExportConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Endpoints are addresses, not secrets (the headers are not kept).
        f.debug_struct("ExportConfig")
            .field("protocol", &self.protocol.as_str())
            .field("traces_endpoint", &self.traces_endpoint)
            .field("service_name", &self.service_name)
            .finish()
    }
}

/// The variables this module reads (the exporter reads the headers and
/// `OTEL_EXPORTER_OTLP_TIMEOUT`; the batch processor `OTEL_BSP_*`).
pub const READ_VARIABLES: &[&str] = &[
    "OTEL_SDK_DISABLED",
    "OTEL_TRACES_EXPORTER",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_SERVICE_NAME",
];

impl ExportConfig {
    /// The configuration the variables given by `var` describe: `Ok(None)`
    /// when export is off (see the module notes).
    pub fn from_vars(
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<ExportConfig>, ExportConfigError> {
        let var = |name: &str| {
            var(name)
                .map(|v| v.trim().to_owned())
                .filter(|v| !v.is_empty())
        };
        if var("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let asked = match var("OTEL_TRACES_EXPORTER") {
            None => false,
            Some(v) if v.eq_ignore_ascii_case("none") => return Ok(None),
            Some(v) if v.eq_ignore_ascii_case("otlp") => true,
            Some(v) => return Err(ExportConfigError::Exporter(v)),
        };
        let traces = var("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
        let base = var("OTEL_EXPORTER_OTLP_ENDPOINT");
        if traces.is_none() && base.is_none() && !asked {
            return Ok(None);
        }
        let protocol = match var("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
            .or_else(|| var("OTEL_EXPORTER_OTLP_PROTOCOL"))
            .as_deref()
        {
            None | Some("http/protobuf") => OtlpProtocol::HttpProtobuf,
            Some("grpc") => OtlpProtocol::Grpc,
            Some(other) => return Err(ExportConfigError::Protocol(other.to_owned())),
        };
        let traces_endpoint = match (&traces, &base, protocol) {
            (Some(t), _, _) => t.clone(),
            (None, Some(b), OtlpProtocol::HttpProtobuf) => {
                format!("{}/v1/traces", b.trim_end_matches('/'))
            }
            (None, Some(b), OtlpProtocol::Grpc) => b.clone(),
            (None, None, OtlpProtocol::HttpProtobuf) => "http://localhost:4318/v1/traces".into(),
            (None, None, OtlpProtocol::Grpc) => "http://localhost:4317".into(),
        };
        Ok(Some(ExportConfig {
            protocol,
            traces_endpoint,
            base_endpoint: base,
            service_name: var("OTEL_SERVICE_NAME").unwrap_or_else(|| "agentgate".into()),
        }))
    }

    /// The configuration of this process's environment.
    pub fn from_env() -> Result<Option<ExportConfig>, ExportConfigError> {
        ExportConfig::from_vars(|name| std::env::var(name).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&str, &str)]) -> Result<Option<ExportConfig>, ExportConfigError> {
        ExportConfig::from_vars(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn without_variables_nothing_is_exported() {
        assert_eq!(config(&[]), Ok(None));
        // A protocol or a service name alone names no collector.
        assert_eq!(
            config(&[
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
                ("OTEL_SERVICE_NAME", "x")
            ]),
            Ok(None)
        );
    }

    #[test]
    fn an_endpoint_turns_export_on_and_the_signal_path_is_added_for_http() {
        let c = config(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318/")])
            .unwrap()
            .unwrap();
        assert_eq!(c.protocol, OtlpProtocol::HttpProtobuf);
        assert_eq!(c.traces_endpoint, "http://h:4318/v1/traces");
        assert_eq!(c.service_name, "agentgate");
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(
            (c.protocol, c.traces_endpoint.as_str()),
            (OtlpProtocol::Grpc, "http://h:4317")
        );
        // The traces endpoint is taken as it is.
        let c = config(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://t:1/x"),
        ])
        .unwrap()
        .unwrap();
        assert_eq!(c.traces_endpoint, "http://t:1/x");
    }

    #[test]
    fn disabled_or_none_wins_and_unknown_values_are_refused() {
        let on = ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://h:4318");
        assert_eq!(config(&[on, ("OTEL_SDK_DISABLED", "true")]), Ok(None));
        assert_eq!(config(&[on, ("OTEL_TRACES_EXPORTER", "none")]), Ok(None));
        assert!(matches!(
            config(&[on, ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")]),
            Err(ExportConfigError::Protocol(_))
        ));
        assert!(matches!(
            config(&[on, ("OTEL_TRACES_EXPORTER", "zipkin")]),
            Err(ExportConfigError::Exporter(_))
        ));
        let default = config(&[("OTEL_TRACES_EXPORTER", "otlp")])
            .unwrap()
            .unwrap();
        assert_eq!(default.traces_endpoint, "http://localhost:4318/v1/traces");
    }
}
