//! Model resolution: the flag, else the agent's model, through the
//! provider's aliases; else the provider's `default_model`; else the CLI's
//! own default. Aliases and defaults come in layers: a wrapper's
//! `providers.yaml` (`wrapper_models.rs`) before the config's. The
//! check against the provider's catalog (the engine's `catalog/check.rs`)
//! comes after.

use std::path::Path;

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

/// One layer of model settings: a provider's defaults, and the wrapper
/// file they came from (`None`: the config itself).
pub(super) type Layer<'a> = (&'a ProviderDefaults, Option<&'a Path>);

/// Where a layer's value came from, for `model_resolution`: nothing for
/// the config (`(alias)`), the file for a wrapper's (`(alias,
/// providers.yaml)`).
fn from(kind: &str, file: Option<&Path>) -> String {
    match file {
        None => kind.to_owned(),
        Some(f) => format!("{kind}, {}", f.display()),
    }
}

/// The model of a run of `provider` with the settings `layers` (the
/// first that has a value wins): `flag` (`--model`), else `agent_model`;
/// a requested name that is an alias of a layer's `models:` becomes its
/// target; with nothing requested, a layer's `default_model` (itself
/// alias-resolved); else the CLI's default.
pub(super) fn resolve(
    provider: &str,
    layers: &[Layer<'_>],
    flag: Option<&str>,
    agent_model: Option<&str>,
) -> ModelChoice {
    let flag = flag.map(str::trim).filter(|m| !m.is_empty());
    let agent_model = agent_model.map(str::trim).filter(|m| !m.is_empty());
    let requested = flag
        .map(|m| (m, ModelSource::Flag))
        .or(agent_model.map(|m| (m, ModelSource::Agent)));
    if let Some((requested, source)) = requested {
        let alias = layers
            .iter()
            .find_map(|(d, file)| d.alias(requested).map(|t| (t, *file)));
        return match alias {
            Some((target, file)) => ModelChoice {
                model: Some(target.to_owned()),
                source: ModelSource::Alias,
                resolution: Some(format!(
                    "{provider} model '{requested}' -> '{target}' ({})",
                    from("alias", file)
                )),
            },
            None => ModelChoice {
                model: Some(requested.to_owned()),
                source,
                resolution: None,
            },
        };
    }
    match default_model(layers) {
        Some((model, file)) => ModelChoice {
            resolution: Some(format!(
                "{provider} model (none requested) -> '{model}' ({})",
                from("default_model", file)
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

/// The first layer's `default_model` (alias-resolved in that layer, else
/// in the others), and the file it came from: the model of a run that
/// requests none, and of the one retry after an invalid-model error.
pub(super) fn default_model<'a>(layers: &[Layer<'a>]) -> Option<(String, Option<&'a Path>)> {
    let (d, file) = layers.iter().find(|(d, _)| d.default_model.is_some())?;
    let m = d.default_model.as_deref()?;
    let target = d
        .alias(m)
        .or_else(|| layers.iter().find_map(|(other, _)| other.alias(m)))
        .unwrap_or(m);
    Some((target.to_owned(), *file))
}
