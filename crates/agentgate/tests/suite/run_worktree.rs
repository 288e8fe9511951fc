//! `--workspace worktree`: each run works in a fresh git worktree of the
//! repository holding its cwd, on branch `agentgate/<run_id>`; a clean
//! worktree is removed with its branch, a changed one is kept and named in
//! the envelope, the main working tree is never touched.
//!
//! The CLI is a stand-in Claude Code (a bash script given with
//! `--binary`). It writes what it saw (its folder and `tracked.txt`) into
//! the test's folder, and, as `--env` asks, edits files, waits until a
//! number of runs have started (so that runs overlap), sleeps, or fails.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::support::{Run, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(60);

/// `$AG_OUT` is the test's folder: the CLI leaves `started-PID` there, and
/// `seen-PID` (its folder, and the first line of `tracked.txt` before any
/// edit) once it made its edits. `EDIT=1` changes `tracked.txt` and adds
/// `new-$$.txt` in the CLI's folder; `BARRIER=N` waits (bounded) until N
/// runs have started; `SLEEP=1` sleeps past any `--timeout`; `FAIL=1`
/// reports an error.
const STAND_IN: &str = r#"#!/bin/bash
cat > /dev/null
out="$AG_OUT"
touch "$out/started-$$"
if [ -n "$BARRIER" ]; then
  for _ in $(seq 1 300); do
    [ "$(ls "$out" | grep -c '^started-')" -ge "$BARRIER" ] && break
    sleep 0.1
  done
fi
before="$(head -n 1 tracked.txt 2>/dev/null || echo "(no tracked.txt)")"
if [ -n "$EDIT" ]; then
  echo "edited by $$" > tracked.txt
  echo "new" > "new-$$.txt"
fi
# Written once the edits are made, whole (renamed into place).
printf '%s\n%s\n' "$(pwd -P)" "$before" > "$out/.seen-$$"
mv "$out/.seen-$$" "$out/seen-$$"
[ -n "$SLEEP" ] && sleep 30
id="sess-$$"
echo '{"type":"system","subtype":"init","session_id":"'"$id"'","model":"fake-model"}'
if [ -n "$FAIL" ]; then
  echo '{"type":"result","subtype":"error_during_execution","is_error":true,"result":"the agent broke","session_id":"'"$id"'"}'
  exit 1
fi
echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"'"$id"'","num_turns":1}'
"#;

struct Setup {
    /// The repository: `tracked.txt` and `sub/tracked.txt`, committed.
    repo: tempfile::TempDir,
    home: tempfile::TempDir,
    out: tempfile::TempDir,
    script: PathBuf,
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

impl Setup {
    fn new() -> Setup {
        let repo = tempfile::tempdir().unwrap();
        let dir = repo.path();
        git(dir, &["init", "-q"]);
        git(dir, &["config", "user.name", "Test"]);
        git(dir, &["config", "user.email", "test@example.com"]);
        git(dir, &["config", "commit.gpgsign", "false"]);
        std::fs::write(dir.join("tracked.txt"), "one\n").unwrap();
        std::fs::create_dir(dir.join("sub")).unwrap();
        std::fs::write(dir.join("sub/tracked.txt"), "inner\n").unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-q", "-m", "initial"]);
        let tools = tempfile::tempdir().unwrap();
        let script = tools.path().join("claude");
        std::fs::write(&script, STAND_IN).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = tools;
        Setup {
            repo,
            home: tempfile::tempdir().unwrap(),
            out,
            script,
        }
    }

    fn top(&self) -> PathBuf {
        self.repo.path().canonicalize().unwrap()
    }

    fn command(&self, cwd: &Path, extra: &[&str]) -> Command {
        let mut cmd = Command::new(AGENTGATE);
        cmd.args(["run", "--provider", "claude", "--compact", "--binary"])
            .arg(&self.script)
            .arg("--cwd")
            .arg(cwd)
            .args(extra)
            .arg("change the file")
            .env("AGENTGATE_HOME", self.home.path())
            .env("AG_OUT", self.out.path())
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .stdin(Stdio::null());
        cmd
    }

    fn run(&self, cwd: &Path, extra: &[&str]) -> (Run, Value) {
        let run = run_bounded(self.command(cwd, extra), LIMIT);
        let envelope = envelope_of(&run);
        (run, envelope)
    }

