//! `GET /metrics` end to end: a real `serve` (SQLite) and a real `worker
//! --metrics-listen` (PostgreSQL) run jobs of a stand-in `claude` that
//! reports known usage; each scrape is parsed line by line as the
//! Prometheus text format 0.0.4, and its values must equal what happened.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use agentgate_store::{ExpiryPolicy, JobQueue, JobState};
use serde_json::json;

use super::serve_queue_support::{QueueHome, TOKEN, submit_ok, wait_until};
use super::serve_support::get;
use super::store_postgres::fresh_database;
use super::worker::Worker;

/// The stand-in `claude`: `hold` waits for the file `release`; `broken`
/// fails as an invalid login (not recoverable); otherwise it succeeds
/// with 100 uncached + 20 cache-read + 5 cache-written input tokens, 7
/// output tokens and $0.25.
const STAND_IN: &str = r#"#!/bin/bash
dir='@DIR@'
prompt="$(cat) $*"
tag=$(printf '%s' "$prompt" | grep -o 'tag-[a-z0-9]*' | head -1)
echo "start $$ $(date +%s%N) $tag alive=0" >> "$dir/stamps"
has() { printf '%s' "$prompt" | grep -q "$1"; }
if has hold; then
  for _ in $(seq 1 600); do [ -e "$dir/release" ] && break; sleep 0.1; done
fi
echo '{"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model"}'
if has broken; then
  echo '{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login","session_id":"sess-1","num_turns":1}'
  echo "end $$ $(date +%s%N) $tag" >> "$dir/stamps"
  exit 1
fi
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"sess-1","num_turns":1,"usage":{"input_tokens":100,"cache_read_input_tokens":20,"cache_creation_input_tokens":5,"output_tokens":7},"total_cost_usd":0.25}'
echo "end $$ $(date +%s%N) $tag" >> "$dir/stamps"
"#;

fn home(config: &str) -> QueueHome {
    let home = QueueHome::new(config);
    let claude = home.file("bin/claude");
    let script = STAND_IN.replace("@DIR@", home.path().to_str().unwrap());
    std::fs::write(&claude, script).unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    home
}

/// One sample of a scrape.
#[derive(Debug, Clone, PartialEq)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// A scrape, every line checked against the text format.
#[derive(Debug)]
struct Scrape(Vec<Sample>);

impl Scrape {
    fn of(url: &str, token: &str) -> Scrape {
        let r = get(url, "/metrics", Some(token));
        assert_eq!(r.status, 200, "{r:?}");
        assert_eq!(
            r.header("content-type"),
            Some("text/plain; version=0.0.4; charset=utf-8")
        );
        Scrape(parse_exposition(&r.body))
    }

    /// The value of the sample `name` with exactly `labels`; 0 when absent.
    fn value(&self, name: &str, labels: &[(&str, &str)]) -> f64 {
        let want: BTreeMap<String, String> = labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let found: Vec<&Sample> = self
            .0
            .iter()
            .filter(|s| s.name == name && s.labels == want)
            .collect();
        assert!(found.len() <= 1, "{name} {labels:?} twice: {found:?}");
        found.first().map_or(0.0, |s| s.value)
    }

    fn has(&self, name: &str) -> bool {
        self.0.iter().any(|s| s.name == name)
    }
}

