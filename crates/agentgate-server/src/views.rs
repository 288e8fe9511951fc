//! The API's contract: the JSON bodies the read routes answer, as types.
//! The OpenAPI document (openapi.rs) is generated from them, so a
//! change here is a change of the API: regenerate `docs/openapi.json`.
//!
//! The views are made from the store's records, never serialised from them
//! directly: a change of the store does not change the API by accident, and
//! nothing secret (a lease token) can slip into an answer.

use agentgate_protocol::Envelope;
use agentgate_store::{JobRecord, JobState, SessionRecord};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use agentgate_executor::{JobKind, JobRequest};

/// Where a run is. A queued run waits to be claimed (see `not_before` and
/// `waiting_for`); the last four are final.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunState {
    /// Waiting to be claimed.
    Queued,
    /// Claimed by an executor, which is running it.
    Running,
    /// Ended without error.
    Succeeded,
    /// Ended with an error.
    Failed,
    /// Cancelled: while queued, or while running.
    Cancelled,
    /// Its executor stopped renewing its lease (it died) and the policy was
    /// to abandon it.
    Abandoned,
}

impl From<JobState> for RunState {
    fn from(state: JobState) -> Self {
        match state {
            JobState::Queued => Self::Queued,
            JobState::Running => Self::Running,
            JobState::Succeeded => Self::Succeeded,
            JobState::Failed => Self::Failed,
            JobState::Cancelled => Self::Cancelled,
            JobState::Abandoned => Self::Abandoned,
        }
    }
}

/// One run: `GET /v1/runs/{id}`, and each item of `GET /v1/runs`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunView {
    /// The run's id (its events are under this id too).
    pub run_id: String,
    /// What it runs: `run` (`POST /v1/runs`) or `workflow` (`POST
    /// /v1/workflows`; its envelope's `workflow` holds the steps).
    pub kind: String,
    /// Where it is.
    pub status: RunState,
    /// Higher is claimed first.
    pub priority: i32,
    /// When it was submitted.
    pub created_at: Timestamp,
    /// Not started before this time.
    pub not_before: Timestamp,
    /// How many times it was started (a start that waited for a quota is
    /// not counted).
    pub attempts: u32,
    /// The providers the request names, in failover order.
    pub providers: Vec<String>,
    /// The logical session it continues, if any.
    pub session: Option<String>,
    /// The caller's idempotency key, if any.
    pub idempotency_key: Option<String>,
    /// Why a queued run waits, e.g. `quota`; null otherwise.
    pub waiting_for: Option<String>,
    /// A cancel was asked while it ran: its CLI is stopped and it ends
    /// `cancelled`, unless the CLI had already ended; then it ends as its
    /// run did (`succeeded`, or `failed` without another try).
    pub cancel_requested: bool,
    /// The error it ended with (or the last attempt's, while it waits for a
    /// retry).
    pub error: Option<String>,
    /// When it ended; null until then.
    pub ended_at: Option<Timestamp>,
    /// The run request, as submitted, with secrets hidden: the values of
    /// `env` variables whose names say they hold a secret and of secret
    /// flags in `extra_args` read `[redacted:NAME]`, and every other `env`
    /// value `[sealed]` (the queue keeps them encrypted).
    #[schema(value_type = Object)]
    pub request: serde_json::Value,
    /// The result envelope (as `agentgate run` prints it) once the run ended
    /// with one; null before.
    #[schema(schema_with = envelope_or_null)]
    pub envelope: Option<Envelope>,
    /// The API token that submitted it (absent for runs queued before
    /// tokens were recorded, and for schedules and watched folders).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submitted_by: Option<SubmittedBy>,
}

/// Who submitted a run: the token's name and its team.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct SubmittedBy {
    /// The token's name (`serve` for the server's own token).
    pub token: String,
    /// Its team, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

impl From<agentgate_store::Submitter> for SubmittedBy {
    fn from(s: agentgate_store::Submitter) -> Self {
        SubmittedBy {
            token: s.token,
            team: s.team,
        }
    }
}

/// The schema of an `Option<Envelope>`: null, or the protocol's envelope,
/// whose JSON Schema `openapi.rs` adds to the document as `Envelope`.
pub(crate) fn envelope_or_null() -> utoipa::openapi::RefOr<utoipa::openapi::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Ref, Type};
    OneOfBuilder::new()
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .item(Ref::new("#/components/schemas/Envelope"))
        .into()
}

impl From<JobRecord> for RunView {
    fn from(job: JobRecord) -> Self {
        // A request whose tag does not read is shown as a run's, as stored.
        let kind = JobKind::of(&job.request).unwrap_or(JobKind::Run);
        RunView {
            run_id: job.job_id,
            kind: kind.as_str().to_owned(),
            status: job.state.into(),
            priority: job.priority,
            created_at: job.created_at,
            not_before: job.not_before,
            attempts: job.attempts,
            providers: job.providers,
            session: job.session,
            idempotency_key: job.idempotency_key,
            waiting_for: job.waiting_for,
            cancel_requested: job.cancel_requested,
            error: job.error,
            ended_at: job.ended_at,
            request: without_secrets(as_submitted(agentgate_executor::without_sealed(
                job.request,
            ))),
            envelope: job.envelope,
            submitted_by: None,
        }
    }
}

