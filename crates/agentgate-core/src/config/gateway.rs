//! `gateway:`: the model gateway in front of runs (docs/guide/gateway.md).
//!
//! ```yaml
//! gateway:
//!   enabled: true              # every run (default: only `--gateway` runs)
//!   record_model_calls: false  # keep model-calls.jsonl in the run folder
//!   ca_file: /etc/ssl/corp-ca.pem
//!   response_timeout: 10m      # the upstream's response headers, at most
//!   quota_hold_above: 0.95     # hold new runs on a provider above 95% of a window
//!   limits: {max_model_calls: 50, max_input_tokens: 2000000, max_output_tokens: 200000, max_model_time: 30m}
//!   providers:
//!     claude: {enabled: true, upstream: "https://llm-proxy.internal", key_env: TEAM_ANTHROPIC_KEY}
//! ```

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::paths::resolve_path;
use super::yaml::{Entries, Fault, Secs};
pub use crate::gateway_limits::GatewayLimits;

/// One provider's gateway settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GatewayProviderSpec {
    /// The provider (a built-in name).
    pub provider: String,
    /// On or off for this provider's runs (over `gateway.enabled`).
    pub enabled: Option<bool>,
    /// The upstream base URL, instead of the one the CLI would use.
    pub upstream: Option<String>,
    /// The variable of agentgate's environment that holds the real key.
    pub key_env: Option<String>,
    /// A file that holds the real key.
    pub key_file: Option<PathBuf>,
}

/// `gateway:` checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GatewaySpec {
    /// Every run goes through a gateway (a provider's `enabled` wins).
    pub enabled: bool,
    /// Every run keeps its model calls (`model-calls.jsonl`).
    pub record_model_calls: bool,
    /// CA certificates trusted for upstreams besides the system's.
    pub ca_file: Option<PathBuf>,
    /// Time allowed for an upstream's response headers.
    pub response_timeout: Option<Duration>,
    /// New runs on a provider are held while a window it reported is used
    /// above this share (0 < x <= 1), until the window resets.
    pub quota_hold_above: Option<f64>,
    /// The limits of every run with a gateway.
    pub limits: GatewayLimits,
    /// Per provider.
    pub providers: Vec<GatewayProviderSpec>,
}

impl GatewaySpec {
    /// The settings of `provider`, when the section names it.
    pub fn provider(&self, provider: &str) -> Option<&GatewayProviderSpec> {
        self.providers.iter().find(|p| p.provider == provider)
    }

    /// Whether runs of `provider` go through a gateway by the config.
    pub fn enabled_for(&self, provider: &str) -> bool {
        self.provider(provider)
            .and_then(|p| p.enabled)
            .unwrap_or(self.enabled)
    }
}

