//! Secrets stay secret: a stand-in Claude Code echoes every secret the run
//! gives it (an inherited variable, `--env`, the config's `env`, a value of
//! the config's `redact:`, an `--extra-arg --api-key=...`) into its JSON
//! messages, into lines that are not JSON, JSON-escaped, and into stderr.
//! None of them may reach anything agentgate prints or stores: every file
//! of the store (events.jsonl, stderr.log, the SQLite database with its
//! WAL, audit.log), the envelope, `runs show`, the audit line, the dry
//! run. The store is private to the user even under `umask 000` and in a
//! data folder that was made 0755.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::run_e2e::last_json;
use super::support::{Run, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(60);

const INHERITED: (&str, &str) = ("OPENAI_API_KEY", "sk-inherited-0123456789");
const FLAG_ENV: (&str, &str) = ("MY_TOKEN", "tok/flag/0123456789");
const CONFIG_ENV: (&str, &str) = ("CFG_SECRET", "cfg-secret-0123456789");
const LISTED: &str = "db-pass \"quoted\" 42";
const EXTRA_ARG: &str = "sekrit-extra-0123456789";

/// Every secret, as it is and as a JSON string holds it.
fn secrets() -> Vec<String> {
    let mut out = Vec::new();
    for s in [INHERITED.1, FLAG_ENV.1, CONFIG_ENV.1, LISTED, EXTRA_ARG] {
        out.push(s.to_owned());
        let escaped = serde_json::to_string(s).unwrap();
        out.push(escaped.trim_matches('"').to_owned());
    }
    out.push(FLAG_ENV.1.replace('/', "\\/"));
    out
}

/// A Claude Code stand-in: its `stream-json` records, with the secrets of
/// its environment and argv in them.
const FAKE_CLAUDE: &str = r#"#!/bin/bash
esc() { local s=${1//\\/\\\\}; s=${s//\"/\\\"}; printf '%s' "${s//\//\\/}"; }
echo '{"type":"system","subtype":"init","session_id":"sess-fake","model":"fake-model"}'
printf '{"type":"assistant","message":{"content":[{"type":"text","text":"inherited %s, flag %s"}]}}\n' "$OPENAI_API_KEY" "$(esc "$MY_TOKEN")"
printf '{"type":"assistant","message":{"content":[{"type":"text","text":"config %s, listed %s"}]}}\n' "$CFG_SECRET" "$(esc "$LISTED")"
printf '{"type":"who-knows","raw":"%s %s"}\n' "$(esc "$LISTED")" "$(esc "$MY_TOKEN")"
echo "not json: $OPENAI_API_KEY $CFG_SECRET $LISTED argv: $*"
echo "stderr: $OPENAI_API_KEY $MY_TOKEN $(esc "$MY_TOKEN") $CFG_SECRET $LISTED $(esc "$LISTED") $*" >&2
printf '{"type":"result","subtype":"success","is_error":false,"result":"answer %s %s","session_id":"sess-fake","num_turns":1}\n' "$OPENAI_API_KEY" "$(esc "$LISTED")"
"#;

struct Setup {
    dir: tempfile::TempDir,
    script: PathBuf,
    config: PathBuf,
    home: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("claude");
        std::fs::write(&script, FAKE_CLAUDE).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = dir.path().join("agentgate.yaml");
        std::fs::write(
            &config,
            format!(
                "version: 1\nproviders:\n  claude:\n    env: {{{}: \"{}\", LISTED: {}}}\nredact: [{}]\n",
                CONFIG_ENV.0,
                CONFIG_ENV.1,
                serde_json::to_string(LISTED).unwrap(),
                serde_json::to_string(LISTED).unwrap(),
            ),
        )
        .unwrap();
        // A data folder someone made open to everyone.
        let home = dir.path().join("store");
        std::fs::create_dir(&home).unwrap();
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).unwrap();
        Setup {
            dir,
            script,
            config,
            home,
        }
    }

    /// `agentgate ARGS` under `umask 000`, with the inherited secret.
    fn agentgate(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg("umask 000; exec \"$0\" \"$@\"")
            .arg(AGENTGATE)
            .arg("--config")
            .arg(&self.config)
            .args(args)
            .env(INHERITED.0, INHERITED.1)
            .env("AGENTGATE_HOME", &self.home)
            .env_remove("AGENTGATE_LOG")
            .current_dir(self.dir.path())
            .stdin(Stdio::null());
        run_bounded(cmd, LIMIT)
    }
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for s in secrets() {
        assert!(
            !text.contains(&s),
            "{what} holds the secret {s:?}:\n{}",
            text.chars().take(4000).collect::<String>()
        );
    }
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn no_secret_reaches_anything_agentgate_prints_or_stores() {
    let s = Setup::new();
    let flag_env = format!("{}={}", FLAG_ENV.0, FLAG_ENV.1);
    let api_key = format!("--api-key={EXTRA_ARG}");
    let run = s.agentgate(&[
        "run",
        "--provider",
        "claude",
        "--compact",
        "--binary",
        s.script.to_str().unwrap(),
        "--env",
        &flag_env,
        "--extra-arg",
        &api_key,
        "say the secrets",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());

    // The envelope and the audit line.
    assert_clean("agentgate's stdout (the envelope)", run.stdout.as_bytes());
    assert_clean("agentgate's stderr (the audit line)", run.stderr.as_bytes());
    let env = last_json(&run.stdout).unwrap();
    assert_eq!(
        env["response"], "answer [redacted:OPENAI_API_KEY] [redacted]",
        "{env:#}"
    );
    let tail = env["stderr_tail"].as_str().unwrap();
    for marker in [
        "[redacted:OPENAI_API_KEY]",
        "[redacted:MY_TOKEN]",
        "[redacted:CFG_SECRET]",
        "[redacted]",
        "--api-key=[redacted:--api-key]",
    ] {
        assert!(tail.contains(marker), "{marker} not in {tail}");
    }
    assert!(
        run.stderr.lines().any(|l| l.starts_with("agentgate run=")),
        "{}",
        run.stderr
    );
    let run_id = env["run_id"].as_str().unwrap();

    // Every file of the store, the database and its WAL included; each
    // private to the user, though agentgate ran under umask 000 and the
    // data folder was 0755.
    let mut files = Vec::new();
    files_under(&s.home, &mut files);
    let mut stored = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert_clean(&f.display().to_string(), &bytes);
        assert_eq!(mode(f), 0o600, "{}", f.display());
        stored.extend_from_slice(&bytes);
    }
    let names: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(&s.home).unwrap().display().to_string())
        .collect();
    for expected in [
        "agentgate.db".to_owned(),
        "agentgate.db-wal".to_owned(),
        "audit.log".to_owned(),
        format!("runs/{run_id}/events.jsonl"),
        format!("runs/{run_id}/stderr.log"),
    ] {
        assert!(names.contains(&expected), "{expected} not in {names:?}");
    }
    let stored = String::from_utf8_lossy(&stored);
    assert!(stored.contains("[redacted:MY_TOKEN]"), "no marker stored");
    for dir in [
        s.home.clone(),
        s.home.join("runs"),
        s.home.join("runs").join(run_id),
    ] {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    }
    let events =
        std::fs::read_to_string(s.home.join("runs").join(run_id).join("events.jsonl")).unwrap();
    let raw: Vec<Value> = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "raw")
        .collect();
    assert!(
        raw.iter()
            .any(|e| e["line"].as_str().unwrap().starts_with(
                "not json: [redacted:OPENAI_API_KEY] [redacted:CFG_SECRET] [redacted]"
            )),
        "{raw:#?}"
    );

    // `runs show`, with and without the events.
    for extra in [&[][..], &["--events"][..]] {
        let mut args = vec!["runs", "show", run_id];
        args.extend_from_slice(extra);
        let shown = s.agentgate(&args);
        assert_eq!(shown.code, Some(0), "{}", shown.all_output());
        assert_clean("runs show", shown.all_output().as_bytes());
        assert!(
            shown.stdout.contains("[redacted:OPENAI_API_KEY]"),
            "{}",
            shown.stdout
        );
    }
}