/// A stored request (its sealed values taken out) as it was submitted: a
/// run's without the tag the store adds (see `job_request.rs`); one that
/// does not read, as stored.
fn as_submitted(stored: serde_json::Value) -> serde_json::Value {
    JobRequest::from_stored(stored.clone())
        .ok()
        .and_then(|r| r.to_submitted().ok())
        .unwrap_or(stored)
}

/// `request` with the values of secret-named `env` variables and of secret
/// flags in `extra_args` replaced by markers, as the dry run shows them.
fn without_secrets(mut request: serde_json::Value) -> serde_json::Value {
    use agentgate_core::{is_secret, mask_secret_flags, secret_flag_values};
    if let Some(env) = request.get_mut("env").and_then(|e| e.as_object_mut()) {
        for (name, value) in env.iter_mut() {
            if is_secret(name) {
                *value = serde_json::Value::String(format!("[redacted:{name}]"));
            }
        }
    }
    if let Some(args) = request.get_mut("extra_args") {
        let given: Option<Vec<String>> = args
            .as_array()
            .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect());
        if let Some(given) = given {
            let masked = mask_secret_flags(&given, &secret_flag_values(&given));
            *args = serde_json::json!(masked);
        }
    }
    request
}

/// One page of `GET /v1/runs`: newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RunPage {
    /// The runs, newest first (by submission time, then id).
    pub runs: Vec<RunView>,
    /// Give it back as `cursor` for the next page; null on the last page.
    /// Runs submitted meanwhile never shift the pages.
    pub next_cursor: Option<String>,
    /// The runs of this page that the store holds but cannot read (a
    /// damaged row), in order, each with why; present only when there
    /// are some. They take their place in the page (`limit` counts them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<UnreadableRun>,
}

/// A run of the store that cannot be read.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UnreadableRun {
    /// Its id.
    pub run_id: String,
    /// What is wrong with its row.
    pub error: String,
}

/// One provider's session of a logical session name.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionView {
    /// The logical name (`--session`).
    pub name: String,
    /// The provider the native id belongs to.
    pub provider: String,
    /// The provider's own session (thread, conversation) id.
    pub native_session_id: String,
    /// The working directory the session was last used in.
    pub cwd: Option<String>,
    /// When the name was first stored.
    pub created_at: Timestamp,
    /// When the session was last used.
    pub updated_at: Timestamp,
    /// Turns run in the session.
    pub turns: u64,
    /// The labels of the run that created the session (`--label`); left
    /// out when it had none.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: std::collections::BTreeMap<String, String>,
    /// The context length the session's last turn left (its last model
    /// call's prompt and output), what `max_context_tokens` is checked
    /// against; `null` when the CLI did not tell it.
    pub context_tokens: Option<u64>,
    /// The native sessions the name moved through (`max_context_tokens`),
    /// oldest first; empty when it never rotated.
    pub rotations: Vec<RotationView>,
}

/// One rotation of a session: a new native session started under the same
/// name because the last turn's context passed `max_context_tokens`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RotationView {
    /// When the new native session was stored.
    pub rotated_at: Timestamp,
    /// The run whose turn rotated.
    pub run_id: Option<String>,
    /// The native session left behind.
    pub old_native_id: String,
    /// The native session started in its place.
    pub new_native_id: Option<String>,
    /// Why, in words.
    pub reason: String,
    /// The old session's last context length.
    pub context_tokens: Option<u64>,
    /// The limit it passed.
    pub max_context_tokens: Option<u64>,
    /// How the new session was seeded: `none`, `summary` or `prompt`.
    pub handoff: String,
}

impl From<agentgate_store::SessionRotation> for RotationView {
    fn from(r: agentgate_store::SessionRotation) -> Self {
        RotationView {
            rotated_at: r.rotated_at,
            run_id: r.run_id,
            old_native_id: r.old_native_id,
            new_native_id: r.new_native_id,
            reason: r.reason,
            context_tokens: r.context_tokens,
            max_context_tokens: r.max_context_tokens,
            handoff: r.handoff,
        }
    }
}

impl From<SessionRecord> for SessionView {
    fn from(s: SessionRecord) -> Self {
        SessionView {
            name: s.name,
            provider: s.provider,
            native_session_id: s.native_session_id,
            cwd: s.cwd,
            created_at: s.created_at,
            updated_at: s.updated_at,
            turns: s.turns,
            labels: s.labels,
            context_tokens: s.context_tokens,
            rotations: Vec::new(),
        }
    }
}

