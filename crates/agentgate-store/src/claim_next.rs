//! The claim of the next job within the queue's limits, in one bounded
//! step: [`crate::JobQueue::claim_next`] and what it is given
//! ([`ClaimLimits`]) and answers ([`NextClaim`]).
//!
//! What a claim needs is in the job's columns, stored at submit from one
//! planning (`providers`, `session_name`, `writes_in`, `ignore_quota`,
//! `priority`, `not_before`; `planned` says they were planned, see
//! [`crate::JobQueue::set_job_facts`] for rows queued by an older
//! version). One claim:
//!
//! 1. reads the running jobs (a partial-index read of `state = 'running'`,
//!    bounded by the total concurrency, never the backlog): how many run,
//!    per charged provider, and the sessions and folders busy;
//! 2. stops at once when `max_running` jobs run;
//! 3. walks the queued jobs in claim order (`priority DESC, created_at,
//!    seq`, the index `jobs_claim`, no sort) to the first that is ready
//!    (`not_before` passed), planned, not passed over by this claimer, the
//!    oldest queued job of its session (a probe of the index
//!    `jobs_session_queue`) with no job of its session running, and then
//!    either every provider's quota exhausted (it becomes a quota wait) or
//!    its folder free and its provider (the first not exhausted, or the
//!    first with `ignore_quota`) below its limit and one this claimer
//!    takes;
//! 4. claims it (one attempt charged, counted against that provider), or
//!    turns a quota wait into `waiting_for = 'quota'` with `not_before` at
//!    the earliest reset, charged nothing ([`NextClaim::WaitingForQuota`]).
//!
//! SQLite does all of it in one `BEGIN IMMEDIATE` transaction: claims take
//! turns on the write lock, so the counts are exact. PostgreSQL does it in
//! one read-committed transaction with no global lock: the candidate row
//! is taken `FOR UPDATE SKIP LOCKED`, and the limits are a semaphore of
//! slot rows (`claim_slots`, see `postgres/claim_next.rs`) taken the same
//! way, so concurrent claimers on any host take different jobs and
//! different slots without waiting for each other, and a limit holds.
//!
//! **Worst case, honestly.** The walk stops at the first claimable job, so
//! a claim reads the running jobs plus the queued jobs ahead of the first
//! claimable one. Jobs ahead of it that a limit holds back (a full
//! provider, a busy folder or session, a later job of a session, a
//! provider this claimer does not take, a job passed over) are each read
//! and filtered by the walk: a backlog of N jobs all held back by one full
//! provider costs a claim that finds nothing N index entries (and their
//! JSON providers). Jobs held back by `max_running` cost nothing (step 2);
//! jobs not yet due cost an index entry each. No claim plans a job.

use jiff::Timestamp;

use crate::jobs::ClaimedJob;

/// The limits one [`crate::JobQueue::claim_next`] claims within.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaimLimits {
    /// At most this many jobs run at once, in all (every claimer of the
    /// store).
    pub max_running: u32,
    /// At most this many running jobs count against each of these
    /// providers; a provider not listed is bound by `max_running` only.
    pub provider_limits: Vec<(String, u32)>,
    /// The providers whose quota is known exhausted, each until its reset.
    pub exhausted: Vec<(String, Timestamp)>,
    /// The providers this claimer takes jobs of (`agentgate worker
    /// --providers`): a job counted against another (or none) is passed
    /// over; `None`: every job.
    pub only_providers: Option<Vec<String>>,
    /// Jobs this claimer passes over (e.g. sealed with a key it lacks):
    /// they keep their place for another claimer. Each is read by the walk.
    pub skip: Vec<String>,
}

impl ClaimLimits {
    /// The providers whose running jobs fill their limit, given how many
    /// run per charged provider.
    pub(crate) fn full_providers(&self, running: &RunningJobs) -> Vec<String> {
        self.provider_limits
            .iter()
            .filter(|(p, limit)| running.on_provider(p) >= u64::from(*limit))
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// The limit of `provider`, if any.
    #[cfg_attr(
        not(feature = "postgres"),
        expect(dead_code, reason = "used by the PostgreSQL backend only")
    )]
    pub(crate) fn provider_limit(&self, provider: &str) -> Option<u32> {
        self.provider_limits
            .iter()
            .find(|(p, _)| p == provider)
            .map(|(_, limit)| *limit)
    }

    /// The earliest reset among `providers` (a quota wait's end).
    pub(crate) fn earliest_reset(&self, providers: &[String]) -> Option<Timestamp> {
        self.exhausted
            .iter()
            .filter(|(p, _)| providers.contains(p))
            .map(|(_, at)| *at)
            .min()
    }

    /// The exhausted providers' names.
    pub(crate) fn exhausted_names(&self) -> Vec<String> {
        self.exhausted.iter().map(|(p, _)| p.clone()).collect()
    }
}

/// What one [`crate::JobQueue::claim_next`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum NextClaim {
    /// A job was claimed: it runs under a new lease, counted against its
    /// `charged_provider`.
    Claimed(Box<ClaimedJob>),
    /// The next job's every provider is exhausted: it now waits until
    /// `until` (the earliest reset), `waiting_for = "quota"`, charged no
    /// attempt. Call again for the next job.
    WaitingForQuota {
        /// The job.
        job_id: String,
        /// The earliest reset of its providers.
        until: Timestamp,
    },
    /// No job may start now.
    Nothing,
}

/// The running jobs as a claim sees them (step 1 of the module notes).
#[derive(Debug, Clone, Default)]
pub(crate) struct RunningJobs {
    pub total: u64,
    pub providers: Vec<String>,
    pub sessions: Vec<String>,
    pub folders: Vec<String>,
}

impl RunningJobs {
    /// Adds one running job.
    pub(crate) fn add(
        &mut self,
        provider: Option<String>,
        session: Option<String>,
        folder: Option<String>,
    ) {
        self.total += 1;
        self.providers.extend(provider);
        self.sessions.extend(session);
        self.folders.extend(folder);
    }

    pub(crate) fn on_provider(&self, provider: &str) -> u64 {
        self.providers.iter().filter(|p| *p == provider).count() as u64
    }
}

/// The queued job a claim's walk found.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub seq: i64,
    pub job_id: String,
    pub providers: Vec<String>,
    /// The provider it counts against; `None` with providers: every one
    /// exhausted.
    pub provider: Option<String>,
    pub ignore_quota: bool,
    #[cfg_attr(
        not(feature = "postgres"),
        expect(dead_code, reason = "used by the PostgreSQL backend only")
    )]
    pub session: Option<String>,
    #[cfg_attr(
        not(feature = "postgres"),
        expect(dead_code, reason = "used by the PostgreSQL backend only")
    )]
    pub writes_in: Option<String>,
}

impl Candidate {
    /// Whether it waits for a quota rather than starting.
    pub(crate) fn waits_for_quota(&self) -> bool {
        !self.ignore_quota && !self.providers.is_empty() && self.provider.is_none()
    }
}
