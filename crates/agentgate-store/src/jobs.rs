//! The job queue's records: plain data, no I/O (see [`crate::JobQueue`]).

use std::fmt;
use std::str::FromStr;

use agentgate_protocol::Envelope;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::records::UnknownName;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    /// Waiting to be claimed (possibly not before a time, see
    /// [`JobRecord::not_before`]).
    Queued,
    /// Claimed by an executor that holds its lease.
    Running,
    /// Ended without error.
    Succeeded,
    /// Ended with an error.
    Failed,
    /// Cancelled: while queued, or by its executor after a cancel request.
    Cancelled,
    /// Its executor's lease expired and the policy was
    /// [`ExpiryPolicy::Abandon`].
    Abandoned,
}

impl JobState {
    /// Every state.
    pub const ALL: [JobState; 6] = [
        Self::Queued,
        Self::Running,
        Self::Succeeded,
        Self::Failed,
        Self::Cancelled,
        Self::Abandoned,
    ];

    /// The stored name, e.g. `"queued"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Queued => "queued",
            Self::Running => "running",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::Abandoned => "abandoned",
        }
    }

    /// Whether the job has ended (it never changes again).
    pub const fn is_final(self) -> bool {
        !matches!(self, Self::Queued | Self::Running)
    }
}

impl fmt::Display for JobState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for JobState {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|state| state.as_str() == s)
            .ok_or_else(|| UnknownName(s.to_owned()))
    }
}

/// A job to enqueue.
#[derive(Debug, Clone, PartialEq)]
pub struct NewJob {
    /// The job's id, a run id (see [`crate::validate_run_id`]): the run the
    /// job executes is stored under the same id.
    pub job_id: String,
    /// The run request, stored as given and returned as is: the store never
    /// reads it.
    pub request: serde_json::Value,
    /// Higher is claimed first.
    pub priority: i32,
    /// Not claimed before this time; `None`: as soon as enqueued.
    pub not_before: Option<Timestamp>,
    /// A caller's key: enqueuing again with a key already stored returns the
    /// first job instead of creating one.
    pub idempotency_key: Option<String>,
    /// The providers the request names, in failover order (for listing by
    /// provider and for per-provider limits).
    pub providers: Vec<String>,
    /// The logical session the run continues, if any.
    pub session: Option<String>,
    /// The folder the job may write in, as planned at submit (jobs writing
    /// in one folder run one at a time); `None`: it writes nowhere shared.
    pub writes_in: Option<String>,
    /// The request's `ignore_quota`: it counts against its first provider
    /// even when that provider's quota is known exhausted.
    pub ignore_quota: bool,
    /// Whether `providers`, `writes_in` and `ignore_quota` come from
    /// planning the request; `false`: the executor plans them before any
    /// claim takes the job (see [`crate::JobQueue::unplanned_jobs`]).
    pub planned: bool,
    /// The request's labels, kept in the side table `labels` under the
    /// job's id (its run's id too), so that jobs are listed and cancelled
    /// by label through an index ([`JobFilter::labels`]).
    pub labels: agentgate_protocol::Labels,
}

/// What planning a queued job tells its claim, stored in its columns
/// ([`crate::JobQueue::set_job_facts`]) for a job queued before they
/// existed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlannedFacts {
    /// The plan's providers, in failover order.
    pub providers: Vec<String>,
    /// The folder it may write in (see [`NewJob::writes_in`]).
    pub writes_in: Option<String>,
    /// See [`NewJob::ignore_quota`].
    pub ignore_quota: bool,
}

