//! Model catalogs for `agentgate models`, `GET /v1/models` and a run's
//! model check: each provider's [`CatalogSource`] (data in
//! `agentgate-providers`) fetched (`fetch.rs`), cached in the data folder
//! (`cache.rs`) and used to check and normalise a requested model
//! (`check.rs`).
//!
//! A cached catalog younger than `models.refresh` (1 h by default) made by
//! the same binary (path and modification time) is used as it is;
//! otherwise, or with `refresh`, the CLI is asked again. A failed fetch
//! keeps the cached copy, marked `stale` with the error. A run never
//! fetches: it checks its model against the cached catalog only, so a run
//! costs no extra CLI start (`agentgate models` fills the cache, and so
//! does a long-running `agentgate serve` or `worker` in the background:
//! `refresh.rs`). Bundled tables (`static`) are neither fetched nor cached.
//! A fetch's error is redacted (the environment's and the config's
//! secrets) before it is cached or logged.

mod cache;
mod check;
mod fetch;
mod refresh;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use serde::Serialize;

use crate::config::{Config, UnknownProvider};
use agentgate_providers::catalog::{CatalogEntry, CatalogSource, static_entries};
use agentgate_providers::{Provider, locate_binary};

pub use cache::CachedCatalog;
pub(crate) use check::{CatalogCheck, check_model};
pub use fetch::FETCH_TIMEOUT;
pub use refresh::CatalogRefresher;

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct ModelQuery {
    /// These providers only; empty = every provider that has a catalog.
    pub providers: Vec<String>,
    /// Ask the CLIs again whatever the cache holds.
    pub refresh: bool,
    /// Also the models a CLI hides.
    pub all: bool,
    /// The folder the CLIs are asked in (they read their project config
    /// from there).
    pub cwd: PathBuf,
}

/// Why the models could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum ModelListError {
    /// A provider neither built in nor described in the config.
    #[error(transparent)]
    UnknownProvider(#[from] UnknownProvider),
}

/// One provider's catalog, as `agentgate models --json` prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProviderModels {
    /// The provider.
    pub provider: String,
    /// `cli` (the CLI listed it), `static` (agentgate's table) or `none`
    /// (agentgate knows no catalog of it).
    pub source: String,
    /// When the CLI listed it (RFC 3339); absent for a table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fetched_at: Option<String>,
    /// Read from the cache (no CLI started for this answer).
    pub cached: bool,
    /// The last refresh failed: this is the older copy (see `error`).
    pub stale: bool,
    /// Why the catalog could not be fetched (with no copy: `models` is
    /// empty).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The binary that listed it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary: Option<String>,
    /// The models (hidden ones only when asked for all).
    pub models: Vec<CatalogEntry>,
}

/// The catalogs of the providers `query` names (else of every provider
/// that has one), fetched or from the cache as the module notes say.
pub async fn list_models(
    cfg: &Config,
    query: &ModelQuery,
) -> Result<Vec<ProviderModels>, ModelListError> {
    let providers = if query.providers.is_empty() {
        cfg.all_providers()
            .into_iter()
            .filter(|p| p.catalog().is_some())
            .collect()
    } else {
        query
            .providers
            .iter()
            .map(|n| cfg.resolve_provider(n))
            .collect::<Result<Vec<_>, _>>()?
    };
    let mut out = Vec::new();
    for p in providers {
        let mut row = provider_models(cfg, p.as_ref(), query).await;
        if !query.all {
            row.models.retain(|m| !m.hidden);
        }
        out.push(row);
    }
    Ok(out)
}

async fn provider_models(cfg: &Config, p: &dyn Provider, query: &ModelQuery) -> ProviderModels {
    let name = p.name().to_owned();
    let mut row = ProviderModels {
        provider: name.clone(),
        source: "none".to_owned(),
        fetched_at: None,
        cached: false,
        stale: false,
        error: None,
        binary: None,
        models: Vec::new(),
    };
    let Some(source) = p.catalog().copied() else {
        return row;
    };
    row.source = source.kind().to_owned();
    if let CatalogSource::Static(table) = source {
        row.models = static_entries(table);
        return row;
    }
    let dir = cache::catalog_dir();
    let cached = dir.as_deref().and_then(|d| cache::read(d, &name));
    let defaults = cfg.provider_defaults(&name);
    let (program, binary, mtime) = program_of(cfg, p);
    if let Some(c) = &cached
        && !query.refresh
        && fresh(c, cfg.models.refresh, binary.as_deref(), mtime)
    {
        return from_cache(row, c.clone(), true);
    }
    let env = defaults.map(|d| d.settings.env.clone()).unwrap_or_default();
    let fetched = match &program {
        Err(e) => Err(e.to_string()),
        Ok(program) => fetch::fetch(source, program, &env, &query.cwd, FETCH_TIMEOUT).await,
    }
    .map_err(|e| redacted(cfg, &env, &e));
    let catalog = match fetched {
        Ok(models) => CachedCatalog {
            provider: name.clone(),
            source: row.source.clone(),
            fetched_at: Some(jiff::Timestamp::now().to_string()),
            binary,
            binary_mtime: mtime,
            stale: false,
            error: None,
            models,
        },
        Err(e) => match cached {
            Some(c) => CachedCatalog {
                stale: true,
                error: Some(e),
                ..c
            },
            None => {
                row.error = Some(e);
                row.binary = binary;
                return row;
            }
        },
    };
    if let Some(dir) = &dir
        && let Err(e) = cache::write(dir, &catalog)
    {
        tracing::warn!("cannot cache {name}'s catalog in {}: {e}", dir.display());
    }
    from_cache(row, catalog, false)
}

