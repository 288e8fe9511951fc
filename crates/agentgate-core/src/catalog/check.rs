//! A run's model checked against its provider's catalog (bundled, else
//! cached; never fetched here), after the config's aliases
//! (`config/model.rs`):
//!
//! - an exact id passes as it is;
//! - a CLI alias or the tail of exactly one id is normalised to that id
//!   (`gpt-5.1` -> `openai/gpt-5.1`), and `model_resolution` says so;
//! - a tail naming several ids is refused (`invalid_input`, listing them);
//! - a requested model absent from a catalog the CLI gave is refused
//!   (`models.validate: strict`, `invalid_model`) or noted (`warn`); a
//!   bundled table is not authoritative, so absence there is nothing;
//! - a configured `default_model` absent from a catalog the CLI gave is
//!   replaced by the catalog's default.
//!
//! `models.validate: off` skips all of it.

use agentgate_providers::catalog::{CatalogEntry, CatalogSource, Lookup, default_entry, lookup};

use crate::config::{ModelChoice, ModelSource, ModelValidation};

/// Why a run's model was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CatalogCheck {
    /// A tail naming several models.
    Ambiguous {
        /// The name asked for.
        model: String,
        /// The ids it is the tail of.
        candidates: Vec<String>,
    },
    /// A model the CLI's catalog lacks (`strict`).
    Absent {
        /// The name asked for.
        model: String,
    },
}

/// `choice` for `provider`, checked against `catalog` (its source and
/// entries) under `validate`.
pub(crate) fn check_model(
    provider: &str,
    catalog: Option<(CatalogSource, Vec<CatalogEntry>)>,
    validate: ModelValidation,
    choice: ModelChoice,
) -> Result<ModelChoice, CatalogCheck> {
    let (Some((source, entries)), Some(model)) = (catalog, choice.model.clone()) else {
        return Ok(choice);
    };
    if validate == ModelValidation::Off {
        return Ok(choice);
    }
    let requested = choice.source != ModelSource::ProviderDefault;
    let note = |text: String| match &choice.resolution {
        Some(before) => Some(format!("{before}; {text}")),
        None => Some(text),
    };
    match lookup(&entries, &model) {
        Lookup::Exact(_) => Ok(choice),
        Lookup::Alias(e) | Lookup::Tail(e) => Ok(ModelChoice {
            model: Some(e.id.clone()),
            source: if requested {
                ModelSource::Catalog
            } else {
                choice.source
            },
            resolution: note(format!(
                "{provider} model '{model}' -> '{}' (catalog)",
                e.id
            )),
        }),
        Lookup::Ambiguous(ids) => Err(CatalogCheck::Ambiguous {
            model,
            candidates: ids.into_iter().map(str::to_owned).collect(),
        }),
        Lookup::Absent if !source.authoritative() => Ok(choice),
        Lookup::Absent if !requested => match default_entry(&entries) {
            Some(d) => Ok(ModelChoice {
                model: Some(d.id.clone()),
                source: ModelSource::CatalogDefault,
                resolution: note(format!(
                    "{provider} default_model '{model}' is not in its catalog -> '{}' (stale default -> catalog default)",
                    d.id
                )),
            }),
            None => Ok(choice),
        },
        Lookup::Absent if validate == ModelValidation::Strict => {
            Err(CatalogCheck::Absent { model })
        }
        Lookup::Absent => Ok(ModelChoice {
            resolution: note(format!(
                "{provider} model '{model}' is not in its catalog (run as given; models.validate: warn)"
            )),
            ..choice
        }),
    }
}
