//! The clients against a real `agentgate serve`: `agentgate submit --wait`
//! with the REAL Claude Code and Codex against `agentgate fake-llm` gives
//! the envelope `agentgate run` gives; a job that runs again streams both
//! of its runs to its last result.

use std::process::{Command, Stdio};
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use agentgate_store::{JobFilter, JobQueue, JobState};
use serde_json::{Value, json};

use super::serve_queue_support::{QueueHome, TOKEN, wait_until};
use super::serve_support::serve_with_cli_env;
use super::sse_client::stream;
use super::support::{Client, FakeServer, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

const TOOL_SCRIPT: &str = r#"turns:
  - match: {contains: "marker", tool_result: false}
    text: "Running it."
    tool_call: {name: shell, command: "echo agentgate > marker.txt"}
  - match: {tool_result: true}
    text: "Marker written."
"#;

/// The flags both commands get for `client`'s CLI.
fn run_flags(client: &Client) -> Vec<String> {
    let cli = client.setup.cli;
    let mut flags = vec![
        "--provider".to_owned(),
        cli.binary().to_owned(),
        "--yolo".to_owned(),
        "--compact".to_owned(),
        "--binary".to_owned(),
        client.program.display().to_string(),
    ];
    // Codex takes its model from the recipe's config.
    if cli != Cli::Codex {
        flags.extend(["--model".to_owned(), client.setup.model.clone()]);
    }
    flags
}

/// `agentgate ARGS` in the client's environment and working folder.
fn agentgate(client: &Client, args: &[String], extra_env: &[(&str, String)]) -> Command {
    let mut cmd = client.agentgate();
    cmd.args(args)
        .envs(extra_env.iter().map(|(k, v)| (*k, v.as_str())));
    cmd
}

/// The envelope without what differs between two runs of the same turn:
/// ids, times, durations, and the CLI's stderr (it names the CLI's own
/// scratch home, a different folder for each client).
fn comparable(mut envelope: Value) -> Value {
    for key in ["run_id", "session_id", "duration_ms", "stderr_tail"] {
        envelope.as_object_mut().unwrap().remove(key);
    }
    for attempt in envelope["attempts"].as_array_mut().unwrap() {
        for key in ["duration_ms", "session_id"] {
            attempt.as_object_mut().unwrap().remove(key);
        }
    }
    envelope
}

fn last_json(stdout: &str) -> Value {
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no JSON on stdout: {stdout}"))
}

fn submit_wait_matches_run(cli: Cli, serve_args: &[&str]) {
    let prompt = "Please create the marker file.".to_owned();

    let direct_server = FakeServer::start(TOOL_SCRIPT);
    let direct = Client::new(cli, &direct_server);
    let direct_home = tempfile::tempdir().unwrap();
    let mut args = vec!["run".to_owned()];
    args.extend(run_flags(&direct));
    args.push(prompt.clone());
    let home_var = [("AGENTGATE_HOME", direct_home.path().display().to_string())];
    let ran = run_bounded(agentgate(&direct, &args, &home_var), LIMIT);
    assert_eq!(ran.code, Some(0), "{cli}: {}", ran.all_output());
    let by_run = last_json(&ran.stdout);

    let served_server = FakeServer::start(TOOL_SCRIPT);
    let client = Client::new(cli, &served_server);
    let serve_home = tempfile::tempdir().unwrap();
    let serve = serve_with_cli_env(serve_home.path(), &client.setup.env, TOKEN, serve_args);
    let mut args = vec![
        "submit".to_owned(),
        "--server".to_owned(),
        serve.url.clone(),
        "--wait".to_owned(),
    ];
    args.extend(run_flags(&client));
    args.push(prompt);
    let submitted = run_bounded(
        agentgate(&client, &args, &[("AGENTGATE_TOKEN", TOKEN.to_owned())]),
        LIMIT,
    );
    assert_eq!(submitted.code, Some(0), "{cli}: {}", submitted.all_output());
    let by_submit = last_json(&submitted.stdout);
    // The CLI ran the tool in the client's folder, as `agentgate run` does.
    assert_eq!(
        std::fs::read_to_string(client.setup.workdir.join("marker.txt")).unwrap(),
        "agentgate\n",
        "{cli}"
    );
    assert_eq!(by_submit["response"], "Marker written.", "{cli}");
    assert_eq!(
        comparable(by_submit.clone()),
        comparable(by_run.clone()),
        "{cli}: submit --wait and run differ:\nsubmit: {by_submit:#}\nrun: {by_run:#}"
    );
    // Both print the audit line.
    assert!(submitted.stderr.contains("run="), "{}", submitted.stderr);
}

#[test]
fn submit_wait_with_the_real_claude_gives_the_envelope_run_gives() {
    submit_wait_matches_run(Cli::Claude, &[]);
}

/// The same through a server whose store and queue are PostgreSQL: the
/// job is claimed from the database, its events stream from its table.
#[test]
fn submit_wait_through_a_server_on_postgres_gives_the_envelope_run_gives() {
    let url = super::store_postgres::fresh_database();
    submit_wait_matches_run(Cli::Claude, &["--store", &url]);
}

#[test]
fn submit_wait_with_the_real_codex_gives_the_envelope_run_gives() {
    submit_wait_matches_run(Cli::Codex, &[]);
}

#[test]
fn a_retried_job_streams_both_runs_and_submit_stream_ends_with_the_last() {
    let home = QueueHome::new("queue:\n  max_attempts: 2\n  backoff: 10m\n");
    home.set_clock("2030-01-01T00:00:00Z");
    let server = home.serve(true, &[]);
    let client = std::process::Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .args([
            "submit",
            "--server",
            &server.url,
            "--stream",
            "-p",
            "claude",
        ])
        .args(["--no-unattended-instruction", "--max-provider-retries", "0"])
        .arg("flaky tag-w")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("AGENTGATE_TOKEN", TOKEN)
        .current_dir(home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let job = wait_until("the retry to be queued", || {
        let page = home
            .store()
            .list_jobs(&JobFilter::default(), 10, None)
            .ok()?;
        let job = page.jobs.into_iter().next()?;
        (job.state == JobState::Queued && job.attempts == 1).then_some(job)
    });
    home.set_clock("2030-01-01T00:13:00Z");
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(client.wait_with_output());
    });
    let out = done_rx
        .recv_timeout(LIMIT)
        .expect("submit --stream did not end")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let results: Vec<&Value> = events.iter().filter(|e| e["type"] == "result").collect();
    assert_eq!(results.len(), 2, "both runs' results: {stdout}");
    assert_eq!(results[0]["envelope"]["error_type"], "overloaded");
    assert_eq!(results[1]["envelope"]["response"], "done tag-w");
    assert_eq!(events.last().unwrap()["type"], "result");
    assert_eq!(results[1]["run_id"], format!("{}.2", job.job_id));
    assert!(stderr.contains("runs again"), "{stderr}");

    // Replayed, the stream's ids go on increasing across the two runs, and
    // a Last-Event-ID inside the second run resumes there.
    let path = format!("/v1/runs/{}/events", job.job_id);
    let all = stream(&server.url, &path, TOKEN, None).rest();
    let ids: Vec<u64> = all
        .iter()
        .filter_map(|m| m.id.as_deref()?.parse().ok())
        .collect();
    assert_eq!(ids, (0..ids.len() as u64).collect::<Vec<_>>(), "{all:?}");
    let data: Vec<Value> = all
        .iter()
        .filter(|m| m.id.is_some())
        .map(|m| m.json())
        .collect();
    assert_eq!(
        data.len(),
        events.len(),
        "the same events as the client printed"
    );
    let second_start = data
        .iter()
        .position(|e| e["run_id"] == json!(format!("{}.2", job.job_id)))
        .unwrap();
    // The replay says the job ran again, once, between the two runs: a
    // follower that reaches the next run without having seen the job
    // queued (a replay, or a retry that began before it looked) still
    // sends `requeued`.
    let requeued: Vec<usize> = all
        .iter()
        .enumerate()
        .filter(|(_, m)| m.event.as_deref() == Some("requeued"))
        .map(|(i, _)| i)
        .collect();
    let first_of_second = all
        .iter()
        .position(|m| m.id.as_deref() == Some(&ids[second_start].to_string()))
        .unwrap();
    assert_eq!(requeued, vec![first_of_second - 1], "{all:?}");
    let told = all[requeued[0]].json();
    assert_eq!(
        (&told["run_id"], &told["attempts"]),
        (&json!(job.job_id), &json!(2))
    );
    let resumed = stream(
        &server.url,
        &path,
        TOKEN,
        Some(&ids[second_start].to_string()),
    )
    .rest();
    assert_eq!(
        resumed.iter().filter(|m| m.id.is_some()).count(),
        ids.len() - second_start - 1
    );

    // `runs --server`, `runs show --server` and `cancel` see the same job.
    let cli = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_agentgate"))
            .args(args)
            .env_clear()
            .env("AGENTGATE_TOKEN", TOKEN)
            .env("AGENTGATE_SERVER", &server.url)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, listed, _) = cli(&["runs", "--server", "--json"]);
    assert_eq!(code, Some(0));
    let listed: Value = serde_json::from_str(listed.lines().next().unwrap()).unwrap();
    assert_eq!(
        (&listed["run_id"], &listed["status"]),
        (&json!(job.job_id), &json!("succeeded"))
    );
    assert_eq!(listed["attempts"], 2);
    let (code, table, _) = cli(&["runs", "--server"]);
    assert_eq!(code, Some(0));
    assert!(
        table.contains(&job.job_id) && table.contains("succeeded"),
        "{table}"
    );
    let (code, shown, _) = cli(&["runs", "show", &job.job_id, "--server"]);
    assert_eq!(code, Some(0));
    let shown: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(shown["envelope"]["response"], "done tag-w");
    let (code, _, said) = cli(&["cancel", &job.job_id]);
    assert_eq!(code, Some(1), "{said}");
    assert!(
        said.contains("409") && said.contains("already ended"),
        "{said}"
    );
}

