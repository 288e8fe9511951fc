//! `agentgate fake-llm` as a command: the URL line, the bound, `--check`
//! (of a script, a recording, TLS files), the flags that exclude or need
//! each other, and `--help`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::support::run_bounded;

fn agentgate() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agentgate"))
}

#[test]
fn prints_its_url_first_and_exits_by_itself_after_max_seconds() {
    let start = Instant::now();
    let mut child = agentgate()
        .args(["fake-llm", "--max-seconds", "1"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line.trim();
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .expect(url)
        .parse()
        .unwrap();
    assert_ne!(port, 0);
    // It answers while it runs.
    let probe = std::net::TcpStream::connect(("127.0.0.1", port));
    assert!(probe.is_ok(), "nothing listens on {url}");
    drop(probe);
    // And ends by itself (bounded wait: it must be gone well before 20 s).
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("fake-llm --max-seconds 1 was still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
}

#[test]
fn check_accepts_a_good_script_and_names_the_bad_key_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.yaml");
    std::fs::write(&good, "turns:\n  - text: hi\n  - error: {kind: auth}\n").unwrap();
    let mut cmd = agentgate();
    cmd.args(["fake-llm", "--check", "--script"]).arg(&good);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert_eq!(run.stdout.trim(), "script ok: 2 turn(s)");

    let bad = dir.path().join("bad.yaml");
    std::fs::write(&bad, "turns:\n  - text: hi\n    tool_cal: {name: shell}\n").unwrap();
    let mut cmd = agentgate();
    cmd.args(["fake-llm", "--check", "--script"]).arg(&bad);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(run.stderr.contains("tool_cal"), "{}", run.stderr);
    assert!(run.stderr.contains("line 3"), "{}", run.stderr);
    assert!(run.stderr.contains("bad.yaml"), "{}", run.stderr);

    let mut cmd = agentgate();
    cmd.args([
        "fake-llm",
        "--check",
        "--script",
        "/nonexistent/script.yaml",
    ]);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("failed to read script /nonexistent/script.yaml"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_recording_and_tls_files_are_checked_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"v":1,"call":1,"api":"openai_chat","method":"POST","path":"/v1/chat/completions","query":null,"request":{"headers":{},"body":"{}"},"response":{"status":200,"headers":{"content-type":"application/json"},"body":"{}"}}"#;
    let recording = dir.path().join("model-calls.jsonl");
    std::fs::write(&recording, format!("{good}\n")).unwrap();
    let mut cmd = agentgate();
    cmd.args(["fake-llm", "--check", "--replay"])
        .arg(&recording);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert_eq!(run.stdout.trim(), "recording ok: 1 call(s)");

    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, format!("{good}\n{{\"v\":1}}\n")).unwrap();
    let mut cmd = agentgate();
    cmd.args(["fake-llm", "--replay"]).arg(&bad);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(run.stderr.contains("bad.jsonl: line 2:"), "{}", run.stderr);
    assert!(
        run.stdout.is_empty(),
        "no URL for a bad recording: {}",
        run.stdout
    );

    // --replay and --script exclude each other; --tls-cert needs --tls-key.
    let script = dir.path().join("s.yaml");
    std::fs::write(&script, "turns: []\n").unwrap();
    let mut cmd = agentgate();
    cmd.args(["fake-llm", "--check", "--replay"])
        .arg(&recording)
        .arg("--script")
        .arg(&script);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(run.stderr.contains("cannot be used with"), "{}", run.stderr);
    let not_pem = dir.path().join("cert.pem");
    std::fs::write(&not_pem, "not a certificate\n").unwrap();
    let mut cmd = agentgate();
    cmd.args(["fake-llm", "--check", "--tls-cert"])
        .arg(&not_pem);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(run.stderr.contains("--tls-key"), "{}", run.stderr);

    // A certificate file without a certificate is named at start.
    let mut cmd = agentgate();
    cmd.args(["fake-llm", "--tls-cert"])
        .arg(&not_pem)
        .arg("--tls-key")
        .arg(&not_pem);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr.contains(&format!(
            "the TLS certificate {} has no usable PEM certificate",
            not_pem.display()
        )),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

#[test]
fn help_documents_the_script_format() {
    let mut cmd = agentgate();
    cmd.args(["fake-llm", "--help"]);
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(0));
    for needle in [
        "SCRIPT FORMAT",
        "tool_call",
        "on_unmatched",
        "rate_limit",
        "hang",
        "--max-seconds",
        "REQUEST LOG",
        "--replay",
        "--tls-cert",
        "cache_write_1h",
        "headers:",
        "REPLAY",
    ] {
        assert!(run.stdout.contains(needle), "--help lacks {needle}");
    }
}

/// The README's first command: `agentgate demo` runs every installed CLI
/// through one tool turn and prints the table.
#[test]
fn demo_runs_each_cli_through_a_tool_turn() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = agentgate();
    cmd.args(["demo", "--dir"])
        .arg(dir.path())
        .current_dir(super::support::workspace_root());
    let run = run_bounded(cmd, Duration::from_secs(300));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    for provider in ["claude", "codex", "gemini", "qwen", "opencode"] {
        let row = run
            .stdout
            .lines()
            .find(|l| l.starts_with(provider))
            .unwrap_or_else(|| panic!("no row for {provider}:\n{}", run.stdout));
        assert!(row.contains("Created greeting.txt."), "{row}");
        assert!(row.contains("greeting.txt"), "{row}");
        assert!(!row.contains("not installed"), "{row}");
    }
    assert!(dir.path().join("agentgate.db").is_file());
    assert!(run.stdout.contains("agentgate runs"));
}