    /// What each CLI saw: `(its folder, the first line of tracked.txt)`.
    fn seen(&self) -> Vec<(String, String)> {
        let mut seen = Vec::new();
        for entry in std::fs::read_dir(self.out.path()).unwrap() {
            let path = entry.unwrap().path();
            if path
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("seen-")
            {
                let text = std::fs::read_to_string(&path).unwrap();
                let mut lines = text.lines();
                seen.push((
                    lines.next().unwrap_or_default().to_owned(),
                    lines.next().unwrap_or_default().to_owned(),
                ));
            }
        }
        seen.sort();
        seen
    }

    fn agentgate_branches(&self) -> Vec<String> {
        git(
            self.repo.path(),
            &[
                "branch",
                "--list",
                "--format=%(refname:short)",
                "agentgate/*",
            ],
        )
        .lines()
        .map(str::to_owned)
        .collect()
    }

    fn worktree_count(&self) -> usize {
        git(self.repo.path(), &["worktree", "list", "--porcelain"])
            .lines()
            .filter(|l| l.starts_with("worktree "))
            .count()
    }

    /// The main tree as the test made it: nothing changed, nothing new.
    fn assert_main_tree_untouched(&self) {
        assert_eq!(git(self.repo.path(), &["status", "--porcelain"]), "");
        assert_eq!(
            std::fs::read_to_string(self.repo.path().join("tracked.txt")).unwrap(),
            "one\n"
        );
    }
}

fn envelope_of(run: &Run) -> Value {
    run.stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()))
}

