//! This process's counters since it started: what its executor claimed,
//! lost and handed back, and how each run it finished went. The executor
//! feeds them as its [`JobObserver`] (it knows the trait, not this type).

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use agentgate_protocol::TokensUsed;

use super::text::{Exposition, Histogram, Kind};
use crate::executor::observer::JobObserver;
use crate::executor::observer::RunEnd;

/// The counters of one process (see the module notes). Shared by its
/// executor, which counts through [`JobObserver`], and its `/metrics`
/// route, which reads.
#[derive(Debug, Default)]
pub struct Metrics {
    claims: AtomicU64,
    lease_losses: AtomicU64,
    handed_back: AtomicU64,
    runs: Mutex<Runs>,
}

#[derive(Debug, Default)]
struct Runs {
    finished: BTreeMap<(String, RunEnd), u64>,
    by_provider: BTreeMap<String, ProviderTotals>,
}

#[derive(Debug, Default)]
struct ProviderTotals {
    durations: Histogram,
    input_tokens: u64,
    output_tokens: u64,
    cache_read_tokens: u64,
    cache_write_tokens: u64,
    cost_usd: f64,
}

impl JobObserver for Metrics {
    fn claimed(&self) {
        self.claims.fetch_add(1, Ordering::Relaxed);
    }

    fn lease_lost(&self) {
        self.lease_losses.fetch_add(1, Ordering::Relaxed);
    }

    fn handed_back(&self) {
        self.handed_back.fetch_add(1, Ordering::Relaxed);
    }

    fn run_finished(&self, provider: &str, end: RunEnd, duration: Duration, tokens: &TokensUsed) {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        *runs.finished.entry((provider.to_owned(), end)).or_default() += 1;
        let totals = runs.by_provider.entry(provider.to_owned()).or_default();
        totals.durations.observe(duration.as_secs_f64());
        totals.input_tokens += tokens.input_tokens;
        totals.output_tokens += tokens.output_tokens;
        totals.cache_read_tokens += tokens.cache_read_input_tokens;
        totals.cache_write_tokens += tokens.cache_creation_input_tokens;
        totals.cost_usd += tokens.cost_usd.unwrap_or(0.0);
    }
}

impl Metrics {
    /// Write every counter family.
    pub fn write(&self, page: &mut Exposition) {
        let counters = [
            (
                "agentgate_claims_total",
                "Jobs this process's executor claimed to run, since it started.",
                &self.claims,
            ),
            (
                "agentgate_lease_losses_total",
                "Leases this process found lost (another executor took the job back): \
                 its run was stopped.",
                &self.lease_losses,
            ),
            (
                "agentgate_handed_back_jobs_total",
                "Running jobs this process handed back to the queue when it stopped.",
                &self.handed_back,
            ),
        ];
        for (name, help, value) in counters {
            page.family(name, Kind::Counter, help);
            page.sample(name, &[], value.load(Ordering::Relaxed));
        }
        let runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        let name = "agentgate_runs_finished_total";
        page.family(
            name,
            Kind::Counter,
            "Runs this process finished, by the provider that ran last and how the job went on.",
        );
        for ((provider, end), n) in &runs.finished {
            page.sample(
                name,
                &[("provider", provider), ("outcome", end.as_str())],
                n,
            );
        }
        let name = "agentgate_run_duration_seconds";
        page.family(
            name,
            Kind::Histogram,
            "How long the runs this process finished took (the envelope's duration).",
        );
        for (provider, totals) in &runs.by_provider {
            page.histogram(name, &[("provider", provider)], &totals.durations);
        }
        type Field = fn(&ProviderTotals) -> u64;
        let tokens: [(&str, &str, Field); 4] = [
            (
                "agentgate_input_tokens_total",
                "Billed input tokens of the runs this process finished (cache reads and writes included).",
                |t| t.input_tokens,
            ),
            (
                "agentgate_output_tokens_total",
                "Output tokens of the runs this process finished (reasoning included).",
                |t| t.output_tokens,
            ),
            (
                "agentgate_cache_read_tokens_total",
                "Input tokens read from the prompt cache, of the runs this process finished.",
                |t| t.cache_read_tokens,
            ),
            (
                "agentgate_cache_write_tokens_total",
                "Input tokens written to the prompt cache, of the runs this process finished.",
                |t| t.cache_write_tokens,
            ),
        ];
        for (name, help, field) in tokens {
            page.family(name, Kind::Counter, help);
            for (provider, totals) in &runs.by_provider {
                page.sample(name, &[("provider", provider)], field(totals));
            }
        }
        let name = "agentgate_cost_usd_total";
        page.family(
            name,
            Kind::Counter,
            "Cost in US dollars of the runs this process finished, as the CLIs reported it.",
        );
        for (provider, totals) in &runs.by_provider {
            page.sample(name, &[("provider", provider)], totals.cost_usd);
        }
    }
}