/// A job as stored, without its lease token (that is a secret of the
/// lease's holder, returned only by [`crate::JobQueue::claim`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRecord {
    /// The job's id, also the id of its run.
    pub job_id: String,
    /// The run request, as enqueued.
    pub request: serde_json::Value,
    /// Where the job is.
    pub state: JobState,
    /// Higher is claimed first.
    pub priority: i32,
    /// When it was enqueued.
    pub created_at: Timestamp,
    /// Not claimed before this time (the enqueue time when none was asked).
    pub not_before: Timestamp,
    /// How many claims were charged: each claim counts one, a
    /// [`crate::JobQueue::release`] gives its claim's back.
    pub attempts: u32,
    /// The caller's idempotency key, if any.
    pub idempotency_key: Option<String>,
    /// The providers the request names, in failover order.
    pub providers: Vec<String>,
    /// The logical session, if any.
    pub session: Option<String>,
    /// Who holds (or last held) the lease, as the claimer named itself.
    pub lease_owner: Option<String>,
    /// When the current lease ends unless renewed; `None` unless running.
    pub lease_expires_at: Option<Timestamp>,
    /// Why a queued job waits, e.g. `"quota"`; `None` otherwise.
    pub waiting_for: Option<String>,
    /// A cancel was asked while it ran: its executor should stop it.
    pub cancel_requested: bool,
    /// The final envelope, once ended (if the executor gave one).
    pub envelope: Option<Envelope>,
    /// The error it ended with, if any.
    pub error: Option<String>,
    /// When it ended.
    pub ended_at: Option<Timestamp>,
    /// The provider its last claim counted it against
    /// ([`crate::JobQueue::claim_next`]); `None` for a claim without
    /// limits.
    pub charged_provider: Option<String>,
    /// The folder it may write in: planned at submit (see
    /// [`NewJob::writes_in`]), or what its last claim within rules said.
    pub writes_in: Option<String>,
}

/// What [`crate::JobQueue::enqueue`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Enqueued {
    /// The job: the new one, or the first one enqueued with the same
    /// idempotency key.
    pub job: JobRecord,
    /// Whether this call created it.
    pub created: bool,
}

/// A lease's proof of ownership: every write by the executor needs it. Its
/// `Debug` does not show it.
#[derive(Clone, PartialEq, Eq)]
pub struct LeaseToken(pub(crate) String);

impl LeaseToken {
    /// The token's text (128 random bits in hex), for an executor that keeps
    /// it outside this process.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// A token kept outside this process, given back.
    pub fn from_text(text: impl Into<String>) -> Self {
        Self(text.into())
    }
}

impl fmt::Debug for LeaseToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("LeaseToken(<hidden>)")
    }
}

/// A job just claimed, with the token of its lease.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedJob {
    /// The job, now running.
    pub job: JobRecord,
    /// The lease's token: heartbeat, finish and release need it.
    pub token: LeaseToken,
}

/// What a heartbeat learnt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Heartbeat {
    /// The lease's new end.
    pub lease_expires_at: Timestamp,
    /// A cancel was asked: the executor should stop the run and finish the
    /// job as cancelled.
    pub cancel_requested: bool,
}

/// How a job ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinalState {
    /// Without error.
    Succeeded,
    /// With an error.
    Failed,
    /// Cancelled.
    Cancelled,
}

impl From<FinalState> for JobState {
    fn from(state: FinalState) -> Self {
        match state {
            FinalState::Succeeded => Self::Succeeded,
            FinalState::Failed => Self::Failed,
            FinalState::Cancelled => Self::Cancelled,
        }
    }
}

/// What [`crate::JobQueue::finish`] stores.
#[derive(Debug, Clone, PartialEq)]
pub struct JobOutcome {
    /// How it ended.
    pub state: FinalState,
    /// The run's envelope, if it produced one.
    pub envelope: Option<Envelope>,
    /// The error, if any.
    pub error: Option<String>,
}

/// What [`crate::JobQueue::cancel`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CancelOutcome {
    /// The job was queued: it is now cancelled.
    Cancelled,
    /// The job is running: it is marked for its executor to cancel (done
    /// again, it changes nothing).
    Requested,
    /// The job had already ended, in this state; nothing changed.
    AlreadyEnded(JobState),
}

/// What becomes of a running job whose lease expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpiryPolicy {
    /// Back to queued, to be claimed again (its attempt stays charged).
    Requeue,
    /// Ended as abandoned.
    Abandon,
}

/// A job whose expired lease [`crate::JobQueue::expire_leases`] took back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpiredJob {
    /// The job.
    pub job_id: String,
    /// Its state now: queued, abandoned, or cancelled when a cancel had been
    /// asked.
    pub state: JobState,
}

