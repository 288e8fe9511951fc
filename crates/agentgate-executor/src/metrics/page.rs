//! The page a scrape answers: the store's gauges, then this process's
//! executor and counters (see the module notes of [`crate::metrics`]).

use agentgate_store::{JobState, Presence, StoreBackend, WorkerKind};
use jiff::Timestamp;

use super::registry::Metrics;
use super::text::{Exposition, Kind};
use crate::executor::Executor;

/// The whole page: the cluster gauges read from `store` at `now`, this
/// process's executor (if any) and its counters.
pub fn render(
    store: &dyn StoreBackend,
    now: Timestamp,
    metrics: &Metrics,
    executor: Option<&Executor>,
) -> String {
    let mut page = Exposition::default();
    let active = store.count_active_jobs();
    let workers = store.list_workers();
    let up = match (&active, &workers) {
        (Ok(_), Ok(_)) => 1,
        (Err(e), _) | (_, Err(e)) => {
            tracing::warn!("a metrics scrape failed to read the store: {e}");
            0
        }
    };
    page.family(
        "agentgate_store_up",
        Kind::Gauge,
        "1 when this scrape read the store, 0 when it failed (the store's gauges are then left out).",
    );
    page.sample("agentgate_store_up", &[], up);
    if let Ok(active) = active {
        let name = "agentgate_queue_jobs";
        page.family(
            name,
            Kind::Gauge,
            "Queued and running jobs of the store, by provider: a running job under the provider \
             its claim charged, a queued one under the first provider it names.",
        );
        for count in &active {
            let provider = count.provider.as_deref().unwrap_or("");
            let labels = [("state", count.state.as_str()), ("provider", provider)];
            page.sample(name, &labels, count.jobs);
        }
        let running: u64 = active
            .iter()
            .filter(|c| c.state == JobState::Running)
            .map(|c| c.jobs)
            .sum();
        let name = "agentgate_running_jobs";
        page.family(
            name,
            Kind::Gauge,
            "Running jobs of the store, of every executor.",
        );
        page.sample(name, &[], running);
    }
    if let Ok(workers) = workers {
        let name = "agentgate_workers";
        page.family(
            name,
            Kind::Gauge,
            "Executors registered in the store (serve and worker processes), by kind and \
             presence (lost: silent for three heartbeats).",
        );
        for kind in [WorkerKind::Serve, WorkerKind::Worker] {
            for presence in [Presence::Running, Presence::Draining, Presence::Lost] {
                let n = workers
                    .iter()
                    .filter(|w| w.kind == kind && w.presence(now) == presence)
                    .count();
                let labels = [("kind", kind.as_str()), ("state", presence_name(presence))];
                page.sample(name, &labels, n);
            }
        }
    }
    let name = "agentgate_executor_running_jobs";
    page.family(
        name,
        Kind::Gauge,
        "Jobs this process's executor runs now (0 without one).",
    );
    let here = executor.map_or(0, |e| e.running_job_ids().len());
    page.sample(name, &[], here);
    metrics.write(&mut page);
    page.finish()
}

/// The label value of a presence, as `GET /v1/workers` names it.
fn presence_name(presence: Presence) -> &'static str {
    match presence {
        Presence::Running => "running",
        Presence::Draining => "draining",
        Presence::Lost => "lost",
    }
}
