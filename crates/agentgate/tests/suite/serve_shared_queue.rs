//! Several `agentgate serve` processes on one PostgreSQL store: the
//! queue's limits hold between them, because each claim re-checks them in
//! the database against every running job (`JobQueue::claim_next`).

use super::serve_queue_support::{QueueHome, max_overlap, submit_ok, wait_until};
use super::store_postgres::fresh_database;
use agentgate_store::{JobQueue, JobState, PgOptions, PgStore};
use serde_json::json;

/// Two servers each submitted half of eight half-second jobs of one
/// provider limited to 2: never more than two stand-in CLIs run at once, by
/// their own stamps and by the processes each found alive when it started,
/// and each claim charged the provider on the job (which is how the other
/// server counts it). Which server claims which job is up to their timing;
/// the race itself (many claimers deciding from one snapshot) is proved on
/// the store (`claim_next::racing_claimers_never_pass_a_limit`).
#[test]
fn two_servers_on_one_postgres_store_keep_a_providers_limit_between_them() {
    let url = fresh_database();
    let home = QueueHome::new("queue:\n  max_running: 10\n  providers: {claude: 2}\n");
    let servers = [
        home.serve(false, &["--store", &url]),
        home.serve(false, &["--store", &url]),
    ];
    // Read-only runs: the one-writer-per-folder rule does not apply.
    let ids: Vec<String> = (0..8)
        .map(|i| {
            let fields = json!({"permission_mode": "plan"});
            submit_ok(&servers[i % 2].url, &format!("nap tag-{i}"), fields)
        })
        .collect();
    let store = PgStore::connect(&url, home.file("pg-runs"), &PgOptions::default()).unwrap();
    for id in &ids {
        let job = wait_until(&format!("job {id} to succeed"), || {
            let job = store.get_job(id).unwrap()?;
            (job.state == JobState::Succeeded).then_some(job)
        });
        assert_eq!(job.charged_provider.as_deref(), Some("claude"), "{job:?}");
    }
    let runs = home.cli_runs();
    assert_eq!(runs.len(), 8, "{runs:?}");
    let most = max_overlap(&runs);
    assert!(
        most <= 2,
        "{most} CLIs ran at once over a limit of 2: {runs:?}"
    );
    let alive = runs.iter().map(|r| r.alive_at_start).max().unwrap();
    assert!(
        alive < 2,
        "a stand-in started with {alive} others alive: {runs:?}"
    );
}