/// Which jobs [`crate::JobQueue::list_jobs`] returns; every field set narrows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobFilter {
    /// Only jobs in this state.
    pub state: Option<JobState>,
    /// Only jobs whose provider list names this provider.
    pub provider: Option<String>,
    /// Only jobs of this logical session.
    pub session: Option<String>,
    /// Only jobs that carry every one of these labels (none: any).
    pub labels: agentgate_protocol::Labels,
    /// Only jobs enqueued at or after this time (`created_at`, the time
    /// the list is ordered and paged by).
    pub since: Option<Timestamp>,
    /// Only jobs enqueued strictly before this time.
    pub until: Option<Timestamp>,
}

/// Where a page of [`crate::JobQueue::list_jobs`] ends: the next page starts
/// after this job. As text (`Display`/`FromStr`) it is an opaque token for
/// an API; a job enqueued meanwhile never shifts the pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobCursor {
    pub(crate) created_at: CursorTime,
    pub(crate) job_id: String,
}

/// The enqueue time a page ended at: a time, or the stored text of one
/// that does not read as a time (a damaged row), so that paging goes on
/// past that row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CursorTime {
    /// A time.
    At(Timestamp),
    /// The column's text as the database gives it.
    Stored(String),
}

impl JobCursor {
    /// The cursor after the job `job_id` enqueued at `created_at`.
    pub(crate) fn after(created_at: CursorTime, job_id: String) -> JobCursor {
        JobCursor { created_at, job_id }
    }
}

/// The prefix of a cursor whose parts are stored text (hex), not a time
/// and a run id.
const STORED_CURSOR: &str = "stored~";

impl fmt::Display for JobCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.created_at {
            CursorTime::At(at) if crate::validate_run_id(&self.job_id).is_ok() => {
                write!(f, "{at:.9}~{}", self.job_id)
            }
            time => {
                let text = match time {
                    CursorTime::At(at) => format!("{at:.9}"),
                    CursorTime::Stored(text) => text.clone(),
                };
                write!(f, "{STORED_CURSOR}{}~{}", hex(&text), hex(&self.job_id))
            }
        }
    }
}

fn hex(text: &str) -> String {
    text.bytes().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<String> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    let bytes = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// Text that is not a [`JobCursor`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid cursor `{0}`: give back the `next` cursor of a previous page unchanged")]
pub struct InvalidCursor(pub String);

impl FromStr for JobCursor {
    type Err = InvalidCursor;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidCursor(s.to_owned());
        if let Some(stored) = s.strip_prefix(STORED_CURSOR) {
            let (time, job_id) = stored.split_once('~').ok_or_else(invalid)?;
            return Ok(Self {
                created_at: CursorTime::Stored(unhex(time).ok_or_else(invalid)?),
                job_id: unhex(job_id).ok_or_else(invalid)?,
            });
        }
        let (created_at, job_id) = s.split_once('~').ok_or_else(invalid)?;
        crate::validate_run_id(job_id).map_err(|_| invalid())?;
        Ok(Self {
            created_at: CursorTime::At(created_at.parse().map_err(|_| invalid())?),
            job_id: job_id.to_owned(),
        })
    }
}

/// One page of [`crate::JobQueue::list_jobs`].
#[derive(Debug, Clone, PartialEq)]
pub struct JobPage {
    /// The jobs, newest first (by enqueue time, then id).
    pub jobs: Vec<JobRecord>,
    /// The rows of the page that could not be read (damaged), in order:
    /// they take their place in the page, and the cursor goes past them.
    pub unreadable: Vec<crate::UnreadableRow>,
    /// The cursor of the next page; `None` on the last page.
    pub next: Option<JobCursor>,
}

