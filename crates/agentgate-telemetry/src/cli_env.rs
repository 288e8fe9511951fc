//! The trace context and the OTel settings a run's CLIs are given, so that
//! their own telemetry goes to the same collector and, where the CLI reads
//! `TRACEPARENT`, joins the run's trace (under the run's span).
//!
//! Every CLI gets `TRACEPARENT` (and `TRACESTATE`) in its environment: a
//! variable the run sets, so it passes the sandbox's allowlist too. The
//! settings that turn a CLI's own export on are a table by CLI, read off
//! the CLIs (versions in `docs/clis.md`):
//!
//! | CLI | how | joins the trace |
//! |---|---|---|
//! | Claude Code | `CLAUDE_CODE_ENABLE_TELEMETRY=1`, `CLAUDE_CODE_ENHANCED_TELEMETRY_BETA=1` (its spans), `OTEL_TRACES_EXPORTER=otlp`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `..._TRACES_PROTOCOL` | yes: in `-p` mode it reads `TRACEPARENT` |
//! | Codex | `-c otel.trace_exporter={otlp-http={endpoint=..,protocol="binary"}}` or `{otlp-grpc={endpoint=..}}` | yes: it reads `TRACEPARENT` |
//! | Gemini CLI | `GEMINI_TELEMETRY_ENABLED`, `_TARGET=local`, `_OTLP_ENDPOINT`, `_OTLP_PROTOCOL`, `_LOG_PROMPTS=false` | no: logs and metrics only (its spans need `telemetry.traces`, which records tool outputs; left off) |
//!
//! The collector's headers (`OTEL_EXPORTER_OTLP_HEADERS`) are never put on
//! a command line or in the run's `env`: a CLI that inherits agentgate's
//! environment (no `--sandbox`) inherits them; under a sandbox a config's
//! `env_allow: [OTEL_EXPORTER_OTLP_HEADERS]` lets them through. No CLI is
//! asked to log prompts or answers.

use agentgate_core::Plan;

use crate::export_config::{ExportConfig, OtlpProtocol};
use crate::trace_context::TraceContext;

/// How long a CLI's own export may hold its exit when the collector is
/// slow or silent, in milliseconds: its export's timeout (and Claude
/// Code's shutdown timeout) are set to it, unless agentgate's environment
/// sets them (then the CLI gets those values).
pub const CLI_EXPORT_BOUND_MS: u32 = 1000;

/// The variables that bound a CLI's own export (see [`CLI_EXPORT_BOUND_MS`]).
const BOUND_VARIABLES: [&str; 3] = [
    "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
    "OTEL_BSP_EXPORT_TIMEOUT",
    "OTEL_SHUTDOWN_TIMEOUT_MS",
];

/// Give each step's CLI `context` and, by its CLI, the settings of its
/// own export to `config`'s collector. The collector's header values join
/// the run's redaction (`Plan::redact`): a CLI that inherits them and
/// prints its environment never shows them in the events.
pub fn pass_to_clis(plan: &mut Plan, context: &TraceContext, config: &ExportConfig) {
    for name in HEADER_VARIABLES {
        if let Ok(headers) = std::env::var(name) {
            plan.redact.extend(header_values(&headers));
        }
    }
    for step in &mut plan.steps {
        let request = &mut step.request;
        request
            .env
            .push(("TRACEPARENT".into(), context.traceparent()));
        if let Some(state) = &context.tracestate {
            request.env.push(("TRACESTATE".into(), state.clone()));
        }
        let (mut env, args) = cli_settings(step.provider.name(), config);
        if !env.is_empty() || !args.is_empty() {
            let bound = CLI_EXPORT_BOUND_MS.to_string();
            for name in &BOUND_VARIABLES[..2] {
                env.push(((*name).into(), bound.clone()));
            }
        }
        // The user's own bounds win.
        for (name, value) in &mut env {
            if BOUND_VARIABLES.contains(&name.as_str())
                && let Ok(given) = std::env::var(name.as_str())
            {
                *value = given;
            }
        }
        request.env.extend(env);
        request.extra_args.extend(args);
    }
}

