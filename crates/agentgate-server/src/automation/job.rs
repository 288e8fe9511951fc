//! A run request and an idempotency key, as a job for the queue: the
//! same [`JobRequest::Run`] `POST /v1/runs` stores.

use agentgate_core::config::Config;
use agentgate_core::request::RunRequest;
use agentgate_core::run::new_run_id;
use agentgate_core::sealed::{KeyRing, SealError};
use agentgate_store::NewJob;

use crate::job_request::JobRequest;

/// The job that runs `request` under `key`: a new run id, the request (with
/// the key in it) as the job's request, its priority, and the providers it
/// names (the agents' and the chain's providers resolved through `config`),
/// for the queue's per-provider listing and limits; the request's secrets
/// sealed with `keys` (see [`agentgate_core::sealed`]).
pub fn new_job(
    request: &RunRequest,
    key: &str,
    config: &Config,
    keys: &KeyRing,
) -> Result<NewJob, SealError> {
    let mut request = request.clone();
    request.idempotency_key = Some(key.to_owned());
    let providers = if !request.providers.is_empty() {
        request.providers.clone()
    } else {
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
        providers,
        session: request.session.clone(),
    })
}