/// `GET /v1/sessions`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionList {
    /// Every stored session, one per logical name and provider.
    pub sessions: Vec<SessionView>,
}

/// `DELETE /v1/sessions/{name}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SessionDeleted {
    /// The logical name.
    pub name: String,
    /// The providers whose session of that name was forgotten.
    pub providers: Vec<String>,
}

/// `GET /v1/quota`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct QuotaList {
    /// One entry per provider, as `agentgate quota --json` prints them.
    pub providers: Vec<agentgate_core::quota_report::ProviderQuota>,
}

/// How many runs are in each state.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, ToSchema)]
pub struct StateCounts {
    /// Waiting to be claimed.
    pub queued: u64,
    /// Being run.
    pub running: u64,
    /// Ended without error.
    pub succeeded: u64,
    /// Ended with an error.
    pub failed: u64,
    /// Cancelled.
    pub cancelled: u64,
    /// Abandoned by a dead executor.
    pub abandoned: u64,
}

impl StateCounts {
    /// Adds `n` runs in `state`.
    pub fn add(&mut self, state: JobState, n: u64) {
        let slot = match state {
            JobState::Queued => &mut self.queued,
            JobState::Running => &mut self.running,
            JobState::Succeeded => &mut self.succeeded,
            JobState::Failed => &mut self.failed,
            JobState::Cancelled => &mut self.cancelled,
            JobState::Abandoned => &mut self.abandoned,
        };
        *slot += n;
    }
}

/// One provider's runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct ProviderCounts {
    /// The provider.
    pub provider: String,
    /// Its runs per state (a run naming several providers counts for each).
    pub counts: StateCounts,
}

/// One concurrency limit of the `queue:` config and what runs under it in
/// this server now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct LimitView {
    /// `max_running` (the server's), `provider` or `session`.
    pub scope: String,
    /// The provider or session name (`null` for `max_running`).
    pub name: Option<String>,
    /// At most this many at once (a session: 1).
    pub max: usize,
    /// Running now under it.
    pub running: usize,
}

/// `GET /v1/queue`: how many runs are in each state, in all and per
/// provider, and the running count under each limit.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct QueueView {
    /// All runs per state.
    pub counts: StateCounts,
    /// Runs per provider and state, by provider name.
    pub providers: Vec<ProviderCounts>,
    /// `max_running`, then each provider limit of the config, then each
    /// session with a run running: the maximum and the runs of this server
    /// running under it (a job counts against the first of its providers
    /// whose quota is not known exhausted).
    pub limits: Vec<LimitView>,
    /// Whether this server runs jobs itself: `false` with `serve
    /// --no-executor` (the workers sharing its store run them; see `GET
    /// /v1/workers`).
    pub executor: bool,
    /// The queued and running counts over the last hour, oldest first,
    /// read every 30 s by this server since it started (empty at first).
    pub history: Vec<crate::queue_history::QueueSample>,
}

/// The last message of an event stream for a run that ended without a
/// `result` event (cancelled while queued, abandoned, or its process died
/// mid-run): SSE `event: end`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StreamEnd {
    /// The run.
    pub run_id: String,
    /// How it ended: a final state of a run (`cancelled`, `abandoned`,
    /// `failed`, `succeeded`).
    pub status: String,
    /// The error it ended with, if any.
    pub error: Option<String>,
    /// Its envelope, if it has one.
    #[schema(schema_with = envelope_or_null)]
    pub envelope: Option<Envelope>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_of_a_request_are_hidden_and_the_rest_kept() {
        let shown = without_secrets(serde_json::json!({
            "prompt": "hi",
            "env": {"OPENAI_API_KEY": "sk-live-123", "LANG": "C"},
            "extra_args": ["--api-key", "sk-live-456", "--verbose"],
        }));
        assert_eq!(
            shown,
            serde_json::json!({
                "prompt": "hi",
                "env": {"OPENAI_API_KEY": "[redacted:OPENAI_API_KEY]", "LANG": "C"},
                "extra_args": ["--api-key", "[redacted:--api-key]", "--verbose"],
            })
        );
    }

    /// Rows queued by an older version (untagged runs, workflows with their
    /// `kind` field) and rows queued now (tagged) are read from a real store
    /// as what they are: shown (the executor's `facts` tests plan them).
    #[test]
    fn old_and_new_rows_of_a_store_are_shown() {
        use agentgate_store::{JobQueue, NewJob, Store};
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
        for id in ["old", "new"] {
            let job = store.get_job(id).unwrap().unwrap();
            let view = RunView::from(job);
            assert_eq!(view.kind, "run");
            assert_eq!(view.request, body, "{id}: shown as it was submitted");
        }
        let job = store.get_job("wf").unwrap().unwrap();
        let view = RunView::from(job);
        assert_eq!(view.kind, "workflow");
        assert_eq!(view.request["kind"], "workflow");
    }
}