impl JobPage {
    /// The page of `listed`: rows in order, each read or why not, with
    /// where it sorts, fetched one past `limit` so that a row past it says
    /// there is a next page (whose cursor follows the page's last row).
    pub(crate) fn from_listed(
        mut listed: Vec<(CursorTime, String, Result<JobRecord, crate::UnreadableRow>)>,
        limit: usize,
    ) -> JobPage {
        let next = if listed.len() > limit {
            listed.truncate(limit);
            listed
                .last()
                .map(|(at, id, _)| JobCursor::after(at.clone(), id.clone()))
        } else {
            None
        };
        let mut page = JobPage {
            jobs: Vec::new(),
            unreadable: Vec::new(),
            next,
        };
        for (_, _, record) in listed {
            match record {
                Ok(job) => page.jobs.push(job),
                Err(bad) => page.unreadable.push(bad),
            }
        }
        page
    }
}

/// How many jobs are in each state, in all and per provider: what
/// [`crate::JobQueue::count_jobs`] returns. States and providers without
/// jobs are left out; a job naming several providers counts once for each.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JobCounts {
    /// Jobs per state, in [`JobState::ALL`] order.
    pub by_state: Vec<(JobState, u64)>,
    /// Jobs per provider and state, by provider name, then state.
    pub by_provider: Vec<(String, JobState, u64)>,
}

impl JobCounts {
    /// Adds a state's count as a database's `COUNT(*)` gives it (never
    /// negative; a negative one would count 0).
    pub(crate) fn add_state(&mut self, state: JobState, count: i64) {
        self.by_state
            .push((state, u64::try_from(count).unwrap_or(0)));
    }

    /// Adds a provider's count of a state, as [`JobCounts::add_state`].
    pub(crate) fn add_provider(&mut self, provider: String, state: JobState, count: i64) {
        self.by_provider
            .push((provider, state, u64::try_from(count).unwrap_or(0)));
    }

    /// Puts both lists in their documented order, whatever order the
    /// database returned the rows in.
    pub(crate) fn sort(&mut self) {
        let rank = |state: &JobState| JobState::ALL.iter().position(|s| s == state);
        self.by_state.sort_by_key(|(state, _)| rank(state));
        self.by_provider
            .sort_by(|(a, sa, _), (b, sb, _)| a.cmp(b).then(rank(sa).cmp(&rank(sb))));
    }
}

/// How many jobs are queued or running, per state and per provider: what
/// [`crate::JobQueue::count_active_jobs`] returns. A job counts once, under
/// one provider: a running job under the provider its claim charged
/// (`charged_provider`), else (a queued job, or one claimed without rules)
/// under the first provider its request names; `None` when it names none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActiveJobCount {
    /// [`JobState::Queued`] or [`JobState::Running`].
    pub state: JobState,
    /// The provider the job counts under (see above).
    pub provider: Option<String>,
    /// How many jobs.
    pub jobs: u64,
}

impl ActiveJobCount {
    /// A count as a database's `COUNT(*)` gives it (never negative; a
    /// negative one would count 0).
    pub(crate) fn new(state: JobState, provider: Option<String>, count: i64) -> ActiveJobCount {
        ActiveJobCount {
            state,
            provider,
            jobs: u64::try_from(count).unwrap_or(0),
        }
    }

    /// Queued before running, then by provider (`None` first).
    pub(crate) fn sort(counts: &mut [ActiveJobCount]) {
        let rank = |state: &JobState| JobState::ALL.iter().position(|s| s == state);
        counts.sort_by(|a, b| {
            rank(&a.state)
                .cmp(&rank(&b.state))
                .then_with(|| a.provider.cmp(&b.provider))
        });
    }
}

/// `envelope` with the job's `labels` when it names none: the envelope a
/// job cancelled while queued gets ([`crate::JobQueue::cancel`]) carries
/// its labels, as its run's envelope would have.
pub(crate) fn with_job_labels(
    envelope: &Envelope,
    mut labels: agentgate_protocol::Labels,
) -> Envelope {
    let mut envelope = envelope.clone();
    if envelope.labels.is_empty() {
        // The caller's labels: the submitting token's are the job's, not
        // the run's (a run's envelope never names them).
        labels.retain(|key, _| !key.starts_with(crate::api_tokens::RESERVED_LABEL_PREFIX));
        envelope.labels = labels;
    }
    envelope
}
