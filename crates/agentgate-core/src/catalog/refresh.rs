//! The background refresh of the model catalogs for the long-running
//! commands (`agentgate serve`, `agentgate worker`): their runs only read
//! the cache (see the module notes of `catalog`), so without it a cached
//! catalog would age until someone ran `agentgate models`.
//!
//! One task ([`CatalogRefresher::start`]) looks at every provider whose
//! catalog a CLI lists (not a bundled table), whose binary is found and
//! whose catalog is cached: one older than `models.refresh`, stale or
//! listed by another binary is fetched again through the same path as
//! `agentgate models` (`provider_models`), at most [`CONCURRENCY`] at once.
//! A catalog never fetched is left alone: the first fetch is asked for
//! (`agentgate models`, `GET /v1/models`), so a server never starts the
//! CLIs nobody lists models of. A failed fetch
//! keeps the older copy, marked `stale` with the (redacted) error, and is
//! logged as a warning; it is tried again one `models.refresh` later, not
//! at every look. Between looks the task sleeps until the first catalog
//! comes due (at least [`MIN_WAIT`], at most `models.refresh`). Dropping
//! the refresher stops it at once: a fetch in flight is dropped, which
//! kills its CLI's process group (the supervisor's guard).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentgate_providers::Provider;
use jiff::Timestamp;
use tokio::sync::{Semaphore, watch};
use tokio::task::{JoinHandle, JoinSet};

use super::{ModelQuery, cache, fresh, program_of, provider_models};
use crate::config::Config;

/// The most catalogs fetched at once.
pub const CONCURRENCY: usize = 2;

/// The shortest wait between two looks (a shorter `models.refresh` counts
/// as this).
pub const MIN_WAIT: Duration = Duration::from_secs(1);

/// The running refresh; dropping it stops it.
#[derive(Debug)]
pub struct CatalogRefresher {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl CatalogRefresher {
    /// Starts the refresh of `config`'s catalogs on the current tokio
    /// runtime, the CLIs asked in `cwd` (they read their project config
    /// from there). `None` when there is nothing to refresh: no provider's
    /// catalog is listed by a CLI, or there is no data folder to cache in.
    pub fn start(config: Config, cwd: PathBuf) -> Option<CatalogRefresher> {
        if cache::catalog_dir().is_none() {
            tracing::debug!("no data folder: model catalogs are not refreshed in the background");
            return None;
        }
        if listed_by_a_cli(&config).is_empty() {
            return None;
        }
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(keep_fresh(Arc::new(config), cwd, stopped));
        Some(CatalogRefresher { stop, task })
    }
}

impl Drop for CatalogRefresher {
    fn drop(&mut self) {
        self.stop.send_replace(true);
        self.task.abort();
    }
}

/// The providers whose catalog a CLI lists.
fn listed_by_a_cli(cfg: &Config) -> Vec<Arc<dyn Provider>> {
    cfg.all_providers()
        .into_iter()
        .filter(|p| p.catalog().is_some_and(|c| c.authoritative()))
        .collect()
}

async fn keep_fresh(cfg: Arc<Config>, cwd: PathBuf, mut stopped: watch::Receiver<bool>) {
    let refresh = cfg.models.refresh.max(MIN_WAIT);
    let mut tried: BTreeMap<String, Timestamp> = BTreeMap::new();
    loop {
        let now = Timestamp::now();
        let mut due = Vec::new();
        let mut next = refresh;
        for p in listed_by_a_cli(&cfg) {
            match wait_for(&cfg, p.as_ref(), refresh, tried.get(p.name()), now) {
                Some(wait) => next = next.min(wait),
                None => due.push(p),
            }
        }
        tracing::debug!("model catalogs: looked, {} due", due.len());
        if due.is_empty() {
            tokio::select! {
                () = tokio::time::sleep(next.max(MIN_WAIT)) => continue,
                _ = stopped.changed() => return,
            }
        }
        for p in &due {
            tried.insert(p.name().to_owned(), now);
        }
        let round = refresh_all(&cfg, due, &cwd);
        tokio::select! {
            () = round => {}
            // The round's fetches are dropped with it (their CLIs killed).
            _ = stopped.changed() => return,
        }
    }
}

/// How long until `p`'s catalog is due; `None`: it is due now. A provider
/// whose CLI is not found, or whose catalog is not cached, is not due
/// (looked at again at the next look).
fn wait_for(
    cfg: &Config,
    p: &dyn Provider,
    refresh: Duration,
    tried: Option<&Timestamp>,
    now: Timestamp,
) -> Option<Duration> {
    let age =
        |t: &Timestamp| -> Duration { now.duration_since(*t).try_into().unwrap_or(Duration::ZERO) };
    // Tried (fetched or failed) lately: not before a full interval.
    if let Some(t) = tried
        && age(t) < refresh
    {
        return Some(refresh - age(t));
    }
    let (program, binary, mtime) = program_of(cfg, p);
    if program.is_err() {
        return Some(refresh);
    }
    let cached = cache::catalog_dir().and_then(|d| cache::read(&d, p.name()));
    match cached {
        None => Some(refresh),
        Some(c) if fresh(&c, refresh, binary.as_deref(), mtime) => {
            let fetched = c.fetched_at.as_deref()?.parse::<Timestamp>().ok()?;
            refresh.checked_sub(age(&fetched)).filter(|w| !w.is_zero())
        }
        Some(_) => None,
    }
}

/// Fetches the catalogs of `due`, [`CONCURRENCY`] at a time, and logs how
/// each went.
async fn refresh_all(cfg: &Arc<Config>, due: Vec<Arc<dyn Provider>>, cwd: &std::path::Path) {
    let permits = Arc::new(Semaphore::new(CONCURRENCY));
    let mut fetches = JoinSet::new();
    for p in due {
        let (cfg, permits) = (Arc::clone(cfg), Arc::clone(&permits));
        let query = ModelQuery {
            providers: vec![p.name().to_owned()],
            refresh: false,
            all: true,
            cwd: cwd.to_path_buf(),
        };
        fetches.spawn(async move {
            let Ok(_permit) = permits.acquire_owned().await else {
                return;
            };
            let row = provider_models(&cfg, p.as_ref(), &query).await;
            match (&row.error, row.stale) {
                (None, _) => tracing::info!(
                    provider = %row.provider,
                    "model catalog refreshed: {} models",
                    row.models.len()
                ),
                (Some(e), true) => tracing::warn!(
                    provider = %row.provider,
                    "refreshing the model catalog failed (the copy fetched at {} is kept, \
                     marked stale): {e}",
                    row.fetched_at.as_deref().unwrap_or("?")
                ),
                (Some(e), false) => tracing::warn!(
                    provider = %row.provider,
                    "refreshing the model catalog failed (there is no copy): {e}"
                ),
            }
        });
    }
    while fetches.join_next().await.is_some() {}
}
