//! The config file as written: its format, told from its content, and the
//! native format (strict YAML: an unknown key is an error naming the key
//! and its line), turned into checked descriptions.

use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::agent::{self, RawAgent};
use super::approvals::{self, RawApprovals};
use super::automation::{self, RawSchedule, RawWatch};
use super::budgets::{self, RawBudgets};
use super::chain::{self, RawChain};
use super::custom::{self, RawProvider};
use super::defaults;
use super::event_log::{self, RawEventLog};
use super::gateway::{self, RawGateway};
use super::models::{self, RawModels};
use super::parsed::{Parsed, check_version, defaults_keys};
use super::paths::{config_folder, resolve_path};
use super::pricing::{self, RawPricing};
use super::queue::{self, RawQueue};
use super::sandbox::{self, RawSandbox};
use super::source::{CONFIG_VERSION, ConfigError, ConfigFormat};
use super::tools::{self, RawTools};
use super::webhooks::{self, RawWebhooks};
use super::yaml::{Entries, Fault, Shape, from_str};
use super::{cli_agents, providers_yaml};
use crate::redact::MIN_SECRET_BYTES;
use agentgate_providers::custom::CustomProviderSpec;
use agentgate_providers::{builtin_names, description};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    version: Spanned<u32>,
    #[serde(default)]
    providers: Entries<RawProvider>,
    #[serde(default)]
    agents: Entries<RawAgent>,
    #[serde(default)]
    chains: Entries<RawChain>,
    #[serde(default)]
    redact: Vec<Spanned<String>>,
    queue: Option<RawQueue>,
    store: Option<Spanned<String>>,
    #[serde(default)]
    schedules: Entries<RawSchedule>,
    #[serde(default)]
    watch: Entries<RawWatch>,
    tools: Option<Spanned<RawTools>>,
    approvals: Option<RawApprovals>,
    event_log: Option<RawEventLog>,
    gateway: Option<RawGateway>,
    sandbox: Option<RawSandbox>,
    models: Option<RawModels>,
    log_dir: Option<Spanned<String>>,
    log_name: Option<Spanned<String>>,
    debug_prompt: Option<bool>,
    quota_inbox: Option<Spanned<String>>,
    envelope: Option<Spanned<String>>,
    pricing: Option<Spanned<RawPricing>>,
    budgets: Option<RawBudgets>,
    webhooks: Option<Spanned<RawWebhooks>>,
}

/// The format of `text`: no `version:` key is a providers.yaml;
/// `version:` with a list of `agents:` is a cli_agents.yaml; anything else
/// is read as the native format (which reports what is wrong).
pub(super) fn detect(text: &str) -> ConfigFormat {
    let Ok(top) = from_str::<Entries<Shape>>(text) else {
        return ConfigFormat::Native;
    };
    let shape = |key: &str| top.0.iter().find(|(k, _)| k.value == key).map(|(_, s)| *s);
    match (shape("version"), shape("agents")) {
        (None, _) if !top.0.is_empty() => ConfigFormat::ProvidersYaml,
        (Some(_), Some(Shape::Seq)) => ConfigFormat::CliAgents,
        _ => ConfigFormat::Native,
    }
}

/// Parse a config file's text; `path` names it in errors and anchors
/// relative paths.
pub(super) fn parse(text: &str, path: &Path) -> Result<Parsed, ConfigError> {
    let invalid = |f: Fault| ConfigError::Invalid {
        path: path.to_path_buf(),
        line: f.at.map(|a| a.line),
        column: f.at.map(|a| a.column),
        message: f.message,
    };
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Err(invalid(Fault::new(
            None,
            format!("the file is empty: it starts with `version: {CONFIG_VERSION}`"),
        )));
    }
    let base = &config_folder(path);
    let format = detect(text);
    let parsed = match format {
        ConfigFormat::Native => native(text, base),
        ConfigFormat::ProvidersYaml => providers_yaml::parse(text, base).map_err(|f| {
            Fault::new(
                f.at,
                format!(
                    "{} (read as a providers.yaml migration file because it has no `version:`; a native config starts with `version: {CONFIG_VERSION}`)",
                    f.message
                ),
            )
        }),
        ConfigFormat::CliAgents => cli_agents::parse(text, base),
    };
    parsed.map(|p| Parsed { format, ..p }).map_err(invalid)
}

