//! Per-provider defaults: what every agent of a provider starts from.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_saphyr::Spanned;

use super::custom::{RawProvider, resolve_binary};
use super::origin::Origins;
use super::yaml::{Fault, line, text_pairs, texts};

/// Defaults for one provider (built in or described in the file).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderDefaults {
    /// The provider's name (a built-in one in lower case).
    pub provider: String,
    /// Whether it is a built-in provider (else a described CLI).
    pub builtin: bool,
    /// The executable (built-in providers; a described CLI keeps its own
    /// `binary` in its [`super::CustomProviderSpec`]).
    pub binary: Option<PathBuf>,
    /// Arguments appended to the CLI's argv.
    pub extra_args: Vec<String>,
    /// Environment for the CLI (built-in providers; a described CLI keeps
    /// its `env` templates in its description).
    pub env: Vec<(String, String)>,
    /// Model aliases: alias -> the provider's model id.
    pub models: Vec<(String, String)>,
    /// The model when none is requested, and the one the invalid-model
    /// retry uses (may be an alias).
    pub default_model: Option<String>,
    /// Bound on the CLI's own retries of failed model requests.
    pub max_provider_retries: Option<u32>,
    /// Wall-clock limit of a run.
    pub timeout: Option<Duration>,
    /// Limit on silence.
    pub idle_timeout: Option<Duration>,
    /// Where each value was written.
    pub origins: Origins,
}

impl ProviderDefaults {
    /// The model id `alias` stands for (exact, else ignoring case).
    pub fn alias(&self, alias: &str) -> Option<&str> {
        self.models
            .iter()
            .find(|(a, _)| a == alias)
            .or_else(|| {
                self.models
                    .iter()
                    .find(|(a, _)| a.eq_ignore_ascii_case(alias))
            })
            .map(|(_, m)| m.as_str())
    }
}

/// The defaults of the entry `name` (`provider`: its canonical name).
/// `binary` and `env` are read for built-in providers only.
pub(super) fn convert(
    name: &Spanned<String>,
    provider: &str,
    builtin: bool,
    raw: &RawProvider,
    base: &Path,
) -> Result<ProviderDefaults, Fault> {
    let label = |m: String| format!("provider `{}`: {m}", name.value);
    let mut d = ProviderDefaults {
        provider: provider.to_owned(),
        builtin,
        origins: Origins::at(name.referenced.line()),
        ..ProviderDefaults::default()
    };
    if !builtin {
        // A described CLI's command, binary and env are its description.
        if let Some(c) = &raw.command {
            d.origins.set("command", line(c));
        }
        if let Some(b) = &raw.binary {
            d.origins.set("binary", line(b));
        }
        if let Some(e) = &raw.env {
            d.origins.set("env", line(e));
        }
    } else {
        if let Some(b) = &raw.binary {
            if b.value.trim().is_empty() {
                return Err(Fault::at(b, label("`binary` is empty".into())));
            }
            d.binary = Some(PathBuf::from(resolve_binary(&b.value, base)));
            d.origins.set("binary", line(b));
        }
        if let Some(e) = &raw.env {
            d.env = text_pairs(&e.value);
            for (k, _) in &e.value.0 {
                if k.value.is_empty() || k.value.contains(['=', '\0']) {
                    return Err(Fault::at(
                        k,
                        label(format!("`{}` is not an environment variable name", k.value)),
                    ));
                }
            }
            d.origins.set("env", line(e));
        }
    }
    if let Some(a) = &raw.extra_args {
        d.extra_args = texts(&a.value);
        d.origins.set("extra_args", line(a));
    }
    if let Some(m) = &raw.models {
        for (alias, target) in &m.value.0 {
            if alias.value.trim().is_empty() {
                return Err(Fault::at(alias, label("a model alias is empty".into())));
            }
            if target.0.trim().is_empty() {
                return Err(Fault::at(
                    alias,
                    label(format!(
                        "the alias `{}` stands for an empty model id",
                        alias.value
                    )),
                ));
            }
            d.models
                .push((alias.value.clone(), target.0.trim().to_owned()));
            d.origins
                .set(format!("models.{}", alias.value), line(alias));
        }
        d.origins.set("models", line(m));
    }
    if let Some(m) = &raw.default_model {
        if m.value.0.trim().is_empty() {
            return Err(Fault::at(m, label("`default_model` is empty".into())));
        }
        d.default_model = Some(m.value.0.trim().to_owned());
        d.origins.set("default_model", line(m));
    }
    if let Some(r) = &raw.max_provider_retries {
        d.max_provider_retries = Some(r.value);
        d.origins.set("max_provider_retries", line(r));
    }
    if let Some(t) = &raw.timeout {
        d.timeout = Some(t.value.0);
        d.origins.set("timeout", line(t));
    }
    if let Some(t) = &raw.idle_timeout {
        d.idle_timeout = Some(t.value.0);
        d.origins.set("idle_timeout", line(t));
    }
    Ok(d)
}
