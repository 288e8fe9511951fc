//! Per-provider defaults: what every agent of a provider starts from.

use std::path::Path;

use serde_saphyr::Spanned;

use super::accounts::check_account;
use super::custom::RawProvider;
use super::origin::Origins;
use super::settings::{self, SettingsKeys};
use super::yaml::{Fault, line};
use crate::settings::Settings;

/// Defaults for one provider (built in or described in the file).
#[derive(Debug, Clone, Default)]
pub struct ProviderDefaults {
    /// The provider's name (a built-in one in lower case).
    pub provider: String,
    /// Whether it is a built-in provider (else a described CLI).
    pub builtin: bool,
    /// Its settings: executable and environment (built-in providers; a
    /// described CLI keeps its own in its description), extra arguments,
    /// retry bound and limits.
    pub settings: Settings,
    /// Model aliases: alias -> the provider's model id.
    pub models: Vec<(String, String)>,
    /// The model when none is requested, and the one the invalid-model
    /// retry uses (may be an alias).
    pub default_model: Option<String>,
    /// The account its CLI is logged in to on this host: runs of hosts
    /// naming the same account share its quota state (see
    /// [`Config::account`](super::Config::account)).
    pub account: Option<String>,
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
    }
    let keys = SettingsKeys {
        binary: raw.binary.as_ref().filter(|_| builtin),
        env: raw.env.as_ref().filter(|_| builtin),
        extra_args: raw.extra_args.as_ref(),
        max_provider_retries: raw.max_provider_retries.as_ref(),
        timeout: raw.timeout.as_ref(),
        idle_timeout: raw.idle_timeout.as_ref(),
        timeout_warn: raw.timeout_warn.as_ref(),
        extend_on_activity: raw.extend_on_activity.as_ref(),
        max_timeout: raw.max_timeout.as_ref(),
        knobs: Some(settings::knob_keys!(raw)),
        ..SettingsKeys::default()
    };
    d.settings = settings::convert(&keys, base, &label, &mut d.origins)?;
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
    if let Some(a) = &raw.account {
        d.account = Some(check_account(&a.value).map_err(|m| Fault::at(a, label(m)))?);
        d.origins.set("account", line(a));
    }
    Ok(d)
}
