//! The limits a claim of a chosen job re-checks in the database:
//! [`ClaimRules`]. The executors now claim with
//! [`crate::JobQueue::claim_next`] (`crate::claim_next`), which decides the
//! limits itself; this stays for a caller that chooses the job.
//!
//! A caller that decides which queued job may start from a snapshot of the
//! queue can race another. With executors on several
//! hosts, two of them can decide from the same snapshot and both start a
//! job where only one had room. So the claim that follows a decision,
//! [`crate::JobQueue::claim_job_within`], checks the rules again against
//! every running job of every host, in the transaction that claims, under
//! a lock every such claim takes (PostgreSQL: a transaction-level advisory
//! lock; SQLite: the write lock). Claims within rules therefore take turns:
//! each sees the ones before it, and the limits hold across hosts. A claim
//! the rules refuse claims nothing; the executor decides again on its next
//! pass.
//!
//! The rules, each against the jobs running now (an expired lease not yet
//! taken back still counts: its CLI may still run):
//! - at most `max_running` jobs run in all;
//! - at most `provider_limit` of them count against `provider`;
//! - one job at a time writes in `writes_in`;
//! - a session runs one job at a time, in submission order: none of it
//!   runs, and no older job of it is queued.
//!
//! The claim stores `provider` and `writes_in` on the job
//! ([`crate::JobRecord::charged_provider`], [`crate::JobRecord::writes_in`]),
//! which is how the next claim, on any host, counts it.

/// The rules one claim re-checks (see the module notes).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClaimRules {
    /// The provider the job counts against while it runs, if any.
    pub provider: Option<String>,
    /// At most this many running jobs count against `provider`.
    pub provider_limit: Option<u32>,
    /// At most this many jobs run at once, in all.
    pub max_running: Option<u32>,
    /// The folder the job may write in: one job at a time per folder.
    pub writes_in: Option<String>,
}

/// What a claim within rules read about the running jobs and the job's
/// session, in its transaction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RunningNow {
    /// Running jobs, in all.
    pub total: u64,
    /// Running jobs that count against the rules' provider.
    pub on_provider: u64,
    /// Running jobs that write in the rules' folder.
    pub in_folder: u64,
    /// Running jobs of the job's session.
    pub of_session: u64,
    /// Queued jobs of the job's session submitted before it.
    pub older_of_session: u64,
}

impl ClaimRules {
    /// Whether the job may start, given what runs now; `Err` names the
    /// first rule that refuses it.
    pub(crate) fn check(&self, now: &RunningNow) -> Result<(), &'static str> {
        if self
            .max_running
            .is_some_and(|max| now.total >= u64::from(max))
        {
            return Err("max_running");
        }
        if self.provider.is_some()
            && self
                .provider_limit
                .is_some_and(|max| now.on_provider >= u64::from(max))
        {
            return Err("the provider's limit");
        }
        if self.writes_in.is_some() && now.in_folder > 0 {
            return Err("another job writes in its folder");
        }
        if now.of_session > 0 || now.older_of_session > 0 {
            return Err("its session's turn");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> ClaimRules {
        ClaimRules {
            provider: Some("claude".into()),
            provider_limit: Some(2),
            max_running: Some(3),
            writes_in: Some("/work/repo".into()),
        }
    }

    #[test]
    fn each_rule_refuses_at_its_limit_and_not_below() {
        let rules = rules();
        let room = RunningNow {
            total: 2,
            on_provider: 1,
            ..RunningNow::default()
        };
        assert_eq!(rules.check(&room), Ok(()));
        let cases = [
            (RunningNow { total: 3, ..room }, "max_running"),
            (
                RunningNow {
                    on_provider: 2,
                    ..room
                },
                "the provider's limit",
            ),
            (
                RunningNow {
                    in_folder: 1,
                    ..room
                },
                "another job writes in its folder",
            ),
            (
                RunningNow {
                    of_session: 1,
                    ..room
                },
                "its session's turn",
            ),
            (
                RunningNow {
                    older_of_session: 1,
                    ..room
                },
                "its session's turn",
            ),
        ];
        for (now, why) in cases {
            assert_eq!(rules.check(&now), Err(why), "{now:?}");
        }
    }

    #[test]
    fn a_rule_without_its_subject_or_limit_does_not_apply() {
        let busy = RunningNow {
            total: 100,
            on_provider: 100,
            in_folder: 100,
            ..RunningNow::default()
        };
        assert_eq!(ClaimRules::default().check(&busy), Ok(()));
        let no_provider = ClaimRules {
            provider: None,
            provider_limit: Some(1),
            ..ClaimRules::default()
        };
        assert_eq!(no_provider.check(&busy), Ok(()));
    }
}
