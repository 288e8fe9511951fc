//! A stored run request, planned: the [`Plan`] a job runs, and the
//! [`PlannedFacts`] its claim is decided on. `POST /v1/runs`, schedules and
//! watched folders plan a request the same way before queueing it, and
//! store those facts in the job's columns: one planning at submit for the
//! claim, and one again at execution, only because the config may have
//! changed meanwhile (a request that no longer plans then fails).

use agentgate_core::config::Config;
use agentgate_core::plan::{self, Plan, PlanError};
use agentgate_core::request::{RequestError, RunRequest};
use agentgate_core::settings::PermissionMode;
use agentgate_store::{JobRecord, PlannedFacts};
use jiff::Timestamp;

/// Plan `request` against `cfg` with the clock at `now`.
pub fn plan_request(
    cfg: &Config,
    request: &RunRequest,
    now: Timestamp,
) -> Result<Plan, RequestError> {
    let (mut flags, task) = request.to_flags()?;
    flags.now = Some(now);
    plan::plan(cfg, &flags, task)
        .map_err(|e| RequestError::new(plan_error_field(&e), e.to_string()))
}

/// Plan a stored job: its request read back and planned.
pub fn plan_job(
    cfg: &Config,
    job: &JobRecord,
    now: Timestamp,
) -> Result<(Plan, RunRequest), RequestError> {
    let request = RunRequest::from_value(job.request.clone())?;
    let plan = plan_request(cfg, &request, now)?;
    Ok((plan, request))
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

/// The request field a planning error is about.
fn plan_error_field(e: &PlanError) -> String {
    match e {
        PlanError::NoProvider(_) | PlanError::UnknownProvider(_) => "providers".into(),
        PlanError::UnknownAgent { .. } => "agents".into(),
        PlanError::UnknownChain { .. } => "chain".into(),
        PlanError::Cwd { .. } => "cwd".into(),
        PlanError::OutputSchema(_) => "output_schema".into(),
        PlanError::Prompt(_) => "task".into(),
        PlanError::Read { what, .. } | PlanError::ReadInput { what, .. } => field_of_flag(what),
        PlanError::OneProviderOnly(_) => "request".into(),
        PlanError::OwnVariable { place, .. } if place.starts_with("MCP") => "request".into(),
        PlanError::OwnVariable { .. } => "env".into(),
    }
}

/// `--system-file PATH` → `system_file`; `--add-dir D` → `add_dirs`; what
/// names no flag → `request`.
fn field_of_flag(what: &str) -> String {
    let Some(flag) = what
        .strip_prefix("--")
        .and_then(|w| w.split_whitespace().next())
    else {
        return "request".into();
    };
    match flag {
        "add-dir" => "add_dirs".into(),
        other => other.replace('-', "_"),
    }
}

/// Which jobs an executor limited to some providers claims, and how it runs
/// them: a job is claimed only when the provider the limits choose for it
/// (its first provider whose quota is not known exhausted) is one of them,
/// and its run tries only those providers: the steps of a failover chain
/// whose provider this host does not have are left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderFilter(pub(super) Vec<String>);

impl ProviderFilter {
    /// Whether a job counted against `provider` may be claimed.
    pub fn claims(&self, provider: Option<&str>) -> bool {
        provider.is_some_and(|p| self.0.iter().any(|q| q == p))
    }

    /// `plan` without the steps of other providers; `None` when none is left.
    pub fn restrict(
        &self,
        mut plan: agentgate_core::plan::Plan,
    ) -> Option<agentgate_core::plan::Plan> {
        plan.steps
            .retain(|step| self.0.iter().any(|p| p == step.provider.name()));
        (!plan.steps.is_empty()).then_some(plan)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planning_errors_name_the_request_field() {
        assert_eq!(field_of_flag("--system-file /x/y"), "system_file");
        assert_eq!(field_of_flag("--add-dir /x"), "add_dirs");
        assert_eq!(field_of_flag("the current directory"), "request");
        let cfg = Config::default();
        let now = Timestamp::now();
        for (request, field) in [
            (
                serde_json::json!({"prompt": "hi", "providers": ["nope"]}),
                "providers",
            ),
            (
                serde_json::json!({"prompt": "hi", "agents": ["nope"]}),
                "agents",
            ),
            (
                serde_json::json!({"prompt": "hi", "chain": "nope"}),
                "chain",
            ),
            (
                serde_json::json!({"prompt": "hi", "providers": ["claude"], "cwd": "/no/such/dir"}),
                "cwd",
            ),
            (
                serde_json::json!({"prompt": "hi", "providers": ["claude"], "system_file": "/no/such"}),
                "system_file",
            ),
        ] {
            let request = RunRequest::from_value(request.clone()).unwrap();
            let err = plan_request(&cfg, &request, now).unwrap_err();
            assert_eq!(err.field, field, "{request:?}: {err}");
        }
    }
}
