//! A run request planned for the queue, outside the executor so that
//! whoever queues a job (`POST /v1/runs`, schedules, watched folders) plans
//! it as the executor will: the [`Plan`], and the claim facts stored in the
//! job's columns at submit (see `executor/facts.rs`).

use agentgate_core::Config;
use agentgate_core::PermissionMode;
use agentgate_core::{Plan, plan};
use agentgate_core::{RequestError, RunRequest};
use agentgate_store::PlannedFacts;
use jiff::Timestamp;

/// Plan `request` against `cfg` with the clock at `now`.
pub fn plan_request(
    cfg: &Config,
    request: &RunRequest,
    now: Timestamp,
) -> Result<Plan, RequestError> {
    let (mut flags, task) = request.to_flags()?;
    flags.now = Some(now);
    Ok(plan(cfg, &flags, task)?)
}

/// What a claim needs to know of a job planned as `plan`, stored in its
/// columns at submit (see `agentgate_store::claim_next`): the plan's
/// providers, the folder it may write in (the working directory, when
/// some step may write in it: permission mode other than `plan`; jobs
/// writing in one folder run one at a time), and `ignore_quota`.
pub fn claim_facts(plan: &Plan, request: &RunRequest) -> PlannedFacts {
    let writes_in = plan
        .steps
        .iter()
        .find(|s| s.request.permission_mode != PermissionMode::Plan)
        .map(|s| s.request.cwd.to_string_lossy().into_owned());
    PlannedFacts {
        providers: plan_providers(plan),
        writes_in,
        ignore_quota: request.ignore_quota,
    }
}

/// The plan's providers in failover order, each once.
pub fn plan_providers(plan: &Plan) -> Vec<String> {
    let mut providers: Vec<String> = Vec::new();
    for step in &plan.steps {
        let name = step.provider.name();
        if !providers.iter().any(|p| p == name) {
            providers.push(name.to_owned());
        }
    }
    providers
}