/// Every line is `# HELP`, `# TYPE` or a sample of the family typed last;
/// each family is typed once; counters end in `_total`; a histogram's
/// samples are its `_bucket` (with `le`), `_sum` and `_count`; names are
/// `agentgate_*`; label values use only the three escapes.
fn parse_exposition(text: &str) -> Vec<Sample> {
    assert!(text.ends_with('\n'), "no final line feed");
    let mut samples = Vec::new();
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, _) = rest.split_once(' ').unwrap_or((rest, ""));
            assert!(valid_name(name), "bad HELP line {line:?}");
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').expect(line);
            assert!(
                valid_name(name) && name.starts_with("agentgate_"),
                "{line:?}"
            );
            assert!(
                ["counter", "gauge", "histogram"].contains(&kind),
                "{line:?}"
            );
            if kind == "counter" {
                assert!(
                    name.ends_with("_total"),
                    "a counter without _total: {line:?}"
                );
            }
            assert!(
                typed.insert(name.to_owned(), kind.to_owned()).is_none(),
                "{name} typed twice"
            );
            current = Some((name.to_owned(), kind.to_owned()));
        } else {
            assert!(!line.starts_with('#') && !line.is_empty(), "{line:?}");
            let sample = parse_sample(line);
            let (family, kind) = current.as_ref().expect("a sample before any TYPE");
            if kind == "histogram" {
                let suffix = sample.name.strip_prefix(family.as_str()).expect(line);
                assert!(["_bucket", "_sum", "_count"].contains(&suffix), "{line:?}");
                assert_eq!(
                    suffix == "_bucket",
                    sample.labels.contains_key("le"),
                    "{line:?}"
                );
            } else {
                assert_eq!(
                    &sample.name, family,
                    "a sample outside its family: {line:?}"
                );
            }
            samples.push(sample);
        }
    }
    samples
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn parse_sample(line: &str) -> Sample {
    let name_end = line.find(['{', ' ']).expect(line);
    let name = &line[..name_end];
    assert!(valid_name(name), "bad name in {line:?}");
    let rest = &line[name_end..];
    match rest.strip_prefix('{') {
        Some(inner) => parse_labels(line, name, inner),
        None => finish_sample(line, name, BTreeMap::new(), rest),
    }
}

/// The labels of `inner` (what follows `{`), then the value.
fn parse_labels(line: &str, name: &str, inner: &str) -> Sample {
    let mut labels = BTreeMap::new();
    let mut start = 0;
    loop {
        let eq = inner[start..].find("=\"").expect(line) + start;
        let label = &inner[start..eq];
        assert!(valid_name(label), "bad label name in {line:?}");
        let (value, end) = quoted(line, inner, eq + 2);
        assert!(labels.insert(label.to_owned(), value).is_none(), "{line:?}");
        match inner.as_bytes().get(end + 1) {
            Some(b',') => start = end + 2,
            Some(b'}') => return finish_sample(line, name, labels, &inner[end + 2..]),
            _ => panic!("bad label list in {line:?}"),
        }
    }
}

/// The escaped value starting at byte `from` of `text`, and the byte of
/// its closing quote.
fn quoted(line: &str, text: &str, from: usize) -> (String, usize) {
    let mut value = String::new();
    let mut it = text[from..].char_indices();
    loop {
        match it.next().expect(line) {
            (i, '"') => return (value, from + i),
            (_, '\\') => match it.next().expect(line).1 {
                '\\' => value.push('\\'),
                '"' => value.push('"'),
                'n' => value.push('\n'),
                other => panic!("bad escape \\{other} in {line:?}"),
            },
            (_, '\n') => panic!("a raw line feed in {line:?}"),
            (_, c) => value.push(c),
        }
    }
}

fn finish_sample(line: &str, name: &str, labels: BTreeMap<String, String>, rest: &str) -> Sample {
    let value = rest.strip_prefix(' ').expect(line);
    let value = match value {
        "+Inf" => f64::INFINITY,
        "-Inf" => f64::NEG_INFINITY,
        v => {
            assert!(
                !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || "-.e".contains(c)),
                "bad value in {line:?}"
            );
            v.parse()
                .unwrap_or_else(|_| panic!("bad value in {line:?}"))
        }
    };
    if let Some(le) = labels.get("le") {
        assert!(
            le == "+Inf" || le.parse::<f64>().is_ok(),
            "bad le in {line:?}"
        );
    }
    Sample {
        name: name.to_owned(),
        labels,
        value,
    }
}

const CLAUDE: (&str, &str) = ("provider", "claude");