/// `gateway:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGateway {
    enabled: Option<bool>,
    record_model_calls: Option<bool>,
    ca_file: Option<Spanned<String>>,
    response_timeout: Option<Spanned<Secs>>,
    quota_hold_above: Option<Spanned<f64>>,
    limits: Option<RawLimits>,
    #[serde(default)]
    providers: Entries<RawGatewayProvider>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLimits {
    max_model_calls: Option<Spanned<u32>>,
    max_input_tokens: Option<Spanned<u64>>,
    max_output_tokens: Option<Spanned<u64>>,
    max_model_time: Option<Spanned<Secs>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGatewayProvider {
    enabled: Option<bool>,
    upstream: Option<Spanned<String>>,
    key_env: Option<Spanned<String>>,
    key_file: Option<Spanned<String>>,
}

/// Check `gateway:`; relative paths are relative to `base`.
pub(super) fn convert(raw: &RawGateway, base: &Path) -> Result<GatewaySpec, Fault> {
    let path = |s: &Spanned<String>, key: &str| {
        if s.value.trim().is_empty() {
            return Err(Fault::at(s, format!("gateway.{key}: it is empty")));
        }
        Ok(resolve_path(s.value.trim(), base))
    };
    let mut spec = GatewaySpec {
        enabled: raw.enabled.unwrap_or(false),
        record_model_calls: raw.record_model_calls.unwrap_or(false),
        ..GatewaySpec::default()
    };
    if let Some(c) = &raw.ca_file {
        spec.ca_file = Some(path(c, "ca_file")?);
    }
    if let Some(t) = &raw.response_timeout {
        if t.value.0.is_zero() {
            return Err(Fault::at(t, "gateway.response_timeout: it must be above 0"));
        }
        spec.response_timeout = Some(t.value.0);
    }
    if let Some(h) = &raw.quota_hold_above {
        if !(h.value > 0.0 && h.value <= 1.0) {
            return Err(Fault::at(
                h,
                format!(
                    "gateway.quota_hold_above: {} is not a share above 0 and at most 1 (0.95 holds runs above 95% of a window)",
                    h.value
                ),
            ));
        }
        spec.quota_hold_above = Some(h.value);
    }
    if let Some(l) = &raw.limits {
        spec.limits = limits(l)?;
    }
    for (name, p) in &raw.providers.0 {
        let Some(kind) = agentgate_providers::description(&name.value) else {
            return Err(Fault::at(
                name,
                format!(
                    "gateway.providers: `{}` is not a built-in provider ({})",
                    name.value,
                    agentgate_providers::builtin_names()
                ),
            ));
        };
        if spec.providers.iter().any(|s| s.provider == kind.name) {
            return Err(Fault::at(
                name,
                format!("gateway.providers: `{}` is given twice", kind.name),
            ));
        }
        let mut one = GatewayProviderSpec {
            provider: kind.name.to_owned(),
            enabled: p.enabled,
            ..GatewayProviderSpec::default()
        };
        if let Some(u) = &p.upstream {
            let v = u.value.trim();
            if !(v.starts_with("https://") || v.starts_with("http://")) {
                return Err(Fault::at(
                    u,
                    format!(
                        "gateway.providers.{}.upstream: `{v}` is not an http(s) URL",
                        kind.name
                    ),
                ));
            }
            one.upstream = Some(v.trim_end_matches('/').to_owned());
        }
        if let Some(k) = &p.key_env {
            if k.value.trim().is_empty() {
                return Err(Fault::at(
                    k,
                    format!("gateway.providers.{}.key_env: it is empty", kind.name),
                ));
            }
            one.key_env = Some(k.value.trim().to_owned());
        }
        if let Some(f) = &p.key_file {
            one.key_file = Some(path(f, "providers.key_file")?);
        }
        if one.key_env.is_some() && one.key_file.is_some() {
            return Err(Fault::at(
                name,
                format!(
                    "gateway.providers.{}: give `key_env` or `key_file`, not both",
                    kind.name
                ),
            ));
        }
        spec.providers.push(one);
    }
    Ok(spec)
}

fn limits(raw: &RawLimits) -> Result<GatewayLimits, Fault> {
    let positive = |v: u64, at: &dyn Fn(String) -> Fault, key: &str| {
        if v == 0 {
            Err(at(format!("gateway.limits.{key}: it must be at least 1")))
        } else {
            Ok(v)
        }
    };
    let mut l = GatewayLimits::default();
    if let Some(v) = &raw.max_model_calls {
        positive(u64::from(v.value), &|m| Fault::at(v, m), "max_model_calls")?;
        l.max_model_calls = Some(v.value);
    }
    if let Some(v) = &raw.max_input_tokens {
        l.max_input_tokens = Some(positive(v.value, &|m| Fault::at(v, m), "max_input_tokens")?);
    }
    if let Some(v) = &raw.max_output_tokens {
        l.max_output_tokens = Some(positive(
            v.value,
            &|m| Fault::at(v, m),
            "max_output_tokens",
        )?);
    }
    if let Some(v) = &raw.max_model_time {
        if v.value.0.is_zero() {
            return Err(Fault::at(
                v,
                "gateway.limits.max_model_time: it must be above 0",
            ));
        }
        l.max_model_time = Some(v.value.0);
    }
    Ok(l)
}
