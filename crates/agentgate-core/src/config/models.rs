//! `models:`: model catalogs and how a run's model is checked against
//! them.
//!
//! ```yaml
//! models:
//!   refresh: 1h          # a cached catalog older than this is fetched again
//!   validate: warn       # strict | warn | off
//!   gemini_capacity_fallback: gemini-2.5-flash   # or off
//! ```

use std::time::Duration;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::yaml::Fault;
use crate::settings::parse_duration;

/// The model Gemini runs are retried with once after a capacity error,
/// unless `models.gemini_capacity_fallback` says otherwise.
pub const GEMINI_CAPACITY_FALLBACK: &str = "gemini-2.5-flash";

/// How old a cached catalog may be before it is fetched again.
pub const DEFAULT_CATALOG_REFRESH: Duration = Duration::from_secs(3600);

/// What a requested model that a CLI's own catalog lacks does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModelValidation {
    /// The run fails with `invalid_model` before any CLI starts.
    Strict,
    /// The run goes on with the model as given; `model_resolution` says
    /// the catalog lacks it (the default: a catalog can lag behind an
    /// account or a custom server, and the CLI's own error is classified
    /// `invalid_model` anyway).
    #[default]
    Warn,
    /// Catalogs are not consulted: no tail aliases, no stale-default
    /// fallback.
    Off,
}

impl ModelValidation {
    /// `strict`, `warn` or `off`.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelValidation::Strict => "strict",
            ModelValidation::Warn => "warn",
            ModelValidation::Off => "off",
        }
    }
}

/// `models:` checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelsSpec {
    /// `refresh`: the age past which a cached catalog is fetched again.
    pub refresh: Duration,
    /// `validate`.
    pub validate: ModelValidation,
    /// `gemini_capacity_fallback`: the model a Gemini run is retried with
    /// once after a capacity error; `None` (`off`): no retry.
    pub gemini_capacity_fallback: Option<String>,
}

impl Default for ModelsSpec {
    fn default() -> Self {
        ModelsSpec {
            refresh: DEFAULT_CATALOG_REFRESH,
            validate: ModelValidation::default(),
            gemini_capacity_fallback: Some(GEMINI_CAPACITY_FALLBACK.to_owned()),
        }
    }
}

/// `models:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawModels {
    refresh: Option<Spanned<String>>,
    validate: Option<Spanned<String>>,
    gemini_capacity_fallback: Option<Spanned<String>>,
}

/// Check `models:`.
pub(super) fn convert(raw: &RawModels) -> Result<ModelsSpec, Fault> {
    let mut spec = ModelsSpec::default();
    if let Some(r) = &raw.refresh {
        spec.refresh =
            parse_duration(&r.value).map_err(|e| Fault::at(r, format!("models.refresh: {e}")))?;
    }
    if let Some(v) = &raw.validate {
        spec.validate = match v.value.trim() {
            "strict" => ModelValidation::Strict,
            "warn" => ModelValidation::Warn,
            "off" => ModelValidation::Off,
            other => {
                return Err(Fault::at(
                    v,
                    format!("models.validate: `{other}` is none of strict, warn, off"),
                ));
            }
        };
    }
    if let Some(f) = &raw.gemini_capacity_fallback {
        spec.gemini_capacity_fallback = match f.value.trim() {
            "" => {
                return Err(Fault::at(
                    f,
                    "models.gemini_capacity_fallback: it is empty (write `off` for no fallback)"
                        .to_owned(),
                ));
            }
            "off" => None,
            model => Some(model.to_owned()),
        };
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, ConfigSource};

    fn models(yaml: &str) -> Result<ModelsSpec, String> {
        Config::parse(
            &format!("version: 1\nmodels:\n{yaml}"),
            ConfigSource::Default,
        )
        .map(|c| c.models)
        .map_err(|e| e.to_string())
    }

    #[test]
    fn the_models_section_is_checked() {
        assert_eq!(Config::default().models, ModelsSpec::default());
        let m = models("  refresh: 10m\n  validate: strict\n  gemini_capacity_fallback: off\n")
            .unwrap();
        assert_eq!(m.refresh, Duration::from_secs(600));
        assert_eq!(m.validate, ModelValidation::Strict);
        assert_eq!(m.gemini_capacity_fallback, None);
        let e = models("  validate: loose\n").unwrap_err();
        assert!(e.contains("none of strict, warn, off"), "{e}");
        let e = models("  refresh: soon\n").unwrap_err();
        assert!(e.contains("models.refresh"), "{e}");
        let e = models("  gemini_capacity_fallback: \"\"\n").unwrap_err();
        assert!(e.contains("write `off`"), "{e}");
    }
}
