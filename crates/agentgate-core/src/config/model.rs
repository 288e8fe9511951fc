//! Model resolution: the flag, else the agent's model, through the
//! provider's aliases; else the provider's `default_model`; else the CLI's
//! own default.

use super::defaults::ProviderDefaults;

/// Where the model of a run came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// `--model`, used as given.
    Flag,
    /// The agent's `model`, used as given.
    Agent,
    /// An alias of the provider's `models:` (requested by the flag or the
    /// agent).
    Alias,
    /// The provider's `default_model` (nothing was requested).
    ProviderDefault,
    /// Nothing: the CLI picks its own default.
    CliDefault,
    /// Normalised by the provider's catalog: a CLI alias or the unique
    /// tail of an id (`gpt-5.1` -> `openai/gpt-5.1`).
    Catalog,
    /// The catalog's default, because the configured `default_model` is
    /// not in the catalog the CLI gave.
    CatalogDefault,
}

impl ModelSource {
    /// `flag`, `agent`, `alias`, `provider_default`, `cli_default`,
    /// `catalog` or `catalog_default`.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelSource::Flag => "flag",
            ModelSource::Agent => "agent",
            ModelSource::Alias => "alias",
            ModelSource::ProviderDefault => "provider_default",
            ModelSource::CliDefault => "cli_default",
            ModelSource::Catalog => "catalog",
            ModelSource::CatalogDefault => "catalog_default",
        }
    }
}

/// The model a run uses, and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    /// The model id passed to the CLI; `None` = the CLI's default.
    pub model: Option<String>,
    /// Where it came from.
    pub source: ModelSource,
    /// The envelope's `model_resolution`, e.g. `claude model 'sonnet' ->
    /// 'claude-sonnet-4-5' (alias)`; `None` when the model is used as
    /// requested (or none at all).
    pub resolution: Option<String>,
}

/// The model of a run of `provider` (whose defaults are `defaults`):
/// `flag` (`--model`), else `agent_model`; a requested name that is an alias
/// of the provider's `models:` becomes its target; with nothing requested,
/// the provider's `default_model` (itself alias-resolved); else the CLI's
/// default.
pub(super) fn resolve(
    provider: &str,
    defaults: Option<&ProviderDefaults>,
    flag: Option<&str>,
    agent_model: Option<&str>,
) -> ModelChoice {
    let flag = flag.map(str::trim).filter(|m| !m.is_empty());
    let agent_model = agent_model.map(str::trim).filter(|m| !m.is_empty());
    let requested = flag
        .map(|m| (m, ModelSource::Flag))
        .or(agent_model.map(|m| (m, ModelSource::Agent)));
    if let Some((requested, source)) = requested {
        return match defaults.and_then(|d| d.alias(requested)) {
            Some(target) => ModelChoice {
                model: Some(target.to_owned()),
                source: ModelSource::Alias,
                resolution: Some(format!(
                    "{provider} model '{requested}' -> '{target}' (alias)"
                )),
            },
            None => ModelChoice {
                model: Some(requested.to_owned()),
                source,
                resolution: None,
            },
        };
    }
    match default_model(defaults) {
        Some(model) => ModelChoice {
            resolution: Some(format!(
                "{provider} model (none requested) -> '{model}' (default_model)"
            )),
            model: Some(model),
            source: ModelSource::ProviderDefault,
        },
        None => ModelChoice {
            model: None,
            source: ModelSource::CliDefault,
            resolution: None,
        },
    }
}

/// The provider's `default_model` (alias-resolved): the model of a run that
/// requests none, and of the one retry after an invalid-model error.
pub(super) fn default_model(defaults: Option<&ProviderDefaults>) -> Option<String> {
    let d = defaults?;
    let m = d.default_model.as_deref()?;
    Some(d.alias(m).unwrap_or(m).to_owned())
}