fn assert_near(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() < 1e-9, "{what}: {got} != {want}");
}

/// The sum of the final envelopes' durations of `ids`, in seconds.
fn envelope_seconds(home: &QueueHome, ids: &[String]) -> f64 {
    ids.iter()
        .map(|id| {
            let env = home.job(id).envelope.expect("an envelope");
            Duration::from_millis(env.duration_ms).as_secs_f64()
        })
        .sum()
}

#[test]
fn serve_metrics_count_the_jobs_it_ran_and_the_queue_it_sees() {
    let home = home("queue:\n  max_running: 1\n  lease: 3s\n");
    let server = home.serve(false, &[]);
    for token in [None, Some("not-the-token")] {
        let r = get(&server.url, "/metrics", token);
        assert_eq!(r.status, 401, "{r:?}");
        assert!(!r.body.contains("agentgate_"), "{r:?}");
    }
    let before = Scrape::of(&server.url, TOKEN);
    assert_eq!(before.value("agentgate_claims_total", &[]), 0.0);
    assert_eq!(before.value("agentgate_store_up", &[]), 1.0);
    assert!(!before.has("agentgate_runs_finished_total"));

    let mut ended = Vec::new();
    for i in 0..3 {
        let id = submit_ok(&server.url, &format!("tag-ok{i}"), json!({}));
        home.wait_for_state(&id, JobState::Succeeded);
        ended.push(id);
    }
    let broken = submit_ok(&server.url, "broken tag-b", json!({}));
    home.wait_for_state(&broken, JobState::Failed);
    ended.push(broken);

    // One job runs (held), one waits for the only slot.
    let held = submit_ok(&server.url, "hold tag-h", json!({}));
    home.wait_for_starts(5);
    let queued = submit_ok(&server.url, "tag-q", json!({}));
    let busy = Scrape::of(&server.url, TOKEN);
    fn gauge(state: &str) -> (&str, &str) {
        ("state", state)
    }
    assert_eq!(
        busy.value("agentgate_queue_jobs", &[gauge("queued"), CLAUDE]),
        1.0
    );
    assert_eq!(
        busy.value("agentgate_queue_jobs", &[gauge("running"), CLAUDE]),
        1.0
    );
    assert_eq!(busy.value("agentgate_running_jobs", &[]), 1.0);
    assert_eq!(busy.value("agentgate_executor_running_jobs", &[]), 1.0);
    let serve_running = [("kind", "serve"), ("state", "running")];
    assert_eq!(busy.value("agentgate_workers", &serve_running), 1.0);
    assert_eq!(
        busy.value(
            "agentgate_workers",
            &[("kind", "worker"), ("state", "running")]
        ),
        0.0
    );

    // Another server's sweep takes the held job's lease back: the run is
    // stopped at the next renewal and counted as a lease loss; the job is
    // queued again and run again.
    let far = jiff::Timestamp::now() + jiff::SignedDuration::from_hours(24);
    let taken = home
        .store()
        .expire_leases(far, ExpiryPolicy::Requeue)
        .unwrap();
    assert_eq!(taken.len(), 1, "{taken:?}");
    let lost = wait_until("the lease loss to be counted", || {
        let s = Scrape::of(&server.url, TOKEN);
        (s.value("agentgate_lease_losses_total", &[]) == 1.0).then_some(s)
    });
    assert_eq!(
        lost.value(
            "agentgate_runs_finished_total",
            &[CLAUDE, ("outcome", "lease_lost")]
        ),
        1.0
    );
    std::fs::write(home.file("release"), "").unwrap();
    for id in [&held, &queued] {
        home.wait_for_state(id, JobState::Succeeded);
        ended.push(id.clone());
    }

    let after = wait_until("the last run to be counted", || {
        let s = Scrape::of(&server.url, TOKEN);
        (s.value("agentgate_run_duration_seconds_count", &[CLAUDE]) == 7.0).then_some(s)
    });
    // 3 + 1 + the held job twice + the queued one.
    assert_eq!(after.value("agentgate_claims_total", &[]), 7.0);
    let runs = |outcome: &str| {
        after.value(
            "agentgate_runs_finished_total",
            &[CLAUDE, ("outcome", outcome)],
        )
    };
    assert_eq!(
        (runs("succeeded"), runs("failed"), runs("lease_lost")),
        (5.0, 1.0, 1.0)
    );
    assert_eq!(after.value("agentgate_handed_back_jobs_total", &[]), 0.0);
    // Five answers of the stand-in's usage; the failure and the stopped
    // run reported none.
    assert_eq!(
        after.value("agentgate_input_tokens_total", &[CLAUDE]),
        5.0 * 125.0
    );
    assert_eq!(
        after.value("agentgate_output_tokens_total", &[CLAUDE]),
        5.0 * 7.0
    );
    assert_eq!(
        after.value("agentgate_cache_read_tokens_total", &[CLAUDE]),
        5.0 * 20.0
    );
    assert_eq!(
        after.value("agentgate_cache_write_tokens_total", &[CLAUDE]),
        5.0 * 5.0
    );
    assert_near(
        after.value("agentgate_cost_usd_total", &[CLAUDE]),
        1.25,
        "cost",
    );
    let tokens: u64 = ended
        .iter()
        .map(|id| home.job(id).envelope.unwrap().tokens_used.input_tokens)
        .sum();
    assert_eq!(tokens, 625, "the envelopes say the same");
    // The histogram: its +Inf bucket is its count; its sum holds the six
    // final envelopes' durations plus the stopped run's.
    let bucket = |le: &str| {
        after.value(
            "agentgate_run_duration_seconds_bucket",
            &[CLAUDE, ("le", le)],
        )
    };
    assert_eq!(bucket("+Inf"), 7.0);
    assert!(bucket("0.5") <= bucket("1") && bucket("1") <= bucket("3600"));
    let sum = after.value("agentgate_run_duration_seconds_sum", &[CLAUDE]);
    let known = envelope_seconds(&home, &ended);
    assert!(
        sum >= known - 1e-6 && sum < known + 60.0,
        "{sum} vs {known}"
    );
    assert_eq!(
        after.value("agentgate_queue_jobs", &[gauge("queued"), CLAUDE]),
        0.0
    );
    assert_eq!(after.value("agentgate_running_jobs", &[]), 0.0);
    drop(server);
}

