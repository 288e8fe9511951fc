//! The config file as written: its format, told from its content, and the
//! native format (strict YAML: an unknown key is an error naming the key
//! and its line), turned into checked descriptions.

use std::path::Path;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::agent::{self, AgentSpec, RawAgent};
use super::chain::{self, ChainSpec, RawChain};
use super::custom::{self, RawProvider};
use super::defaults::{self, ProviderDefaults};
use super::provider::CustomProviderSpec;
use super::yaml::{Entries, Fault, Shape, from_str};
use super::{CONFIG_VERSION, ConfigError, ConfigFormat, cli_agents, providers_yaml};
use crate::provider::ProviderKind;

/// What a file holds, checked.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub format: ConfigFormat,
    pub providers: Vec<CustomProviderSpec>,
    pub defaults: Vec<ProviderDefaults>,
    pub agents: Vec<AgentSpec>,
    pub chains: Vec<ChainSpec>,
    pub warnings: Vec<String>,
}

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
    let base = path.parent().unwrap_or(Path::new("."));
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

/// Check the version a file declares.
pub(super) fn check_version(version: &Spanned<u32>) -> Result<(), Fault> {
    if version.value != CONFIG_VERSION {
        return Err(Fault::at(
            version,
            format!(
                "unsupported config version {} (this agentgate reads version {CONFIG_VERSION})",
                version.value
            ),
        ));
    }
    Ok(())
}

fn native(text: &str, base: &Path) -> Result<Parsed, Fault> {
    let raw: RawFile = from_str(text)?;
    check_version(&raw.version)?;
    let mut out = Parsed::default();
    for (name, p) in &raw.providers.0 {
        let label = |m: String| format!("provider `{}`: {m}", name.value);
        match name.value.parse::<ProviderKind>() {
            Ok(kind) => {
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
                if out.defaults.iter().any(|d| d.provider == kind.as_str()) {
                    return Err(Fault::at(name, label(format!("`{kind}` is given twice"))));
                }
                out.defaults
                    .push(defaults::convert(name, kind.as_str(), true, p, base)?);
            }
            Err(_) => {
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
    Ok(out)
}

/// The canonical name of the provider `name`: built in, else described in
/// the file; else why it is unknown.
pub(super) fn provider_named(name: &str, custom: &[CustomProviderSpec]) -> Result<String, String> {
    if let Ok(kind) = name.parse::<ProviderKind>() {
        return Ok(kind.as_str().to_owned());
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

/// `claude, codex, ...`.
pub(super) fn builtin_names() -> String {
    ProviderKind::ALL
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The keys of a provider's defaults, for messages.
pub(super) fn defaults_keys() -> &'static str {
    "binary, extra_args, env, models, default_model, max_provider_retries, timeout and idle_timeout"
}