fn changed(ws: &Value) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = ws["changed_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_owned(),
                f["change"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn two_concurrent_runs_each_edit_their_own_worktree() {
    let s = Setup::new();
    let top = s.top();
    let extra = [
        "--workspace",
        "worktree",
        "--env",
        "EDIT=1",
        "--env",
        "BARRIER=2",
    ];
    let a = s.command(&top, &extra);
    let b = s.command(&top, &extra);
    let first = std::thread::spawn(move || run_bounded(a, LIMIT));
    let second = run_bounded(b, LIMIT);
    let first = first.join().unwrap();

    let mut worktrees = Vec::new();
    for run in [&first, &second] {
        assert_eq!(run.code, Some(0), "{}", run.all_output());
        let envelope = envelope_of(run);
        let ws = &envelope["workspace"];
        let run_id = envelope["run_id"].as_str().unwrap();
        assert_eq!(ws["mode"], "worktree");
        assert_eq!(ws["kept"], true, "{ws:#}");
        assert_eq!(ws["branch"], format!("agentgate/{run_id}"));
        assert_eq!(ws["repository"], top.display().to_string());
        assert_eq!(
            ws["base_commit"].as_str().unwrap(),
            git(&top, &["rev-parse", "HEAD"]).trim()
        );
        let path = PathBuf::from(ws["path"].as_str().unwrap());
        assert!(path.starts_with(s.home.path()), "{}", path.display());
        assert_eq!(ws["cwd"], ws["path"]);
        // Its own edit, and only its own new file.
        let files = changed(ws);
        assert_eq!(files.len(), 2, "{files:?}");
        assert_eq!(files[1], ("tracked.txt".to_owned(), "modified".to_owned()));
        assert!(files[0].0.starts_with("new-") && files[0].1 == "added");
        let edit = std::fs::read_to_string(path.join("tracked.txt")).unwrap();
        let pid = files[0]
            .0
            .trim_start_matches("new-")
            .trim_end_matches(".txt");
        assert_eq!(edit, format!("edited by {pid}\n"));
        worktrees.push(path.canonicalize().unwrap().display().to_string());
    }
    assert_ne!(worktrees[0], worktrees[1]);
    // Both ran at once (the barrier), each in its worktree, and neither
    // saw the other's edit.
    let seen = s.seen();
    let mut expect: Vec<(String, String)> = worktrees
        .iter()
        .map(|w| (w.clone(), "one".to_owned()))
        .collect();
    expect.sort();
    assert_eq!(seen, expect);
    s.assert_main_tree_untouched();
    assert_eq!(s.worktree_count(), 3);
    assert_eq!(s.agentgate_branches().len(), 2);
}

#[test]
fn a_run_that_changes_nothing_leaves_no_worktree_and_no_branch() {
    let s = Setup::new();
    let (run, envelope) = s.run(&s.top(), &["--workspace", "worktree"]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let ws = &envelope["workspace"];
    assert_eq!(ws["kept"], false, "{ws:#}");
    assert_eq!(ws["changed_files"], serde_json::json!([]));
    // The CLI ran in the worktree, which is gone.
    let path = ws["path"].as_str().unwrap();
    assert_eq!(s.seen()[0].0, path);
    assert!(!Path::new(path).exists());
    assert_eq!(s.worktree_count(), 1);
    assert!(s.agentgate_branches().is_empty());
    s.assert_main_tree_untouched();
}

#[test]
fn without_the_flag_the_run_works_in_the_shared_tree() {
    let s = Setup::new();
    let (run, envelope) = s.run(&s.top(), &["--env", "EDIT=1"]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert_eq!(envelope["workspace"], Value::Null);
    assert_eq!(s.seen()[0].0, s.top().display().to_string());
    assert!(
        std::fs::read_to_string(s.top().join("tracked.txt"))
            .unwrap()
            .starts_with("edited by")
    );
    assert_eq!(s.worktree_count(), 1);
}

#[test]
fn a_subfolder_cwd_maps_to_the_same_subfolder_of_the_worktree() {
    let s = Setup::new();
    let sub = s.top().join("sub");
    let (run, envelope) = s.run(&sub, &["--workspace", "worktree", "--env", "EDIT=1"]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let ws = &envelope["workspace"];
    let path = PathBuf::from(ws["path"].as_str().unwrap());
    assert_eq!(ws["cwd"], path.join("sub").display().to_string());
    let seen = s.seen();
    assert_eq!(seen[0].0, path.join("sub").display().to_string());
    assert_eq!(seen[0].1, "inner");
    let files = changed(ws);
    assert_eq!(
        files[1],
        ("sub/tracked.txt".to_owned(), "modified".to_owned())
    );
    assert!(files[0].0.starts_with("sub/new-"), "{files:?}");
    s.assert_main_tree_untouched();
}

#[test]
fn failed_and_timed_out_runs_keep_what_they_changed() {
    let s = Setup::new();
    let (run, envelope) = s.run(
        &s.top(),
        &[
            "--workspace",
            "worktree",
            "--env",
            "EDIT=1",
            "--env",
            "FAIL=1",
        ],
    );
    assert_ne!(run.code, Some(0), "{}", run.all_output());
    assert!(envelope["error_type"].is_string(), "{envelope:#}");
    let ws = &envelope["workspace"];
    assert_eq!(ws["kept"], true, "{ws:#}");
    assert!(
        Path::new(ws["path"].as_str().unwrap())
            .join("tracked.txt")
            .exists()
    );

    let (run, envelope) = s.run(
        &s.top(),
        &[
            "--workspace",
            "worktree",
            "--env",
            "EDIT=1",
            "--env",
            "SLEEP=1",
            "--timeout",
            "2s",
        ],
    );
    assert_eq!(run.code, Some(124), "{}", run.all_output());
    assert_eq!(envelope["error_type"], "timeout");
    let ws = &envelope["workspace"];
    assert_eq!(ws["kept"], true, "{ws:#}");
    assert_eq!(changed(ws).len(), 2, "{ws:#}");
    assert_eq!(s.agentgate_branches().len(), 2);
    s.assert_main_tree_untouched();
}

#[test]
fn a_cancelled_run_keeps_what_it_changed() {
    let s = Setup::new();
    let mut cmd = s.command(
        &s.top(),
        &[
            "--workspace",
            "worktree",
            "--env",
            "EDIT=1",
            "--env",
            "SLEEP=1",
        ],
    );
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    // The CLI has edited its worktree once it says what it saw.
    let waited = Instant::now();
    while s.seen().is_empty() && waited.elapsed() < LIMIT {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!s.seen().is_empty(), "the CLI never started");
    let status = Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = rx.recv_timeout(LIMIT).unwrap().unwrap();
    // Whatever is left of the run's group goes.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let envelope: Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no envelope: {stdout}"));
    assert_eq!(out.status.code(), Some(130), "{envelope:#}");
    assert_eq!(envelope["error_type"], "cancelled");
    let ws = &envelope["workspace"];
    assert_eq!(ws["kept"], true, "{ws:#}");
    assert_eq!(changed(ws).len(), 2, "{ws:#}");
    assert!(Path::new(ws["path"].as_str().unwrap()).exists());
    s.assert_main_tree_untouched();
}

#[test]
fn a_cwd_outside_git_is_refused_before_the_cli_starts() {
    let s = Setup::new();
    let plain = tempfile::tempdir().unwrap();
    let (run, envelope) = s.run(plain.path(), &["--workspace", "worktree"]);
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert_eq!(envelope["error_type"], "invalid_input");
    let message = envelope["error"].as_str().unwrap();
    assert!(
        message.contains("is not inside a git repository"),
        "{message}"
    );
    assert_eq!(envelope["workspace"], Value::Null);
    assert!(s.seen().is_empty(), "the CLI ran");
}

#[test]
fn without_git_on_path_the_run_is_refused_clearly() {
    let s = Setup::new();
    let empty = tempfile::tempdir().unwrap();
    let mut cmd = s.command(&s.top(), &["--workspace", "worktree"]);
    cmd.env("PATH", empty.path());
    let run = run_bounded(cmd, LIMIT);
    let envelope = envelope_of(&run);
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert_eq!(envelope["error_type"], "invalid_input");
    let message = envelope["error"].as_str().unwrap();
    assert!(message.contains("`git` was not found on PATH"), "{message}");
    assert!(s.seen().is_empty(), "the CLI ran");
}

#[test]
fn without_the_store_the_worktree_goes_to_the_temp_folder() {
    let s = Setup::new();
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = s.command(
        &s.top(),
        &["--workspace", "worktree", "--no-store", "--env", "EDIT=1"],
    );
    cmd.env("TMPDIR", tmp.path());
    let run = run_bounded(cmd, LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let envelope = envelope_of(&run);
    let ws = &envelope["workspace"];
    let run_id = envelope["run_id"].as_str().unwrap();
    assert_eq!(
        ws["path"],
        tmp.path()
            .join(format!("agentgate-worktree-{run_id}"))
            .display()
            .to_string()
    );
    assert_eq!(ws["kept"], true, "{ws:#}");
    assert_eq!(changed(ws).len(), 2, "{ws:#}");
    s.assert_main_tree_untouched();
}

#[test]
fn an_agent_of_the_config_asks_for_a_worktree() {
    let s = Setup::new();
    let config = s.home.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\nagents:\n  isolated:\n    provider: claude\n    binary: {}\n    workspace: worktree\n",
            s.script.display()
        ),
    )
    .unwrap();
    let mut cmd = Command::new(AGENTGATE);
    cmd.args(["run", "--agent", "isolated", "--compact", "--cwd"])
        .arg(s.top())
        .args(["--env", "EDIT=1", "do it"])
        .env("AGENTGATE_HOME", s.home.path())
        .env("AGENTGATE_CONFIG", &config)
        .env("AG_OUT", s.out.path())
        .stdin(std::process::Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let envelope = envelope_of(&run);
    assert_eq!(envelope["workspace"]["kept"], true, "{envelope:#}");
    s.assert_main_tree_untouched();

    // The flag wins over the agent.
    let mut cmd = Command::new(AGENTGATE);
    cmd.args([
        "run",
        "--agent",
        "isolated",
        "--dry-run",
        "--workspace",
        "shared",
        "--cwd",
    ])
    .arg(s.top())
    .arg("do it")
    .env("AGENTGATE_HOME", s.home.path())
    .env("AGENTGATE_CONFIG", &config);
    let report = envelope_of(&run_bounded(cmd, LIMIT));
    assert_eq!(report["workspace"], "shared");
}

#[test]
fn the_dry_run_shows_the_workspace_and_what_it_would_check_out() {
    let s = Setup::new();
    let (run, report) = s.run(
        &s.top().join("sub"),
        &["--workspace", "worktree", "--dry-run"],
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert_eq!(report["workspace"], "worktree");
    assert_eq!(
        report["worktree"]["repository"],
        s.top().display().to_string()
    );
    assert_eq!(report["worktree"]["subfolder"], "sub");
    assert_eq!(
        report["worktree"]["base_commit"].as_str().unwrap(),
        git(&s.top(), &["rev-parse", "HEAD"]).trim()
    );
    assert_eq!(s.worktree_count(), 1);

    let plain = tempfile::tempdir().unwrap();
    let (run, report) = s.run(plain.path(), &["--workspace", "worktree", "--dry-run"]);
    assert_ne!(run.code, Some(0), "{}", run.all_output());
    let message = report["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("is not inside a git repository"),
        "{message}"
    );

    let (_, report) = s.run(&s.top(), &["--dry-run"]);
    assert_eq!(report["workspace"], "shared");
    assert_eq!(report["worktree"], Value::Null);
}
