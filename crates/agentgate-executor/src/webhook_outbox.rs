//! Webhook messages written to the store's outbox when their event
//! happens (`agentgate serve`'s delivery worker sends them later; see
//! docs/operating/webhooks.md):
//!
//! - [`job_written`]: a job's state was just written by the executor
//!   running it (`executor/job.rs`, after the run's end): a final state is
//!   `run.ended` (to the subscriptions and to the request's
//!   `callback_url`), a job queued again with `waiting_for` (a quota's
//!   reset, a budget) is `job.waiting`; the executor that takes back an
//!   expired lease (its holder died or lost the store) and so ends the job
//!   (abandoned past its attempts, or cancelled) calls it too: `run.ended`;
//! - [`approval_requested`]: a run waits for a person's answer;
//! - [`BudgetWarnings`]: the sink of a job's run, which writes
//!   `budget.warning` when the run sends `budget_warning` (once per budget
//!   and run: `crate::budget`'s `warn_at`).
//!
//! Nothing here blocks a run or fails it: a store that refuses the write
//! is logged, and the run goes on. A message's id is derived from its
//! event (the job's id and what happened to it), so two processes that
//! see the same event write it once (the outbox ignores a message id and
//! URL it holds already) and the receiver sees the same `webhook-id` on
//! every try.
//!
//! The body is `{type, timestamp, data}` (the Standard Webhooks payload);
//! `data` holds the job's stored facts and its envelope, which the run
//! redacted before storing it: no secret reaches a receiver.

use agentgate_core::{Config, EventSink, WebhookEvent};
use agentgate_protocol::{Event, EventBody, StatusEvent};
use agentgate_store::{JobRecord, JobState, NewWebhookDelivery, StoreBackend};
use jiff::Timestamp;
use serde_json::{Value, json};

/// The field of a run request naming the URL its `run.ended` goes to.
pub const CALLBACK_FIELD: &str = "callback_url";

/// Whether anything could be written for `event` (a subscription, or a
/// request's callback for `run.ended`).
fn wanted(config: &Config, event: WebhookEvent) -> bool {
    config.webhooks.secret.is_some()
        && (event == WebhookEvent::RunEnded || config.webhooks.urls_for(event).next().is_some())
}

/// The job `job_id`'s state was written: its `run.ended` or `job.waiting`,
/// if anyone wants it.
pub fn job_written(store: &dyn StoreBackend, config: &Config, now: Timestamp, job_id: &str) {
    if !wanted(config, WebhookEvent::RunEnded) && !wanted(config, WebhookEvent::JobWaiting) {
        return;
    }
    let job = match store.get_job(job_id) {
        Ok(Some(job)) => job,
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(job = job_id, "cannot read the job for its webhooks: {e}");
            return;
        }
    };
    let deliveries = deliveries_for(config, &job, now);
    write(store, &deliveries, now);
}

/// What `job`'s state calls for (see the module notes).
pub fn deliveries_for(config: &Config, job: &JobRecord, now: Timestamp) -> Vec<NewWebhookDelivery> {
    if job.state.is_final() {
        let mut urls: Vec<String> = config
            .webhooks
            .urls_for(WebhookEvent::RunEnded)
            .map(str::to_owned)
            .collect();
        if let Some(url) = job.request.get(CALLBACK_FIELD).and_then(Value::as_str)
            && !urls.iter().any(|u| u == url)
        {
            urls.push(url.to_owned());
        }
        let data = json!({
            "job_id": job.job_id,
            "state": job.state.as_str(),
            "ended_at": job.ended_at,
            "attempts": job.attempts,
            "error": job.error,
            "labels": job.request.get("labels"),
            "envelope": job.envelope,
        });
        let id = format!("msg_{}_ended", job.job_id);
        return messages(
            &id,
            WebhookEvent::RunEnded,
            &urls,
            Some(&job.job_id),
            data,
            now,
        );
    }
    if job.state == JobState::Queued
        && let Some(waiting_for) = &job.waiting_for
    {
        let urls: Vec<String> = config
            .webhooks
            .urls_for(WebhookEvent::JobWaiting)
            .map(str::to_owned)
            .collect();
        let data = json!({
            "job_id": job.job_id,
            "state": job.state.as_str(),
            "waiting_for": waiting_for,
            "not_before": job.not_before,
            "attempts": job.attempts,
            "providers": job.providers,
            "labels": job.request.get("labels"),
        });
        let id = format!(
            "msg_{}_waiting_{}_{}",
            job.job_id,
            waiting_for,
            job.not_before.as_millisecond()
        );
        return messages(
            &id,
            WebhookEvent::JobWaiting,
            &urls,
            Some(&job.job_id),
            data,
            now,
        );
    }
    Vec::new()
}

