//! The API token that submitted a job, read back when the job runs: every
//! run of the job records it (`Plan::submitted_by`: the reserved labels
//! `agentgate.token` and `agentgate.team`, on a retried run `id.2` as on
//! the first), and the token's own budget and its team's apply to them.
//!
//! Who submitted a job is the job's reserved labels (written with the job
//! at submit); the token's limits are its record's, revoked or not (the
//! runs it submitted still spend against them). A store that keeps no
//! tokens, a job of no token: `None`. A store error is logged and the
//! run goes on without them (a budget the store cannot tell is not
//! guessed; the config's windows still hold).

use agentgate_core::budget::{BudgetSubmitter, Limits, PeriodLimits};
use agentgate_store::{SpendLimits, StoreBackend};

/// The token that submitted `job_id`, with its budget.
pub(super) fn submitter_of(store: &dyn StoreBackend, job_id: &str) -> Option<BudgetSubmitter> {
    let tokens = store.token_store()?;
    let read = tokens
        .submitters(&[job_id.to_owned()])
        .and_then(|mut by_job| match by_job.remove(job_id) {
            None => Ok(None),
            // The server's own token has no record, so no limits: its jobs
            // (most of a single-token server's) read no token list.
            Some(submitter) if submitter.token == agentgate_store::SERVER_TOKEN_NAME => {
                Ok(Some((submitter, None)))
            }
            Some(submitter) => {
                let record = tokens
                    .list_tokens()?
                    .into_iter()
                    .find(|t| t.name == submitter.token);
                Ok(Some((submitter, record)))
            }
        });
    match read {
        Ok(Some((submitter, record))) => {
            let budget = record.map(|r| r.limits.budget).unwrap_or_default();
            Some(BudgetSubmitter {
                token: submitter.token,
                team: submitter.team,
                limits: PeriodLimits {
                    day: limits(budget.day),
                    month: limits(budget.month),
                },
            })
        }
        Ok(None) => None,
        Err(e) => {
            tracing::warn!(
                job = job_id,
                "failed to read the token that submitted the job: {e}"
            );
            None
        }
    }
}

fn limits(l: SpendLimits) -> Limits {
    Limits {
        max_cost_usd: l.max_cost_usd,
        max_tokens: l.max_tokens,
    }
}
