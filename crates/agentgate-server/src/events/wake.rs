//! What a follower waits on between two reads: the bells of the run it
//! follows, of the job's next run and of the job
//! ([`agentgate_store::bells`]), or its poll running out.

use std::time::Duration;

use agentgate_store::bells::{self, Bell, BellWatch};

use super::Watched;

/// Why a follower woke.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wake {
    /// The followed run has new events: read them.
    NewEvents,
    /// The job's next run began, or the follower starts: look at
    /// everything.
    Changed,
    /// The job's bell rang (its state changed): look at everything.
    JobRang,
    /// No bell within the poll: look at everything.
    Poll,
}

/// The bells one follower watches.
pub(super) struct Waits {
    /// New events of the followed run.
    events: BellWatch,
    /// The first events of the job's next run.
    next: Option<BellWatch>,
    /// The job's state.
    job: Option<BellWatch>,
}

impl Waits {
    /// Watches `run_id`'s events, and for a job its state and its next
    /// run's events (`next_run`).
    pub(super) fn new(watched: &Watched, run_id: &str, next_run: Option<String>) -> Waits {
        Waits {
            events: bells::watch(Bell::Events(run_id.to_owned())),
            next: next_run.map(|id| bells::watch(Bell::Events(id))),
            job: match watched {
                Watched::Job(id) => Some(bells::watch(Bell::Job(id.clone()))),
                Watched::Run(_) => None,
            },
        }
    }

    /// The follower moved to the job's next run, `run_id`; `next_run`
    /// comes after it.
    pub(super) fn follow_next(&mut self, run_id: &str, next_run: Option<String>) {
        let next = next_run.map(|id| bells::watch(Bell::Events(id)));
        self.events = match std::mem::replace(&mut self.next, next) {
            Some(watch) if watch.bell() == &Bell::Events(run_id.to_owned()) => watch,
            _ => bells::watch(Bell::Events(run_id.to_owned())),
        };
    }

    /// How many times the job's bell has rung (0 for a run's follower).
    pub(super) fn job_rings(&self) -> u64 {
        self.job.as_ref().map_or(0, BellWatch::rings)
    }

    /// The next bell, or [`Wake::Poll`] after `poll` without one.
    pub(super) async fn next(&mut self, poll: Duration) -> Wake {
        let next = async {
            match self.next.as_mut() {
                Some(watch) => watch.rung().await,
                None => std::future::pending().await,
            }
        };
        let job = async {
            match self.job.as_mut() {
                Some(watch) => watch.rung().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            // The followed run's lines first: they are the stream.
            biased;
            () = self.events.rung() => Wake::NewEvents,
            () = next => Wake::Changed,
            () = job => Wake::JobRang,
            () = tokio::time::sleep(poll) => Wake::Poll,
        }
    }
}
