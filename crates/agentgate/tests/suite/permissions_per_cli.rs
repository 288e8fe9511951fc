//! An agent's vendor-neutral permissions file, applied by each REAL CLI
//! against `agentgate fake-llm`: the script calls the CLI's shell tool by
//! its own name (a denied tool may not be declared to the model at all,
//! so the alias `shell` would not resolve), with `--yolo`, and the CLI
//! must refuse it: the marker file the command would write is never
//! there, and the model's next turn gets the refusal as the tool's output.
//! Without the mapping every one of these CLIs runs the call (checked by
//! taking the mapping out: the marker appears).

use std::process::Stdio;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

/// The `status` notices of a `--stream` run's output.
fn notices(run: &Run) -> Vec<String> {
    run.stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "status" && e["kind"] == "notice")
        .map(|e| e["detail"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The scripted call of `cli`'s shell tool that writes `perm-marker.txt`,
/// its arguments in the shape that tool takes.
fn shell_call(cli: Cli) -> String {
    let command = "echo written > perm-marker.txt";
    match cli {
        Cli::Codex => format!(r#"{{name: exec_command, args: {{cmd: "{command}"}}}}"#),
        Cli::Opencode => format!(
            r#"{{name: bash, args: {{command: "{command}", description: "write the marker"}}}}"#
        ),
        _ => format!(r#"{{name: {}, command: "{command}"}}"#, cli.shell_tool()),
    }
}

/// Runs agent `gardener` of `cli` with the permissions file `permissions`
/// (YAML) and `--yolo`, the model scripted to call the shell tool once.
/// Returns the run and whether the marker was written.
fn run_with_permissions(cli: Cli, permissions: &str) -> (Run, bool) {
    let server = FakeServer::start(&format!(
        r#"turns:
  - match: {{tool_result: false}}
    text: "Writing it."
    tool_call: {call}
  - match: {{tool_result: true}}
    text: "The tool said: {{{{tool_output}}}}"
"#,
        call = shell_call(cli)
    ));
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    let cfg_dir = tempfile::tempdir().unwrap();
    std::fs::write(cfg_dir.path().join("permissions.yml"), permissions).unwrap();
    let config = cfg_dir.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\nagents:\n  gardener:\n    provider: {}\n    permissions_file: permissions.yml\n",
            cli.binary()
        ),
    )
    .unwrap();
    let input = store.path().join("task.json");
    std::fs::write(&input, r#"{"prompt": "PERM-7002: write the marker"}"#).unwrap();
    let mut cmd = client.agentgate();
    cmd.arg("--config")
        .arg(&config)
        .args(["run", "--agent", "gardener", "--yolo", "--stream"])
        .arg("--binary")
        .arg(&client.program)
        .args(["--model", &client.setup.model])
        .env("AGENTGATE_HOME", store.path())
        .stdin(Stdio::from(std::fs::File::open(&input).unwrap()));
    let run = run_bounded(cmd, LIMIT);
    let written = client.setup.workdir.join("perm-marker.txt").exists();
    (run, written)
}

fn assert_refused(cli: Cli, run: &Run, written: bool) {
    assert!(
        !written,
        "{cli} ran the denied shell call:\n{}",
        run.all_output()
    );
    // The call was made and answered (with a refusal): the model's second
    // turn is the run's answer.
    let env = last_json(&run.stdout)
        .map(|e| e["envelope"].clone())
        .unwrap_or_default();
    assert!(
        env["response"]
            .as_str()
            .is_some_and(|r| r.starts_with("The tool said:")),
        "{cli}: {env:#}\n{}",
        run.all_output()
    );
    assert_eq!(run.code, Some(0), "{cli}: {}", run.all_output());
    let said = notices(run);
    assert!(
        said.iter().all(|n| !n.contains("not applied")),
        "{cli}: {said:?}"
    );
}

/// `deny: [shell]` is enforced by every CLI agentgate maps it onto:
/// Claude Code (`--settings`), Gemini CLI (`tools.exclude` in its settings
/// copy), Qwen Code (`permissions.deny` in its system settings copy),
/// opencode (`bash: deny` in `OPENCODE_PERMISSION`, over the test
/// config's `bash: allow` and `--auto`) and Codex
/// (`features.shell_tool=false`).
#[test]
fn a_denied_shell_is_refused_by_every_cli() {
    for cli in [
        Cli::Claude,
        Cli::Gemini,
        Cli::Qwen,
        Cli::Opencode,
        Cli::Codex,
    ] {
        let (run, written) = run_with_permissions(cli, "deny: [shell]\nallow: [read]\n");
        assert_refused(cli, &run, written);
        if cli == Cli::Codex {
            // Codex has no allow list: the `allow` is said not applied.
            let said = notices(&run);
            assert!(
                said.iter()
                    .any(|n| n.contains("not fully applied") && n.contains("allow read")),
                "{said:?}"
            );
        }
    }
}

/// `deny: [write]` on Codex, which has no per-tool list, is its read-only
/// sandbox with approval `never`, even under `--yolo` (whose bypass flag is
/// dropped): the shell tool still runs, but the command's write fails.
#[test]
fn codex_with_writes_denied_runs_read_only_even_with_yolo() {
    let (run, written) = run_with_permissions(Cli::Codex, "deny: [write]\n");
    assert_refused(Cli::Codex, &run, written);
}