#[test]
fn a_worker_serves_its_own_counters_and_the_shared_gauges() {
    let store = fresh_database();
    let home = home("queue:\n  lease: 3s\n");
    let token_file = home.file("worker-token");
    std::fs::write(&token_file, "worker-metrics-token-0123456789abcd\n").unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let worker = Worker::start(
        &home,
        &store,
        &[
            "--metrics-listen",
            "127.0.0.1:0",
            "--token-file",
            token_file.to_str().unwrap(),
        ],
    );
    let url = wait_until("the worker to print its metrics address", || {
        let log = worker.log();
        let at = log.find("metrics on http://")? + "metrics on ".len();
        // Only a whole line: the log is read while the worker writes it.
        let line = log[at..].split_once('\n')?.0;
        let addr = line.split('/').nth(2)?.to_owned();
        Some(format!("http://{addr}"))
    });
    const WORKER_TOKEN: &str = "worker-metrics-token-0123456789abcd";
    for token in [None, Some(TOKEN)] {
        let r = get(&url, "/metrics", token);
        assert_eq!(r.status, 401, "{r:?}");
    }
    let r = get(&url, "/v1/runs", Some(WORKER_TOKEN));
    assert_eq!(r.status, 404, "only /metrics is served: {r:?}");

    let ids: Vec<String> = (0..2)
        .map(|i| submit_ok(&server.url, &format!("tag-w{i}"), json!({})))
        .collect();
    let pg = agentgate_store::PgStore::connect(
        &store,
        home.file("runs"),
        &agentgate_store::PgOptions::default(),
    )
    .unwrap();
    for id in &ids {
        wait_until(&format!("job {id} to succeed"), || {
            let job = pg.get_job(id).unwrap().unwrap();
            (job.state == JobState::Succeeded).then_some(())
        });
    }
    let held = submit_ok(&server.url, "hold tag-wh", json!({}));
    home.wait_for_starts(3);

    let mine = Scrape::of(&url, WORKER_TOKEN);
    let theirs = Scrape::of(&server.url, TOKEN);
    assert_eq!(mine.value("agentgate_claims_total", &[]), 3.0);
    assert_eq!(
        mine.value(
            "agentgate_runs_finished_total",
            &[CLAUDE, ("outcome", "succeeded")]
        ),
        2.0
    );
    assert_eq!(mine.value("agentgate_input_tokens_total", &[CLAUDE]), 250.0);
    assert_near(
        mine.value("agentgate_cost_usd_total", &[CLAUDE]),
        0.5,
        "cost",
    );
    assert_eq!(mine.value("agentgate_executor_running_jobs", &[]), 1.0);
    // The serve process ran nothing: its counters stay at zero.
    assert_eq!(theirs.value("agentgate_claims_total", &[]), 0.0);
    assert!(!theirs.has("agentgate_runs_finished_total"));
    assert_eq!(theirs.value("agentgate_executor_running_jobs", &[]), 0.0);
    // The cluster's gauges are the same from both.
    for page in [&mine, &theirs] {
        let running = [("state", "running"), CLAUDE];
        assert_eq!(page.value("agentgate_queue_jobs", &running), 1.0);
        assert_eq!(page.value("agentgate_running_jobs", &[]), 1.0);
        let workers = [("kind", "worker"), ("state", "running")];
        assert_eq!(page.value("agentgate_workers", &workers), 1.0);
        let serves = [("kind", "serve"), ("state", "running")];
        assert_eq!(page.value("agentgate_workers", &serves), 0.0);
    }
    std::fs::write(home.file("release"), "").unwrap();
    wait_until("the held job to succeed", || {
        let job = pg.get_job(&held).unwrap().unwrap();
        (job.state == JobState::Succeeded).then_some(())
    });
    drop(worker);
    drop(server);
}