/// The settings of `cli`'s own trace export to `config`'s collector: its
/// variables and its arguments (see the module notes).
pub fn cli_settings(cli: &str, config: &ExportConfig) -> (Vec<(String, String)>, Vec<String>) {
    let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
    let endpoint = config.traces_endpoint.as_str();
    match cli {
        "claude" => (
            vec![
                pair("CLAUDE_CODE_ENABLE_TELEMETRY", "1"),
                pair("CLAUDE_CODE_ENHANCED_TELEMETRY_BETA", "1"),
                pair("OTEL_TRACES_EXPORTER", "otlp"),
                pair("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", endpoint),
                pair(
                    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
                    config.protocol.as_str(),
                ),
                pair("OTEL_SHUTDOWN_TIMEOUT_MS", &CLI_EXPORT_BOUND_MS.to_string()),
            ],
            Vec::new(),
        ),
        "codex" => {
            let exporter = match config.protocol {
                OtlpProtocol::HttpProtobuf => format!(
                    "{{otlp-http={{endpoint={},protocol=\"binary\"}}}}",
                    agentgate_providers::codex::toml_string(endpoint)
                ),
                OtlpProtocol::Grpc => {
                    format!(
                        "{{otlp-grpc={{endpoint={}}}}}",
                        agentgate_providers::codex::toml_string(endpoint)
                    )
                }
            };
            (
                Vec::new(),
                vec!["-c".into(), format!("otel.trace_exporter={exporter}")],
            )
        }
        "gemini" => {
            let base = config.base_endpoint.clone().unwrap_or_else(|| {
                endpoint
                    .strip_suffix("/v1/traces")
                    .unwrap_or(endpoint)
                    .to_owned()
            });
            let protocol = match config.protocol {
                OtlpProtocol::Grpc => "grpc",
                OtlpProtocol::HttpProtobuf => "http",
            };
            (
                vec![
                    pair("GEMINI_TELEMETRY_ENABLED", "true"),
                    pair("GEMINI_TELEMETRY_TARGET", "local"),
                    pair("GEMINI_TELEMETRY_OTLP_ENDPOINT", &base),
                    pair("GEMINI_TELEMETRY_OTLP_PROTOCOL", protocol),
                    pair("GEMINI_TELEMETRY_LOG_PROMPTS", "false"),
                ],
                Vec::new(),
            )
        }
        _ => (Vec::new(), Vec::new()),
    }
}

/// The variables that hold the collector's headers.
const HEADER_VARIABLES: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_HEADERS",
    "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
];

/// The values of `key=value,key2=value2` (percent-decoded, as the exporter
/// reads them, and as written), and the whole text.
fn header_values(headers: &str) -> Vec<String> {
    let mut values = vec![headers.trim().to_owned()];
    for pair in headers.split(',') {
        if let Some((_, value)) = pair.split_once('=') {
            let value = value.trim();
            values.push(value.to_owned());
            values.push(percent_decoded(value));
        }
    }
    values.retain(|v| !v.is_empty());
    values.dedup();
    values
}

/// `%XX` sequences decoded (an invalid one is kept as it is).
fn percent_decoded(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (byte, hex) {
            (b'%', Some(decoded)) => {
                out.push(decoded);
                i += 3;
            }
            _ => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(protocol: OtlpProtocol) -> ExportConfig {
        ExportConfig {
            protocol,
            traces_endpoint: "http://127.0.0.1:4318/v1/traces".into(),
            base_endpoint: None,
            service_name: "agentgate".into(),
        }
    }

    #[test]
    fn header_values_are_found_written_and_decoded() {
        let values = header_values("authorization=Bearer%20abc123,x-key=k%3D1");
        for want in ["Bearer%20abc123", "Bearer abc123", "k%3D1", "k=1"] {
            assert!(values.iter().any(|v| v == want), "{want}: {values:?}");
        }
        assert_eq!(percent_decoded("%zz%41"), "%zzA");
    }

    #[test]
    fn each_cli_gets_its_own_settings_and_none_a_header() {
        let (env, args) = cli_settings("claude", &config(OtlpProtocol::HttpProtobuf));
        assert!(args.is_empty());
        assert!(env.contains(&("CLAUDE_CODE_ENABLE_TELEMETRY".into(), "1".into())));
        assert!(env.contains(&(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT".into(),
            "http://127.0.0.1:4318/v1/traces".into()
        )));
        let (_, args) = cli_settings("codex", &config(OtlpProtocol::HttpProtobuf));
        assert_eq!(
            args,
            [
                "-c",
                "otel.trace_exporter={otlp-http={endpoint=\"http://127.0.0.1:4318/v1/traces\",protocol=\"binary\"}}"
            ]
        );
        let (env, _) = cli_settings("gemini", &config(OtlpProtocol::Grpc));
        assert!(env.contains(&(
            "GEMINI_TELEMETRY_OTLP_ENDPOINT".into(),
            "http://127.0.0.1:4318".into()
        )));
        assert!(env.contains(&("GEMINI_TELEMETRY_OTLP_PROTOCOL".into(), "grpc".into())));
        for cli in ["claude", "codex", "gemini", "opencode"] {
            let (env, args) = cli_settings(cli, &config(OtlpProtocol::Grpc));
            assert!(env.iter().all(|(k, _)| !k.contains("HEADERS")), "{cli}");
            assert!(args.iter().all(|a| !a.contains("headers")), "{cli}");
        }
    }
}
