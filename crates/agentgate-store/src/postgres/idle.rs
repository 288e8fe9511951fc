//! One job's end wakes one idle executor, not all of them.
//!
//! ## Why
//!
//! The broadcast of schema version 4 (`agentgate_jobs`, see `listen.rs`)
//! reaches every listener. When every executor woke its claim loop on each
//! job queued or ended, N idle workers ran N claim passes for each change,
//! of which one at most claimed: the others' passes were load on the
//! database for nothing, and grew with the number of workers.
//!
//! ## How
//!
//! Schema version 8 (`schema/v8_idle_wake.sql`) keeps a list of idle
//! executors, `idle_executors`: each row names an executor's own
//! notification channel (a random name, [`new_wake_channel`], listened to
//! by its watcher, `listen.rs`), its lease owner and since when it waits.
//! A trigger on `jobs`, for a job queued (inserted, back to queued, its
//! `not_before` or priority changed) or ended, takes ONE row, the oldest,
//! with `FOR UPDATE SKIP LOCKED` (so K changes committed at once take K
//! distinct rows), skipping, for a job that left running, its lease holder
//! (whose claim loop runs anyway when its own job ends); it deletes the row
//! and notifies that channel. The rows keep the providers their executor
//! takes (`agentgate worker --providers`): a job queued wakes only an
//! executor that could claim it (one of its providers taken, or every
//! provider; a job without providers, a workflow, needs the latter, as the
//! claim does), and a job ended prefers one (the slot it freed likeliest
//! serves its provider) but wakes any other when none is idle, since a
//! freed global slot may let any job start. The executor (`agentgate-server`'s
//! `executor/notify.rs`) registers when a claim pass finds nothing to
//! claim with room left ([`register`]), is woken at most once per
//! registration, and unregisters when it is full or stops ([`unregister`]).
//!
//! The trigger is a deferred constraint trigger: it runs as the
//! transaction commits, not at the statement, so an executor that
//! registers while a job is queued is missed only in the short time
//! between the trigger's read and the commit. The executor closes most of
//! the rest by looking at the queue once more right after it registers; a
//! wake lost anyway (and a wake sent to a listener that just reconnected,
//! which says `Missed` and rescans) costs that job the wait for some
//! executor's poll, never the job itself.
//!
//! ## Rows nobody listens to
//!
//! An executor killed while idle leaves its row: the next change takes it
//! and its wake reaches nobody, at most one lost wake (the poll covers).
//! [`register`] also drops the rows of owners whose presence row
//! (`workers`, schema v3) shows them lost, which is cheap: both tables
//! hold one row per executor.

use tokio_postgres::Client;

use super::{PgError, PgStore};
use crate::error::StoreError;
use crate::workers::LOST_AFTER_BEATS;

/// The start of every executor's wake channel.
pub const WAKE_CHANNEL_PREFIX: &str = "agentgate_wake_";

/// A new wake channel: the prefix and 16 random bytes in hex, a lowercase
/// identifier `LISTEN` takes unquoted.
pub(super) fn new_wake_channel() -> Result<String, StoreError> {
    let token = crate::lease::new_lease_token()?;
    Ok(format!("{WAKE_CHANNEL_PREFIX}{}", token.0))
}

/// Whether `channel` is a name [`new_wake_channel`] makes (the only names
/// registered, as they are spliced into `LISTEN` by `listen.rs`).
fn is_wake_channel(channel: &str) -> bool {
    channel
        .strip_prefix(WAKE_CHANNEL_PREFIX)
        .is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        })
}

/// Puts `channel` on the list (kept in its place if it is there), and
/// drops the rows of owners whose presence was lost by `now`.
pub(super) async fn register(
    client: &Client,
    channel: &str,
    owner: &str,
    providers: Option<&[String]>,
    now: jiff::Timestamp,
) -> Result<(), PgError> {
    if !is_wake_channel(channel) {
        return Err(PgError::Invalid {
            column: "idle_executors.channel",
            value: channel.to_owned(),
        });
    }
    let beats = i64::from(LOST_AFTER_BEATS);
    client
        .execute(
            "WITH lost AS ( \
                 DELETE FROM idle_executors i USING workers w \
                 WHERE w.owner = i.owner AND i.channel <> $1 \
                   AND w.last_heartbeat < $3::timestamptz \
                       - (w.heartbeat_ms * $4::bigint) * interval '1 millisecond') \
             INSERT INTO idle_executors (channel, owner, providers, since) \
             VALUES ($1, $2, $5, clock_timestamp()) ON CONFLICT (channel) DO NOTHING",
            &[&channel, &owner, &now, &beats, &providers],
        )
        .await?;
    Ok(())
}

/// Takes `channel` off the list.
pub(super) async fn unregister(client: &Client, channel: &str) -> Result<(), PgError> {
    client
        .execute("DELETE FROM idle_executors WHERE channel = $1", &[&channel])
        .await?;
    Ok(())
}

impl PgStore {
    /// The wake channels on the list of idle executors, the one waiting
    /// longest first: who a job queued now would wake (for diagnostics and
    /// tests).
    pub fn idle_executors(&self) -> Result<Vec<String>, StoreError> {
        self.call("list idle executors", |client| {
            Box::pin(async move {
                let rows = client
                    .query(
                        "SELECT channel FROM idle_executors ORDER BY since, channel",
                        &[],
                    )
                    .await?;
                rows.iter()
                    .map(|row| row.try_get(0).map_err(PgError::from))
                    .collect()
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wake_channels_are_plain_identifiers() {
        let channel = new_wake_channel().unwrap();
        assert!(is_wake_channel(&channel), "{channel}");
        assert!(channel.len() < 64, "PostgreSQL's identifier limit");
        assert_ne!(channel, new_wake_channel().unwrap());
        assert!(!is_wake_channel("agentgate_wake_"));
        assert!(!is_wake_channel("agentgate_jobs"));
        assert!(!is_wake_channel("agentgate_wake_ab; DROP TABLE jobs"));
    }
}