/// The run `run_id` (of job `job_id`, when known) waits for a person's
/// answer to `request_id`: `approval.requested` to its subscriptions.
pub fn approval_requested(
    store: &dyn StoreBackend,
    config: &Config,
    now: Timestamp,
    run_id: &str,
    request_id: &str,
) {
    if !wanted(config, WebhookEvent::ApprovalRequested) {
        return;
    }
    let urls: Vec<String> = config
        .webhooks
        .urls_for(WebhookEvent::ApprovalRequested)
        .map(str::to_owned)
        .collect();
    let data = json!({
        "run_id": run_id,
        "request_id": request_id,
        "approvals": format!("/v1/runs/{run_id}/approvals"),
    });
    let id = format!("msg_{run_id}_approval_{request_id}");
    let deliveries = messages(
        &id,
        WebhookEvent::ApprovalRequested,
        &urls,
        Some(run_id),
        data,
        now,
    );
    write(store, &deliveries, now);
}

/// The sink of a job's run: `budget.warning` for each `budget_warning`
/// event (see the module notes).
#[derive(Debug)]
pub struct BudgetWarnings<'a> {
    /// Where the messages go.
    pub store: &'a dyn StoreBackend,
    /// The subscriptions.
    pub config: &'a Config,
    /// The clock of the schedule.
    pub clock: &'a dyn crate::clock::Clock,
    /// The job the run belongs to.
    pub job_id: &'a str,
}

impl EventSink for BudgetWarnings<'_> {
    fn emit(&mut self, event: &Event) {
        let EventBody::Status(StatusEvent::BudgetWarning {
            budget,
            measure,
            spent,
            limit,
            share,
        }) = &event.body
        else {
            return;
        };
        if !wanted(self.config, WebhookEvent::BudgetWarning) {
            return;
        }
        let urls: Vec<String> = self
            .config
            .webhooks
            .urls_for(WebhookEvent::BudgetWarning)
            .map(str::to_owned)
            .collect();
        let data = json!({
            "job_id": self.job_id,
            "run_id": event.run_id,
            "budget": budget,
            "measure": measure,
            "spent": spent,
            "limit": limit,
            "share": share,
        });
        // One per budget and run, as the event.
        let id = format!(
            "msg_{}_budget_{}_{measure}",
            event.run_id,
            budget.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        );
        let now = self.clock.now();
        let deliveries = messages(
            &id,
            WebhookEvent::BudgetWarning,
            &urls,
            Some(self.job_id),
            data,
            now,
        );
        write(self.store, &deliveries, now);
    }
}

fn messages(
    id: &str,
    event: WebhookEvent,
    urls: &[String],
    job_id: Option<&str>,
    data: Value,
    now: Timestamp,
) -> Vec<NewWebhookDelivery> {
    let body = json!({
        "type": event.as_str(),
        "timestamp": now,
        "data": data,
    });
    let payload = body.to_string();
    urls.iter()
        .map(|url| NewWebhookDelivery {
            message_id: id.to_owned(),
            event: event.as_str().to_owned(),
            url: url.clone(),
            payload: payload.clone(),
            job_id: job_id.map(str::to_owned),
        })
        .collect()
}

fn write(store: &dyn StoreBackend, deliveries: &[NewWebhookDelivery], now: Timestamp) {
    if deliveries.is_empty() {
        return;
    }
    if let Err(e) = store.enqueue_webhooks(deliveries, now) {
        tracing::warn!(
            event = deliveries.first().map_or("", |d| d.event.as_str()),
            "failed to write a webhook message to the outbox (it is not delivered): {e}"
        );
    }
}
