//! A long line never breaks a stream. A stand-in `claude` prints a 40 MiB
//! line (over the 32 MiB line limit), a 20 MB answer (under it), more
//! output than the run's event log may hold (`event_log.max_bytes`), then
//! its result. Through a real `agentgate serve`, `submit --wait`, `submit
//! --stream` and `tail` exit 0 and see the result; the cut line is a `raw`
//! event that says it was cut and from what, the 20 MB answer arrives
//! whole, the log's note says where it was cut, and no line of the log or
//! the stream passes the limit. (`agentgate run` with a line over the limit:
//! `run_process::a_line_over_the_limit_is_cut_visibly_...`.)

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_protocol::MAX_LINE_BYTES;
use serde_json::Value;

use super::serve_support::{Env, Serve};
use super::support::{Run, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const TOKEN: &str = "long-lines-token-0123456789abcdef0";
const LIMIT: Duration = Duration::from_secs(300);
const CUT_LINE: u64 = 40 * 1024 * 1024;
const ANSWER: usize = 20_000_000;

const STAND_IN: &str = r#"#!/bin/bash
cat > /dev/null
echo '{"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model"}'
head -c 41943040 /dev/zero | tr '\0' 'g'
echo
printf '{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"'
head -c 20000000 /dev/zero | tr '\0' 'w'
printf '"}]},"session_id":"sess-1"}\n'
for i in $(seq 1 50); do echo "noise line $i"; done
echo '{"type":"result","subtype":"success","is_error":false,"result":"done after the flood","session_id":"sess-1","num_turns":1}'
"#;

/// A home with the stand-in as `claude` and a config bounding each log to
/// 48 MiB: the cut line and the answer pass it, the noise is left out.
fn home() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("claude"), STAND_IN).unwrap();
    std::fs::set_permissions(bin.join("claude"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        dir.path().join("agentgate.yaml"),
        "version: 1\nevent_log:\n  max_bytes: 48MiB\n",
    )
    .unwrap();
    dir
}

fn agentgate(home: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(AGENTGATE);
    cmd.args(args)
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", home.join("bin").display()),
        )
        .env("HOME", home)
        .env("AGENTGATE_HOME", home.join("data"))
        .env("AGENTGATE_CONFIG", home.join("agentgate.yaml"))
        .env("AGENTGATE_TOKEN", TOKEN)
        .current_dir(home);
    run_bounded(cmd, LIMIT)
}

/// What a stream of JSON lines shows: every line within the limit, the
/// cut line, the whole answer, the note, the noise left out, the result.
fn check_stream(stdout: &str, who: &str) {
    let events: Vec<Value> = stdout
        .lines()
        .map(|l| {
            assert!(l.len() <= MAX_LINE_BYTES, "{who}: a line of {}", l.len());
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{who}: not JSON ({e})"))
        })
        .collect();
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["type"].as_str()).collect();
    let cut: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "raw" && e["truncated"] == true)
        .collect();
    assert_eq!(cut.len(), 1, "{who}: {kinds:?}");
    assert_eq!(cut[0]["original_bytes"], CUT_LINE, "{who}");
    let line = cut[0]["line"].as_str().unwrap();
    assert!(
        line.len() > MAX_LINE_BYTES / 2 && line.bytes().all(|b| b == b'g'),
        "{who}"
    );
    let answer = events
        .iter()
        .find(|e| e["type"] == "message")
        .unwrap_or_else(|| panic!("{who}: no message in {kinds:?}"));
    assert_eq!(answer["text"].as_str().unwrap().len(), ANSWER, "{who}");
    assert!(answer.get("cut").is_none(), "{who}: the answer fits");
    let note = events
        .iter()
        .find(|e| {
            e["type"] == "log" && e["message"].as_str().unwrap().contains("reached its bound")
        })
        .unwrap_or_else(|| panic!("{who}: no note of the cut in {kinds:?}"));
    assert!(
        note["message"].as_str().unwrap().contains("50331648 bytes"),
        "{who}: {note}"
    );
    assert!(
        !events.iter().any(|e| e["line"] == "noise line 50"),
        "{who}: the noise past the bound was kept"
    );
    let last = events.last().unwrap();
    assert_eq!(last["type"], "result", "{who}: {kinds:?}");
    assert_eq!(
        last["envelope"]["response"], "done after the flood",
        "{who}"
    );
}

#[test]
fn a_line_over_the_limit_and_a_log_past_its_bound_keep_the_stream_and_its_result() {
    let dir = home();
    let home = dir.path();
    let server = Serve::start(
        &Env {
            home,
            bin: &home.join("bin"),
            vars: vec![
                ("AGENTGATE_TOKEN", TOKEN.to_owned()),
                (
                    "AGENTGATE_CONFIG",
                    home.join("agentgate.yaml").display().to_string(),
                ),
            ],
        },
        &[],
    );
    let url = server.url.clone();
    // One run: `--wait` names the same idempotency key, so it follows the
    // run `--stream` made (the CLI runs once).
    let submit = |how: &str| {
        let args = [
            "submit",
            "--server",
            &url,
            how,
            "--idempotency-key",
            "flood",
        ];
        agentgate(home, &[&args[..], &["-p", "claude", "go"]].concat())
    };

    let streamed = submit("--stream");
    eprintln!("submit --stream: {:?}", streamed.elapsed);
    assert_eq!(streamed.code, Some(0), "{}", streamed.stderr);
    check_stream(&streamed.stdout, "submit --stream");
    let run_id = streamed
        .stdout
        .lines()
        .next()
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .and_then(|e| e["run_id"].as_str().map(str::to_owned))
        .unwrap();

    let tailed = agentgate(home, &["tail", "--server", &url, &run_id]);
    eprintln!("tail: {:?}", tailed.elapsed);
    assert_eq!(tailed.code, Some(0), "{}", tailed.stderr);
    check_stream(&tailed.stdout, "tail");

    let waited = submit("--wait");
    eprintln!("submit --wait: {:?}", waited.elapsed);
    assert_eq!(waited.code, Some(0), "{}", waited.stderr);
    let envelope: Value = serde_json::from_str(&waited.stdout).unwrap();
    assert_eq!(envelope["response"], "done after the flood");
    assert_eq!(envelope["run_id"], run_id.as_str(), "the same run");

    // The stored log: within its bound, but for the line that crossed it,
    // the note and the result.
    let log = home.join("data/runs").join(&run_id).join("events.jsonl");
    let size = std::fs::metadata(&log).unwrap().len();
    assert!(
        size < 48 * 1024 * 1024 + MAX_LINE_BYTES as u64,
        "events.jsonl holds {size} bytes"
    );
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}
