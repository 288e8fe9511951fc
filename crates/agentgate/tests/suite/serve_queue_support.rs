//! The queue tests' home: a stand-in `claude` that stamps every process's
//! start and end in a file, a config, the test clock file, and readers of
//! the store the server writes.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentgate_store::{JobQueue, JobRecord, JobState, RunStore, Store};
use serde_json::{Value, json};

use super::serve_support::{Env, LIMIT, Response, Serve};

pub const TOKEN: &str = "queue-test-token-0123456789abcdef0";

/// The stand-in CLI. Its behaviour is chosen by words of the prompt:
/// `hold` waits for the file `release`; `nap` sleeps half a second;
/// `quota` fails once with a usage limit resetting at the epoch in the
/// file `reset`; `flaky` fails once as overloaded (recoverable); `costly`
/// reports a cost of $0.06 (its model is on no rate card). `tag-X`
/// names the job in the stamps. Each process appends `start PID NS TAG
/// alive=N` (N: earlier stand-ins still running) and `end PID NS TAG`.
const STAND_IN: &str = r#"#!/bin/bash
dir='@DIR@'
prompt="$(cat) $*"
tag=$(printf '%s' "$prompt" | grep -o 'tag-[a-z0-9]*' | head -1)
alive=0
if [ -f "$dir/pids" ]; then
  for p in $(cat "$dir/pids"); do kill -0 "$p" 2>/dev/null && alive=$((alive+1)); done
fi
echo "$$" >> "$dir/pids"
echo "start $$ $(date +%s%N) $tag alive=$alive" >> "$dir/stamps"
has() { printf '%s' "$prompt" | grep -q "$1"; }
if has hold; then
  for _ in $(seq 1 600); do [ -e "$dir/release" ] && break; sleep 0.1; done
fi
has nap && sleep 0.5
echo '{"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model"}'
if has quota && [ ! -e "$dir/quota-done" ]; then
  touch "$dir/quota-done"
  echo '{"type":"result","subtype":"success","is_error":true,"result":"Claude AI usage limit reached|'"$(cat "$dir/reset")"'","session_id":"sess-1","num_turns":1}'
  echo "end $$ $(date +%s%N) $tag" >> "$dir/stamps"
  exit 1
fi
if has flaky && [ ! -e "$dir/flaky-done" ]; then
  touch "$dir/flaky-done"
  echo '{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}","session_id":"sess-1","num_turns":1}'
  echo "end $$ $(date +%s%N) $tag" >> "$dir/stamps"
  exit 1
fi
cost=''
has costly && cost=',"total_cost_usd":0.06,"usage":{"input_tokens":1000,"output_tokens":10}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"done '"$tag"'","session_id":"sess-1","num_turns":1'"$cost"'}'
echo "end $$ $(date +%s%N) $tag" >> "$dir/stamps"
"#;

