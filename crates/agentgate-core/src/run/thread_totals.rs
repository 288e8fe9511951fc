//! A thread's totals before this turn, for CLIs that report usage as the
//! thread's running total (Codex): the turn's own figures are the totals
//! it reported minus these.
//!
//! The CLI's own history comes first (Codex's rollout file, whose last
//! turn must end with the totals just reported: see
//! `Provider::thread_totals_before_last_turn`), since it also knows turns
//! run outside agentgate (a thread created or continued by hand); the
//! totals the store kept after the thread's previous turn through
//! agentgate are the fallback. Either way the new totals are stored.

use std::ffi::OsString;
use std::path::Path;

use agentgate_protocol::Usage;
use agentgate_providers::session_logs::CliHomes;
use agentgate_providers::{CliRequest, Provider};
use agentgate_store::RunStore;

/// The totals of `thread` before this turn; stores `totals` (the ones the
/// CLI just reported) as the thread's latest.
pub(super) fn previous_totals(
    store: Option<&dyn RunStore>,
    provider: &dyn Provider,
    request: &CliRequest,
    home: Option<&Path>,
    thread: &str,
    totals: &Usage,
) -> Option<Usage> {
    let homes = homes_of(request, home);
    let from_files = provider.thread_totals_before_last_turn(&homes, thread, totals);
    let Some(store) = store else {
        return from_files;
    };
    let stored = store
        .get_thread_totals(provider.name(), thread)
        .ok()
        .flatten();
    if let Err(e) = store.put_thread_totals(provider.name(), thread, totals) {
        tracing::warn!("failed to store thread totals: {e}");
    }
    from_files.or(stored)
}

/// The CLI's folders, from the environment it ran with.
pub(super) fn homes_of(request: &CliRequest, home: Option<&Path>) -> CliHomes {
    let mut homes = CliHomes::from_lookup(|key| {
        if let Some((_, v)) = request.env.iter().rev().find(|(k, _)| k == key) {
            return Some(OsString::from(v));
        }
        if request.env_clear || request.env_remove.iter().any(|k| k == key) {
            return None;
        }
        std::env::var_os(key)
    });
    if let Some(home) = home {
        homes.home = Some(home.to_owned());
    }
    homes
}