/// `bench-serve` (the program behind the figures at scale of
/// docs/operating/benchmarks.md) runs its three measures to the end on a
/// small scale: every job succeeds and every SSE client gets every event,
/// or it exits 1.
#[test]
fn the_scale_bench_runs_its_measures_on_a_small_scale() {
    let agentgate = std::path::Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let bench = agentgate.with_file_name("bench-serve");
    let cli = agentgate.with_file_name("instant-cli");
    assert!(
        bench.is_file() && cli.is_file(),
        "bench-serve or instant-cli is missing: run `cargo build -p agentgate-fixtures --bins`"
    );
    let run = run_bounded(
        {
            let mut cmd = Command::new(&bench);
            cmd.args(["--jobs", "6", "--clients", "3", "--latency-runs", "2"])
                .arg("--agentgate")
                .arg(agentgate)
                .arg("--instant-cli")
                .arg(&cli)
                .stdin(Stdio::null());
            cmd
        },
        LIMIT,
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    for figure in [
        "POST /v1/runs to start",
        "KiB per running job",
        "6 keeper processes",
        "every client got every event",
    ] {
        assert!(run.stdout.contains(figure), "{figure}: {}", run.stdout);
    }
}

/// `bench-queue` (the program behind the throughput table of
/// docs/operating/benchmarks.md) runs every measure to the end on a small scale, on SQLite and on the test
/// PostgreSQL server: every job succeeds on every row, or it exits 1.
#[test]
fn the_queue_bench_runs_every_row_on_a_small_scale() {
    let admin = std::env::var("AGENTGATE_TEST_POSTGRES")
        .expect("AGENTGATE_TEST_POSTGRES is not set: the queue bench needs a PostgreSQL server");
    let agentgate = std::path::Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let bench = agentgate.with_file_name("bench-queue");
    let cli = agentgate.with_file_name("instant-cli");
    assert!(
        bench.is_file() && cli.is_file(),
        "bench-queue or instant-cli is missing: run `cargo build -p agentgate-fixtures --bins`"
    );
    let mut cmd = Command::new(&bench);
    cmd.args(["--jobs", "8", "--workers", "1,2", "--concurrency", "2"])
        .args(["--backlogs", "6,30", "--drain", "6", "--probes", "3"])
        .args(["--postgres", &admin])
        .arg("--agentgate")
        .arg(agentgate)
        .arg("--instant-cli")
        .arg(&cli)
        .stdin(Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    for said in [
        "1 workers on SQLite: 8 jobs",
        "1 workers on PostgreSQL: 8 jobs",
        "2 workers on SQLite: 8 jobs",
        "2 workers on PostgreSQL: 8 jobs",
    ] {
        assert!(run.stderr.contains(said), "{said}: {}", run.all_output());
    }
    let rows: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.trim_start().starts_with(['1', '2']))
        .collect();
    assert_eq!(rows.len(), 2, "{}", run.stdout);
    assert!(rows[0].contains("1.00x"), "{}", run.stdout);
    // The backlog rows: each store at each depth, the drain done and
    // measured against the smallest depth.
    for said in [
        "6 queued on SQLite: ",
        "30 queued on SQLite: ",
        "6 queued on PostgreSQL: ",
        "30 queued on PostgreSQL: ",
    ] {
        assert!(run.stderr.contains(said), "{said}: {}", run.all_output());
    }
    // Where the CPU went: a row per store and worker count; the database
    // server's share is counted on PostgreSQL only.
    let cpu: Vec<Vec<f64>> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("SQLite/") || l.starts_with("PostgreSQL/"))
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .map(|v| v.parse().unwrap())
                .collect()
        })
        .collect();
    assert_eq!(cpu.len(), 4, "{}", run.stdout);
    for (row, store) in cpu.iter().zip(["SQLite", "PostgreSQL"].iter().cycle()) {
        assert!(row[0] > 0.0, "the workers' CPU: {}", run.stdout);
        assert_eq!(row[2] > 0.0, *store == "PostgreSQL", "{}", run.stdout);
    }
    let depths: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("SQLite ") || l.starts_with("PostgreSQL "))
        .collect();
    assert_eq!(depths.len(), 4, "{}", run.stdout);
    assert!(
        depths[0].contains("1.00x") && depths[2].contains("1.00x"),
        "{}",
        run.stdout
    );
    assert!(depths.iter().all(|l| l.contains(" MiB")), "{}", run.stdout);
}

/// `bench-sse --followers` (docs/reference/http-api.md's figure for
/// followers of a queued run) runs on a small scale: every follower gets its stream's head, and
/// serve's CPU is read with none and with them, or it exits 1.
#[test]
fn the_followers_bench_runs_on_a_small_scale() {
    let agentgate = std::path::Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let bench = agentgate.with_file_name("bench-sse");
    assert!(
        bench.is_file(),
        "bench-sse is missing: run `cargo build -p agentgate-fixtures --bins`"
    );
    let mut cmd = Command::new(&bench);
    cmd.args(["--followers", "20", "--seconds", "1"])
        .arg("--agentgate")
        .arg(agentgate)
        .stdin(Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert!(
        run.stdout
            .contains("20 SSE followers of one queued run: serve uses "),
        "{}",
        run.stdout
    );
}
