//! A run request and an idempotency key, as a job for the queue: the
//! same [`JobRequest::Run`] `POST /v1/runs` stores.

use agentgate_core::Config;
use agentgate_core::RunRequest;
use agentgate_core::new_run_id;
use agentgate_core::sealed::{KeyRing, SealError};
use agentgate_store::NewJob;

use crate::job_request::JobRequest;

/// The job that runs `request` under `key`: a new run id, the request (with
/// the key in it) as the job's request, its priority, and what its claim
/// needs, from planning it against `config` at `now` (the providers, the
/// folder it may write in, `ignore_quota`; see `crate::planning::claim_facts`);
/// the request's secrets sealed with `keys` (see [`agentgate_core::sealed`]).
/// A request that does not plan now is queued all the same, unplanned,
/// with the providers it names (the agents' and the chain's providers
/// resolved through `config`): the executor plans it before claiming it,
/// and it fails when claimed if it still does not plan, as it always did.
pub fn new_job(
    request: &RunRequest,
    key: &str,
    config: &Config,
    keys: &KeyRing,
    now: jiff::Timestamp,
) -> Result<NewJob, SealError> {
    let mut request = request.clone();
    request.idempotency_key = Some(key.to_owned());
    let (facts, planned) = match crate::planning::plan_request(config, &request, now) {
        Ok(plan) => (crate::planning::claim_facts(&plan, &request), true),
        Err(_) => (
            agentgate_store::PlannedFacts {
                providers: named_providers(&request, config),
                writes_in: None,
                ignore_quota: request.ignore_quota,
            },
            false,
        ),
    };
    let job_id = new_run_id();
    // Stored as `POST /v1/runs` stores a run (see `job_request.rs`).
    let stored = JobRequest::Run(Box::new(request.clone())).to_sealed(keys, &job_id)?;
    Ok(NewJob {
        job_id,
        request: stored,
        priority: i32::try_from(request.priority).unwrap_or(0),
        not_before: None,
        idempotency_key: Some(key.to_owned()),
        providers: facts.providers,
        session: request.session.clone(),
        writes_in: facts.writes_in,
        ignore_quota: facts.ignore_quota,
        planned,
        labels: request.labels.clone(),
    })
}

/// The providers `request` names: its own, else its agents' (or its
/// chain's agents') providers resolved through `config`, each once.
fn named_providers(request: &RunRequest, config: &Config) -> Vec<String> {
    if !request.providers.is_empty() {
        return request.providers.clone();
    }
    let agents: Vec<String> = match &request.chain {
        Some(chain) => config
            .chain(chain)
            .map(|c| c.agents.clone())
            .unwrap_or_default(),
        None => request.agents.clone(),
    };
    let mut providers: Vec<String> = Vec::new();
    for agent in agents.iter().filter_map(|a| config.agent(a)) {
        if !providers.contains(&agent.provider) {
            providers.push(agent.provider.clone());
        }
    }
    providers
}
