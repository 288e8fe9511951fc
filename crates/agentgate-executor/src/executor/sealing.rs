//! The queue's secrets, sealed (see [`agentgate_core::sealed`] for what
//! and how): this server seals every job it enqueues (`POST /v1/runs`,
//! `POST /v1/workflows`, schedules, watched folders) and its executor opens
//! each job it reads before planning it.
//!
//! The keys: `serve` reads the key file or creates it (it seals); a worker
//! only reads it (it opens what a `serve` sealed, and an absent file is an
//! empty ring). How a request is sealed depends on its kind, read from
//! its tag alone ([`JobKind::of`]): a run's request is one run request, a
//! workflow's has one per agent step; a request whose tag does not read
//! is sealed as a run's (no secret is left in clear for want of a tag).
//! A job sealed with a key this process lacks is handed back
//! when claimed (charged nothing), named once in the log, and passed over by
//! this executor's later claims, for an executor that has the key; one
//! whose sealed values do not open under their key fails with that reason.

use agentgate_core::sealed::{self, KeyRing, SealError};
use agentgate_store::{JobRecord, JobState, NewJob};
use serde_json::Value;

use super::{Inner, lock};
use crate::job_request::JobKind;

/// Whether the stored `request` is a workflow's (by its tag).
fn is_workflow(request: &Value) -> bool {
    JobKind::of(request) == Ok(JobKind::Workflow)
}

impl Inner {
    /// Forget the jobs sealed with a key this executor lacks that are no
    /// longer queued (another executor ran them, or they were cancelled):
    /// the claims pass over the others. One read per such job.
    pub(super) fn forget_unopenable(&self) {
        let ids: Vec<String> = lock(&self.shared).unopenable.iter().cloned().collect();
        for id in ids {
            let queued = match self.store.get_job(&id) {
                Ok(job) => job.is_some_and(|j| j.state == JobState::Queued),
                Err(_) => true,
            };
            if !queued {
                lock(&self.shared).unopenable.remove(&id);
            }
        }
    }
}

/// Seal the secrets of `job`'s request in place.
pub fn seal_job(job: &mut NewJob, keys: &KeyRing) -> Result<(), SealError> {
    seal_request(&mut job.request, keys, &job.job_id)
}

/// Seal the secrets of a job's request (a run's or a workflow's): see
/// [`crate::job_request::seal_stored`].
pub fn seal_request(request: &mut Value, keys: &KeyRing, job_id: &str) -> Result<(), SealError> {
    crate::job_request::seal_stored(request, keys, job_id)
}

/// Open the sealed secrets of `job`'s request in place.
pub fn open_job(job: &mut JobRecord, keys: &KeyRing) -> Result<(), SealError> {
    if is_workflow(&job.request) {
        if let Some(def) = job.request.get_mut("workflow") {
            sealed::open_workflow(def, keys, &job.job_id)?;
        }
        return Ok(());
    }
    match job.request.as_object_mut() {
        Some(object) => sealed::open_request(object, keys, &job.job_id),
        None => Ok(()),
    }
}

/// A job's request as the API shows it: without its sealed values (each
/// `env` value of a sealed request reads `[sealed]`).
pub fn without_sealed(mut request: Value) -> Value {
    if is_workflow(&request) {
        if let Some(def) = request.get_mut("workflow") {
            sealed::strip_workflow(def);
        }
    } else if let Some(object) = request.as_object_mut() {
        object.remove(sealed::SEALED_FIELD);
    }
    request
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentgate_core::sealed::SealKey;
    use serde_json::json;

    #[test]
    fn a_run_and_a_workflow_job_are_sealed_and_opened_again() {
        let keys = KeyRing::of(vec![SealKey::new([5; 32])]);
        let run = json!({"prompt": "p", "env": {"EXTRA_API_KEY": "sk-0123456789abc"}});
        let agent = json!({"prompt": "p", "env": {"T": "tok-0123456789abc"}});
        let workflow = json!({
            "kind": "workflow", "base_dir": "/w", "input": null,
            "workflow": {"version": 1, "name": "w", "steps": [{"id": "a", "agent": agent}]},
        });
        for (id, request, secret) in [
            ("job_r", run, "sk-0123456789abc"),
            ("job_w", workflow, "tok-0123456789abc"),
        ] {
            let mut job = NewJob {
                job_id: id.to_owned(),
                request: request.clone(),
                priority: 0,
                not_before: None,
                idempotency_key: None,
                providers: Vec::new(),
                session: None,
                writes_in: None,
                ignore_quota: false,
                planned: true,
                labels: Default::default(),
            };
            seal_job(&mut job, &keys).unwrap();
            let stored = job.request.to_string();
            assert!(!stored.contains(secret), "{stored}");
            let shown = without_sealed(job.request.clone()).to_string();
            assert!(!shown.contains("\"sealed\":{"), "{shown}");
            let mut opened = job.request.clone();
            if is_workflow(&opened) {
                sealed::open_workflow(opened.get_mut("workflow").unwrap(), &keys, id).unwrap();
            } else {
                sealed::open_request(opened.as_object_mut().unwrap(), &keys, id).unwrap();
            }
            assert_eq!(opened, request);
        }
    }
}