#[test]
fn the_parser_refuses_what_the_format_does_not_allow() {
    let good = "# HELP agentgate_a_total x\n# TYPE agentgate_a_total counter\n\
                agentgate_a_total{p=\"a\\\"b\\\\c\\nd\",q=\"\"} 1.5\n";
    let parsed = parse_exposition(good);
    assert_eq!(parsed[0].labels["p"], "a\"b\\c\nd");
    assert_eq!(parsed[0].value, 1.5);
    let bad = [
        // no TYPE before the sample
        "agentgate_a_total 1\n",
        // a counter without _total
        "# TYPE agentgate_a counter\nagentgate_a 1\n",
        // an unknown escape
        "# TYPE agentgate_a_total counter\nagentgate_a_total{p=\"\\x\"} 1\n",
        // an unclosed label list
        "# TYPE agentgate_a_total counter\nagentgate_a_total{p=\"a\" 1\n",
        // a value that is no number
        "# TYPE agentgate_a_total counter\nagentgate_a_total one\n",
        // a bucket without le
        "# TYPE agentgate_d_seconds histogram\nagentgate_d_seconds_bucket 1\n",
        // a family typed twice
        "# TYPE agentgate_g gauge\n# TYPE agentgate_g gauge\n",
        // a sample of another family
        "# TYPE agentgate_g gauge\nagentgate_h 1\n",
    ];
    for page in bad {
        let refused = std::panic::catch_unwind(|| parse_exposition(page));
        assert!(refused.is_err(), "accepted {page:?}");
    }
}
