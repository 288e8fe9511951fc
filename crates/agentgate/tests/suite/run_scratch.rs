//! The folder a run without the store keeps the CLI's files in (a
//! system-prompt file): made in the temp dir only when a provider writes a
//! file, and removed after the run.
//!
//! The fake CLIs are bash scripts that list the temp dir while they run.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::support::run_bounded;

const LIMIT: Duration = Duration::from_secs(60);

/// A fake CLI, its own temp dir and home, and where it lists the temp dir.
struct Fake {
    dir: tempfile::TempDir,
    tmp: tempfile::TempDir,
    script: PathBuf,
    listing: PathBuf,
}

impl Fake {
    /// A script named `name` that lists `$TMPDIR` (and the files under it)
    /// into a file, then runs `body`.
    fn new(name: &str, body: &str) -> Fake {
        let dir = tempfile::tempdir().unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let script = dir.path().join(name);
        let listing = dir.path().join("listing");
        let text = format!(
            "#!/bin/bash\n(cd \"$TMPDIR\" && find . -mindepth 1 | sort) > '{}'\n{body}\n",
            listing.display()
        );
        std::fs::write(&script, text).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        Fake {
            dir,
            tmp,
            script,
            listing,
        }
    }

    /// `agentgate run --no-store --provider <provider> --binary <script>`,
    /// with `TMPDIR` set to the fake's own empty temp dir.
    fn run(&self, provider: &str, extra: &[&str]) -> Value {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.args(["run", "--no-store", "--compact", "--provider", provider])
            .arg("--binary")
            .arg(&self.script)
            .args(extra)
            .arg("hello")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("TMPDIR", self.tmp.path())
            .env("GEMINI_API_KEY", "not-a-key")
            .current_dir(self.dir.path())
            .stdin(std::process::Stdio::null());
        let run = run_bounded(cmd, LIMIT);
        let envelope: Value = run
            .stdout
            .lines()
            .rev()
            .find_map(|l| serde_json::from_str(l).ok())
            .unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()));
        assert_eq!(envelope["error"], Value::Null, "{}", run.all_output());
        envelope
    }

    /// What the temp dir held while the CLI ran.
    fn listed(&self) -> Vec<String> {
        std::fs::read_to_string(&self.listing)
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// What the temp dir holds now.
    fn left(&self) -> Vec<PathBuf> {
        entries(self.tmp.path())
    }
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

#[test]
fn a_run_whose_cli_needs_no_file_makes_no_folder() {
    let fake = Fake::new(
        "claude",
        r#"echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"s1","num_turns":1}'"#,
    );
    let envelope = fake.run("claude", &[]);
    assert_eq!(envelope["response"], "done");
    assert_eq!(
        fake.listed(),
        Vec::<String>::new(),
        "the temp dir during the run"
    );
    assert_eq!(
        fake.left(),
        Vec::<PathBuf>::new(),
        "the temp dir after the run"
    );
}

#[test]
fn a_system_prompt_file_is_written_for_the_cli_and_removed_after() {
    // Gemini takes `--system` as a file that GEMINI_SYSTEM_MD names; the
    // fake answers with the file's text and where it was.
    let fake = Fake::new(
        "gemini",
        r#"text=$(cat "$GEMINI_SYSTEM_MD") || exit 3
echo '{"type":"init","session_id":"s1","model":"m"}'
printf '{"type":"message","role":"assistant","content":"%s @ %s","delta":true}\n' "$text" "${GEMINI_SYSTEM_MD#"$TMPDIR"/}"
echo '{"type":"result","status":"success","stats":{"total_tokens":3,"input_tokens":2,"output_tokens":1}}'"#,
    );
    let envelope = fake.run("gemini", &["--system", "Cite MARKER-5521."]);
    let response = envelope["response"].as_str().unwrap();
    let (text, file) = response.split_once(" @ ").unwrap();
    assert_eq!(text, "Cite MARKER-5521.");
    let (folder, name) = file.split_once('/').unwrap();
    assert!(folder.starts_with("agentgate-run-"), "{file}");
    assert_eq!(name, "gemini-system.md");
    assert_eq!(
        fake.listed(),
        [format!("./{folder}"), format!("./{file}")],
        "the temp dir during the run"
    );
    assert_eq!(
        fake.left(),
        Vec::<PathBuf>::new(),
        "the temp dir after the run"
    );
}