fn native(text: &str, base: &Path) -> Result<Parsed, Fault> {
    let raw: RawFile = from_str(text)?;
    check_version(&raw.version)?;
    let mut out = Parsed::default();
    for (name, p) in &raw.providers.0 {
        let label = |m: String| format!("provider `{}`: {m}", name.value);
        match description(&name.value) {
            Some(kind) => {
                if p.command.is_some() {
                    return Err(Fault::at(
                        name,
                        label(format!(
                            "`{}` is the name of a built-in adapter; give the described CLI another name (without `command:`, the entry gives the built-in provider's defaults)",
                            name.value
                        )),
                    ));
                }
                if let Some((key, at)) = p.description_key() {
                    return Err(Fault::new(
                        Some(at),
                        label(format!(
                            "`{key}` describes a CLI run by `command:`; a built-in provider takes only {}",
                            defaults_keys()
                        )),
                    ));
                }
                if out.defaults.iter().any(|d| d.provider == kind.name) {
                    return Err(Fault::at(name, label(format!("`{kind}` is given twice"))));
                }
                out.defaults
                    .push(defaults::convert(name, kind.name, true, p, base)?);
            }
            None => {
                let Some(command) = &p.command else {
                    return Err(Fault::at(
                        name,
                        label(format!(
                            "`{}` is not a built-in provider ({}), so it needs `command:` describing how to run the CLI (see docs/custom-providers.md)",
                            name.value,
                            builtin_names()
                        )),
                    ));
                };
                let spec = custom::convert(name, command, p, base)
                    .map_err(|(at, m)| Fault::new(Some(at), m))?;
                out.defaults
                    .push(defaults::convert(name, &spec.name, false, p, base)?);
                out.providers.push(spec);
            }
        }
    }
    let providers = &out.providers;
    let resolve = |name: &str| provider_named(name, providers);
    for (name, a) in &raw.agents.0 {
        out.agents.push(agent::convert(name, a, base, &resolve)?);
    }
    for (name, c) in &raw.chains.0 {
        out.chains.push(chain::convert(name, c, &out.agents)?);
    }
    for value in &raw.redact {
        if value.value.len() < MIN_SECRET_BYTES {
            return Err(Fault::at(
                value,
                format!(
                    "redact: an entry of {} bytes; values shorter than {MIN_SECRET_BYTES} bytes are not redacted (they would mask ordinary words)",
                    value.value.len()
                ),
            ));
        }
        out.redact.push(value.value.clone());
    }
    if let Some(q) = &raw.queue {
        out.queue = queue::convert(q, &resolve)?;
    }
    if let Some(store) = &raw.store {
        out.store = Some(store_location(store, base)?);
    }
    for (name, s) in &raw.schedules.0 {
        out.schedules.push(automation::schedule(name, s, base)?);
    }
    for (name, w) in &raw.watch.0 {
        out.watches.push(automation::watch(name, w, base)?);
    }
    if let Some(t) = &raw.tools {
        out.tools = tools::convert(&t.value, t.referenced.line(), base)?;
    }
    if let Some(a) = &raw.approvals {
        out.approvals = approvals::convert(a)?;
    }
    if let Some(e) = &raw.event_log {
        out.event_log = event_log::convert(e)?;
    }
    if let Some(g) = &raw.gateway {
        out.gateway = gateway::convert(g, base)?;
    }
    if let Some(s) = &raw.sandbox {
        out.sandbox = sandbox::convert(s, base, &resolve)?;
    }
    if let Some(m) = &raw.models {
        out.models = models::convert(m)?;
    }
    if let Some(d) = &raw.log_dir {
        if d.value.trim().is_empty() {
            return Err(Fault::at(d, "log_dir: it is empty".to_owned()));
        }
        out.log_dir = Some(super::paths::resolve_path(d.value.trim(), base));
    }
    if let Some(n) = &raw.log_name {
        if n.value.trim().is_empty() {
            return Err(Fault::at(n, "log_name: it is empty".to_owned()));
        }
        out.log_name = Some(n.value.clone());
    }
    out.debug_prompt = raw.debug_prompt.unwrap_or(false);
    if let Some(d) = &raw.quota_inbox {
        if d.value.trim().is_empty() {
            return Err(Fault::at(d, "quota_inbox: it is empty".to_owned()));
        }
        out.quota_inbox = Some(super::paths::resolve_path(d.value.trim(), base));
    }
    if let Some(e) = &raw.envelope {
        out.envelope = e
            .value
            .trim()
            .parse()
            .map_err(|why: String| Fault::at(e, format!("envelope: {why}")))?;
    }
    if let Some(p) = &raw.pricing {
        out.pricing = pricing::convert(p)?;
    }
    if let Some(b) = &raw.budgets {
        out.budgets = budgets::convert(b, &out.agents, &out.chains)?;
    }
    if let Some(w) = &raw.webhooks {
        out.webhooks = webhooks::convert(w, base)?;
    }
    Ok(out)
}

/// The canonical name of the provider `name`: built in, else described in
/// the file; else why it is unknown.
pub(super) fn provider_named(name: &str, custom: &[CustomProviderSpec]) -> Result<String, String> {
    if let Some(kind) = description(name) {
        return Ok(kind.name.to_owned());
    }
    let found = custom
        .iter()
        .find(|p| p.name == name)
        .or_else(|| custom.iter().find(|p| p.name.eq_ignore_ascii_case(name)));
    match found {
        Some(p) => Ok(p.name.clone()),
        None => {
            let described: Vec<&str> = custom.iter().map(|p| p.name.as_str()).collect();
            Err(format!(
                "unknown provider `{name}` (built in: {}; described in this file: {})",
                builtin_names(),
                if described.is_empty() {
                    "none".to_owned()
                } else {
                    described.join(", ")
                }
            ))
        }
    }
}

/// `store:`: a PostgreSQL URL, or a SQLite file (`~/` is the home folder; a
/// relative path is relative to the config's folder).
fn store_location(
    value: &Spanned<String>,
    base: &Path,
) -> Result<agentgate_store::StoreLocation, Fault> {
    match agentgate_store::StoreLocation::parse(&value.value) {
        Ok(agentgate_store::StoreLocation::Sqlite(path)) if path.is_relative() => Ok(
            agentgate_store::StoreLocation::Sqlite(resolve_path(&path.to_string_lossy(), base)),
        ),
        Ok(location) => Ok(location),
        Err(e) => Err(Fault::at(value, format!("store: {e}"))),
    }
}