/// A scratch home with the stand-in on PATH as `claude`.
pub struct QueueHome {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

/// One stand-in process, from the stamps.
#[derive(Debug, Clone)]
pub struct CliRun {
    pub pid: u32,
    pub tag: String,
    pub start: u128,
    pub end: Option<u128>,
    /// Earlier stand-ins still running when it started.
    pub alive_at_start: u32,
}

impl QueueHome {
    /// A home whose config holds `config` (YAML after `version: 1`).
    pub fn new(config: &str) -> QueueHome {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let claude = bin.join("claude");
        let script = STAND_IN.replace("@DIR@", dir.path().to_str().unwrap());
        std::fs::write(&claude, script).unwrap();
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(
            dir.path().join("agentgate.yaml"),
            format!("version: 1\n{config}"),
        )
        .unwrap();
        QueueHome { dir, bin }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Set the server's clock (the test clock file).
    pub fn set_clock(&self, rfc3339: &str) {
        let tmp = self.file("clock.tmp");
        std::fs::write(&tmp, rfc3339).unwrap();
        std::fs::rename(tmp, self.file("clock")).unwrap();
    }

    /// `agentgate serve ARGS` on this home; with the test clock when
    /// `clock` is set.
    pub fn serve(&self, clock: bool, args: &[&str]) -> Serve {
        self.serve_with_vars(clock, Vec::new(), args)
    }

    /// [`QueueHome::serve`] with more environment variables.
    pub fn serve_with_vars(&self, clock: bool, extra: Vec<(&str, String)>, args: &[&str]) -> Serve {
        let mut vars = vec![
            ("AGENTGATE_TOKEN", TOKEN.to_owned()),
            (
                "AGENTGATE_CONFIG",
                self.file("agentgate.yaml").display().to_string(),
            ),
        ];
        if clock {
            vars.push((
                "AGENTGATE_TEST_CLOCK_FILE",
                self.file("clock").display().to_string(),
            ));
        }
        vars.extend(extra);
        let env = Env {
            home: self.path(),
            bin: &self.bin,
            vars,
        };
        Serve::start(&env, args)
    }

    /// The store the server writes.
    pub fn store(&self) -> Store {
        Store::open(self.file("data/agentgate.db")).unwrap()
    }

    pub fn job(&self, id: &str) -> JobRecord {
        self.store().get_job(id).unwrap().unwrap()
    }

    pub fn job_count(&self) -> usize {
        let filter = agentgate_store::JobFilter::default();
        self.store()
            .list_jobs(&filter, 1000, None)
            .unwrap()
            .jobs
            .len()
    }

    pub fn run_recorded(&self, run_id: &str) -> bool {
        self.store().get_run(run_id).unwrap().is_some()
    }

    /// Wait (bounded) until job `id` is in `state`.
    pub fn wait_for_state(&self, id: &str, state: JobState) -> JobRecord {
        wait_until(&format!("job {id} {state}"), || {
            let job = self.job(id);
            (job.state == state).then_some(job)
        })
    }

    /// The stand-in processes so far.
    pub fn cli_runs(&self) -> Vec<CliRun> {
        let text = std::fs::read_to_string(self.file("stamps")).unwrap_or_default();
        let mut runs: Vec<CliRun> = Vec::new();
        for line in text.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            match f.as_slice() {
                ["start", pid, ns, tag, alive] => runs.push(CliRun {
                    pid: pid.parse().unwrap(),
                    tag: (*tag).to_owned(),
                    start: ns.parse().unwrap(),
                    end: None,
                    alive_at_start: alive.trim_start_matches("alive=").parse().unwrap(),
                }),
                ["end", pid, ns, _] => {
                    let pid: u32 = pid.parse().unwrap();
                    let run = runs.iter_mut().find(|r| r.pid == pid).unwrap();
                    run.end = Some(ns.parse().unwrap());
                }
                _ => panic!("bad stamp line {line:?}"),
            }
        }
        runs
    }

    /// Wait (bounded) until `n` stand-ins started.
    pub fn wait_for_starts(&self, n: usize) -> Vec<CliRun> {
        wait_until(&format!("{n} CLI starts"), || {
            let runs = self.cli_runs();
            (runs.len() >= n).then_some(runs)
        })
    }
}

/// The most stand-ins that ran at once among `runs` (all ended).
pub fn max_overlap(runs: &[CliRun]) -> usize {
    let mut edges: Vec<(u128, i32)> = Vec::new();
    for r in runs {
        edges.push((r.start, 1));
        edges.push((r.end.expect("every CLI ended"), -1));
    }
    // An end and a start at the same instant do not overlap.
    edges.sort_by_key(|&(t, d)| (t, d));
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        most = most.max(now);
    }
    usize::try_from(most).unwrap()
}

/// `f` until it gives a value, polling every 50 ms, at most [`LIMIT`].
pub fn wait_until<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(start.elapsed() < LIMIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Whether process `pid` runs (a zombie counts as gone).
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// POST `path` with a JSON body and the token.
pub fn post(url: &str, path: &str, body: &str) -> Response {
    super::serve_support::post_json(url, path, TOKEN, body)
}

/// Submit a run of the stand-in with `prompt` and the extra `fields`; its
/// answer.
pub fn submit(url: &str, prompt: &str, fields: Value) -> Response {
    let mut body = json!({
        "prompt": prompt,
        "providers": ["claude"],
        "no_unattended_instruction": true,
        "max_provider_retries": 0,
    });
    if let (Some(b), Value::Object(extra)) = (body.as_object_mut(), fields) {
        b.extend(extra);
    }
    post(url, "/v1/runs", &body.to_string())
}

/// Submit and expect 201: the run id.
pub fn submit_ok(url: &str, prompt: &str, fields: Value) -> String {
    let r = submit(url, prompt, fields);
    assert_eq!(r.status, 201, "{r:?}");
    r.json()["run_id"].as_str().unwrap().to_owned()
}

pub fn cancel(url: &str, id: &str) -> Response {
    post(url, &format!("/v1/runs/{id}/cancel"), "")
}