/// The CLI binary of `p` (the config's `binary:`, else found on PATH),
/// as a path, as text, and its modification time.
fn program_of(
    cfg: &Config,
    p: &dyn Provider,
) -> (
    Result<PathBuf, agentgate_providers::BinaryNotFound>,
    Option<String>,
    Option<i64>,
) {
    let explicit = cfg
        .provider_defaults(p.name())
        .and_then(|d| d.settings.binary.clone());
    let program = locate_binary(p, explicit.as_deref());
    let binary = program.as_ref().ok().map(|b| b.display().to_string());
    let mtime = program.as_ref().ok().and_then(|b| cache::mtime(b));
    (program, binary, mtime)
}

/// `text` (a fetch's error: it may quote the CLI's stderr) without the
/// secrets of agentgate's environment, of the provider's `env:` and of the
/// config's `redact:` list.
fn redacted(cfg: &Config, env: &[(String, String)], text: &str) -> String {
    let mut secrets = crate::RedactorBuilder::new();
    for (name, value) in std::env::vars().chain(env.iter().cloned()) {
        secrets.env(&name, &value);
    }
    for value in &cfg.redact {
        secrets.value(value);
    }
    secrets.build().redact_str(text).into_owned()
}

fn from_cache(row: ProviderModels, c: CachedCatalog, cached: bool) -> ProviderModels {
    ProviderModels {
        fetched_at: c.fetched_at,
        cached,
        stale: c.stale,
        error: c.error,
        binary: c.binary,
        models: c.models,
        ..row
    }
}

/// Whether the cached copy `c` can be used without asking the CLI: not
/// stale, younger than `refresh`, listed by the same binary.
fn fresh(
    c: &CachedCatalog,
    refresh: std::time::Duration,
    binary: Option<&str>,
    mtime: Option<i64>,
) -> bool {
    let young = c
        .fetched_at
        .as_deref()
        .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        .and_then(|t| jiff::Timestamp::now().duration_since(t).try_into().ok())
        .is_some_and(|age: std::time::Duration| age < refresh);
    !c.stale && young && c.binary.as_deref() == binary && c.binary_mtime == mtime
}

/// The catalog a run of `provider` is checked against: its bundled table,
/// else its cached copy (fresh or stale; `None` when there is none).
pub(crate) fn catalog_for(provider: &dyn Provider) -> Option<(CatalogSource, Vec<CatalogEntry>)> {
    let source = *provider.catalog()?;
    match source {
        CatalogSource::Static(table) => Some((source, static_entries(table))),
        _ => {
            let c = cache::read(&cache::catalog_dir()?, provider.name())?;
            Some((source, c.models))
        }
    }
}

/// The catalog entry a run of `model` with `provider` uses (exact id,
/// alias or unique tail), with the efforts it supports; `None` when no
/// catalog (bundled or cached) names it once. Reads the cache only.
pub fn catalog_entry(provider: &dyn Provider, model: &str) -> Option<CatalogEntry> {
    let (_, entries) = catalog_for(provider)?;
    agentgate_providers::catalog::entry_for(&entries, model).cloned()
}

/// The reasoning efforts `model` takes, from `catalog` (what
/// [`catalog_for`] read), for the planner to fit a requested effort to;
/// `None` when no model is named (the CLI's own default is not always the
/// catalog's), the catalog does not name it once, or lists no efforts.
pub(crate) fn catalog_efforts(
    catalog: Option<&(CatalogSource, Vec<CatalogEntry>)>,
    model: Option<&str>,
) -> Option<Vec<String>> {
    let entry = agentgate_providers::catalog::entry_for(&catalog?.1, model?)?;
    (!entry.efforts.is_empty()).then(|| entry.efforts.clone())
}