#[test]
fn the_dry_run_hides_secret_flags_and_values() {
    let s = Setup::new();
    let flag_env = format!("{}={}", FLAG_ENV.0, FLAG_ENV.1);
    let api_key = format!("--api-key={EXTRA_ARG}");
    let run = s.agentgate(&[
        "run",
        "--provider",
        "claude",
        "--dry-run",
        "--binary",
        s.script.to_str().unwrap(),
        "--env",
        &flag_env,
        "--extra-arg",
        &api_key,
        "--extra-arg",
        "--auth-token",
        "--extra-arg",
        "short",
        "--extra-arg",
        "--max-tokens",
        "--extra-arg",
        "1000",
        &format!("a prompt holding {}", INHERITED.1),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert_clean("the dry run", run.all_output().as_bytes());
    assert!(!run.stdout.contains("short"), "{}", run.stdout);
    let plan: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let argv: Vec<&str> = plan["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert!(argv.contains(&"--api-key=[redacted:--api-key]"), "{argv:?}");
    assert!(
        argv.windows(2)
            .any(|w| w == ["--auth-token", "[redacted:--auth-token]"]),
        "{argv:?}"
    );
    assert!(
        argv.windows(2).any(|w| w == ["--max-tokens", "1000"]),
        "{argv:?}"
    );
    assert_eq!(plan["env"]["MY_TOKEN"], "[redacted:MY_TOKEN]");
    assert_eq!(plan["env"]["CFG_SECRET"], "[redacted:CFG_SECRET]");
}
