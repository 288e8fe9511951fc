//! Finding a provider by name: the built-in adapters, then the providers
//! the config file describes.

use std::path::Path;
use std::sync::Arc;

use agentgate_core::config::Config;
use agentgate_core::provider::{Provider, ProviderKind};

/// The config of this run: `--config FILE`, else the discovered one.
pub fn config(flag: Option<&Path>) -> anyhow::Result<Config> {
    Ok(Config::load(flag)?)
}

/// The adapter for `name`. The config is read (and checked) even for a
/// built-in name, so that a broken config file never goes unnoticed.
pub fn resolve(name: &str, config_flag: Option<&Path>) -> anyhow::Result<Arc<dyn Provider>> {
    let cfg = config(config_flag)?;
    resolve_in(name, &cfg)
}

/// The adapter for `name`, with the config already loaded.
pub fn resolve_in(name: &str, cfg: &Config) -> anyhow::Result<Arc<dyn Provider>> {
    if let Ok(kind) = name.parse::<ProviderKind>() {
        return Ok(kind.adapter());
    }
    if let Some(p) = cfg.provider(name) {
        return Ok(Arc::new(p));
    }
    let builtin: Vec<&str> = ProviderKind::ALL.iter().map(|k| k.as_str()).collect();
    let described = match cfg.source.path() {
        None => "no config file was found (see docs/custom-providers.md to describe another CLI)"
            .to_owned(),
        Some(path) if cfg.providers.is_empty() => {
            format!("the config file {} describes none", path.display())
        }
        Some(path) => format!(
            "the config file {} describes {}",
            path.display(),
            cfg.providers
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    anyhow::bail!(
        "unknown provider `{name}` (built in: {}; {described})",
        builtin.join(", ")
    )
}

/// Every provider: the built-in ones, then the config's, in file order.
pub fn all(cfg: &Config) -> Vec<Arc<dyn Provider>> {
    ProviderKind::ALL
        .iter()
        .map(|k| k.adapter())
        .chain(
            cfg.custom_providers()
                .into_iter()
                .map(|p| Arc::new(p) as Arc<dyn Provider>),
        )
        .collect()
}
