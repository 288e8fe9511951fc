//! A stored run request, planned: the [`Plan`] a job runs, and the
//! [`PlannedFacts`] its claim is decided on. `POST /v1/runs`, schedules and
//! watched folders plan a request the same way before queueing it, and
//! store those facts in the job's columns: one planning at submit for the
//! claim, and one again at execution, only because the config may have
//! changed meanwhile (a request that no longer plans then fails). The
//! planning itself is `planning.rs`, shared with whoever queues.
//!
//! A planning error becomes a [`RequestError`] naming the field the error
//! carries ([`PlanError::field`](agentgate_core::PlanError::field)):
//! the 422 of `POST /v1/runs` and a refused job's error name it; nothing
//! reads a field out of a message.

use agentgate_core::Config;
use agentgate_core::Plan;
use agentgate_core::{RequestError, RunRequest};
use agentgate_store::JobRecord;
use jiff::Timestamp;

use crate::job_request::{JobRequest, KIND_TAG};
pub use crate::planning::{claim_facts, plan_providers, plan_request};

/// Plan a stored run job: its request read back typed ([`JobRequest`])
/// and planned. A workflow job has no plan of its own (see
/// `workflow_job.rs`): refused, naming `kind`.
pub fn plan_job(
    cfg: &Config,
    job: &JobRecord,
    now: Timestamp,
) -> Result<(Plan, RunRequest), RequestError> {
    let request = match JobRequest::of(job)? {
        JobRequest::Run(request) => *request,
        JobRequest::Workflow(_) => {
            return Err(RequestError::new(
                KIND_TAG,
                "a workflow job is run by the workflow engine, not planned as a run",
            ));
        }
    };
    let plan = plan_request(cfg, &request, now)?;
    Ok((plan, request))
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
    pub fn restrict(&self, mut plan: agentgate_core::Plan) -> Option<agentgate_core::Plan> {
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
            // Each message below names another flag than the field: the
            // field is the error's, never read from its text.
            (
                serde_json::json!({"prompt": "hi", "providers": ["claude", "codex"], "resume": "s"}),
                "resume",
            ),
            (
                serde_json::json!({"prompt": "hi", "providers": ["claude"], "persona": "x"}),
                "persona",
            ),
            (
                serde_json::json!({"prompt": "hi", "providers": ["claude"], "context": ["/no/such.md"]}),
                "context",
            ),
        ] {
            let request = RunRequest::from_value(request.clone()).unwrap();
            let err = plan_request(&cfg, &request, now).unwrap_err();
            assert_eq!(err.field, field, "{request:?}: {err}");
        }
    }

    /// Rows queued by an older version (untagged runs, workflows with their
    /// `kind` field) and rows queued now (tagged) are read from a real store
    /// as what they are: planned and loaded (the server's `views` tests
    /// show them).
    #[test]
    fn old_and_new_rows_of_a_store_are_planned_and_shown() {
        use agentgate_core::Config;
        use agentgate_store::{JobQueue, NewJob, Store};

        use crate::executor::workflow_job::workflow_of;
        use crate::job_request::JobRequest;
        use serde_json::json;

        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("agentgate.db")).unwrap();
        let cwd = dir.path().display().to_string();
        let body =
            json!({"prompt": "hi", "providers": ["claude"], "cwd": cwd, "ignore_quota": true});
        let tagged = JobRequest::from_stored(body.clone())
            .unwrap()
            .to_stored()
            .unwrap();
        // As an older version stored it: the tag was a field of its own.
        let workflow = json!({
            "kind": "workflow",
            "workflow": {"version": 1, "name": "w", "steps": [{"id": "a", "tool": "scanner"}]},
            "input": {"n": 1},
            "base_dir": cwd,
        });
        let now = jiff::Timestamp::now();
        for (id, request) in [("old", body.clone()), ("new", tagged), ("wf", workflow)] {
            let job = NewJob {
                job_id: id.to_owned(),
                request,
                priority: 0,
                not_before: None,
                idempotency_key: None,
                providers: Vec::new(),
                session: None,
                writes_in: None,
                ignore_quota: false,
                planned: false,
                labels: Default::default(),
            };
            store.enqueue(&job, now).unwrap();
        }
        let cfg = Config::default();
        for id in ["old", "new"] {
            let job = store.get_job(id).unwrap().unwrap();
            assert!(workflow_of(&job).is_none(), "{id}");
            let (plan, request) = plan_job(&cfg, &job, now).unwrap();
            assert_eq!(plan.steps[0].provider.name(), "claude", "{id}");
            assert!(request.ignore_quota, "{id}");
        }
        let job = store.get_job("wf").unwrap().unwrap();
        let (wf, input) = workflow_of(&job).unwrap().unwrap();
        assert_eq!((wf.def.name.as_str(), input), ("w", json!({"n": 1})));
        assert_eq!(plan_job(&cfg, &job, now).unwrap_err().field, "kind");
    }
}
