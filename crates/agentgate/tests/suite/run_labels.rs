//! `agentgate run --label ... --log-dir` with the REAL Claude Code against
//! `agentgate fake-llm`: the labels in the envelope and the store (`runs
//! --label`, `runs show`), and the run's log file (its name from the
//! labels, its header, its answer with the run's secrets redacted, mode
//! 600); a log folder that cannot be written is a warning, not a lost run.

use std::os::unix::fs::PermissionsExt;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::{Gate, ok};
use super::support::{FakeServer, agentgate_ok};

const SECRET: &str = "sekret-value-0123456789";

#[test]
fn a_labelled_run_writes_its_log_file_and_is_found_by_label() {
    let server = FakeServer::start(&format!(
        "turns:\n  - text: \"The ticket is done; the key was {SECRET}.\"\n    repeat: true\n"
    ));
    let gate = Gate::new(Cli::Claude, &server);
    let logs = tempfile::tempdir().unwrap();
    let log_dir = logs.path().join("agent_logs");
    let (run, env) = gate.run(
        &[
            "--label",
            "ticket=T-42",
            "--label",
            "workflow=review",
            "--env",
            &format!("MY_API_TOKEN={SECRET}"),
            "--log-dir",
            log_dir.to_str().unwrap(),
            "--log-name",
            "{label:ticket}_{label:workflow}_{label:missing}_{ts}.log",
        ],
        "Finish the ticket.",
    );
    ok(Cli::Claude, &run, &env);
    assert_eq!(
        env["labels"],
        serde_json::json!({"ticket": "T-42", "workflow": "review"})
    );
    let run_id = env["run_id"].as_str().unwrap();

    // One file, named from the labels (the missing one dropped) and the
    // start time, private to the user.
    let files: Vec<_> = std::fs::read_dir(&log_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.starts_with("T-42_review_2"), "{name}");
    assert!(name.ends_with("Z.log") && !name.contains("__"), "{name}");
    let mode = std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        text.starts_with(&format!(
            "# agentgate run {run_id}\n# labels: ticket=T-42 workflow=review\n# providers: claude\n# started: "
        )),
        "{text}"
    );
    assert!(text.contains("# --- stderr ---\n"), "{text}");
    assert!(
        text.contains("# --- answer (exit 0) ---\nThe ticket is done; the key was [redacted"),
        "{text}"
    );
    assert!(
        !text.contains(SECRET),
        "the secret leaked into the log:\n{text}"
    );

    // The store: found by its labels, `runs show` prints them.
    let home = gate.store_home();
    let listed = agentgate_ok(home, &["runs", "--json", "--label", "ticket=T-42"]);
    let rows: Vec<Value> = listed
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{}", listed.stdout);
    assert_eq!(rows[0]["record"]["run_id"], run_id);
    let none = agentgate_ok(home, &["runs", "--json", "--label", "ticket=T-43"]);
    assert!(none.stdout.trim().is_empty(), "{}", none.stdout);
    let shown = agentgate_ok(home, &["runs", "show", run_id]);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(
        shown["run"]["summary"]["record"]["labels"]["workflow"],
        "review"
    );

    // A folder that cannot be written: a warning, and the run succeeds.
    let blocked = logs.path().join("a-file");
    std::fs::write(&blocked, "").unwrap();
    let (run, env) = gate.run(
        &[
            "--label",
            "ticket=T-44",
            "--log-dir",
            blocked.join("logs").to_str().unwrap(),
        ],
        "Again.",
    );
    ok(Cli::Claude, &run, &env);
    assert!(
        run.stderr.contains("cannot make the log folder")
            && run.stderr.contains("the run goes on without its log file"),
        "{}",
        run.all_output()
    );
    // A bad label is a usage error before anything runs.
    let (bad, _) = (
        super::support::run_bounded(
            gate.command(&["--label", "a/b=1"], "x"),
            std::time::Duration::from_secs(30),
        ),
        (),
    );
    assert_eq!(bad.code, Some(2), "{}", bad.all_output());
    assert!(bad.stderr.contains("not a key"), "{}", bad.stderr);
}

/// `agentgate workflow run --label`: the workflow run is recorded with its
/// labels, and `agentgate runs --label` finds it (its step's run, which
/// carries them too since issue 34, is checked below, in
/// `a_labelled_workflow_labels_its_envelope_and_every_steps_run`).
#[test]
fn a_labelled_workflow_run_is_found_by_label() {
    use super::workflow_support::{envelope, project, runs, workflow};
    let p = project();
    std::fs::write(
        p.root().join("pub.yaml"),
        "version: 1\nname: pub\nsteps:\n  - id: publish\n    tool: publisher\n",
    )
    .unwrap();
    let run = workflow(
        &p,
        &[
            "run",
            "pub.yaml",
            "--label",
            "ticket=T-5",
            "--label",
            "workflow=pub",
        ],
        &[],
    );
    let env = envelope(&run);
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let id = env["run_id"].as_str().unwrap();
    let labelled: Vec<Value> = runs(&p)
        .into_iter()
        .filter(|r| r["labels"]["ticket"] == "T-5" && r["parent_run_id"].is_null())
        .collect();
    assert_eq!(labelled.len(), 1, "{labelled:?}");
    assert_eq!(labelled[0]["run_id"], id);
    assert_eq!(labelled[0]["kind"], "workflow");
    assert_eq!(labelled[0]["labels"]["workflow"], "pub");
}

/// A stand-in `claude` for a workflow's agent step: its answer, at once.
const STEP_CLAUDE: &str = r#"#!/bin/sh
cat > /dev/null
printf '%s\n' '{"type":"system","subtype":"init","session_id":"s-step","model":"m"}'
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":"checked","session_id":"s-step"}'
"#;

/// `agentgate workflow run --label`: the workflow's envelope and every
/// step's run (a tool's and an agent's) carry the labels; `runs --label`
/// finds the steps too, and its table shows them in its LABELS column.
#[test]
fn a_labelled_workflow_labels_its_envelope_and_every_steps_run() {
    use super::workflow_support::{envelope, project, runs, workflow};
    let p = project();
    let claude = p.root().join("claude");
    std::fs::write(&claude, STEP_CLAUDE).unwrap();
    std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        p.root().join("both.yaml"),
        format!(
            "version: 1\nname: both\nsteps:\n  - id: publish\n    tool: publisher\n  \
             - id: check\n    agent:\n      provider: claude\n      binary: {}\n      \
             prompt: check it\n      labels: {{step: check, ticket: T-step}}\n",
            claude.display()
        ),
    )
    .unwrap();
    let run = workflow(
        &p,
        &[
            "run",
            "both.yaml",
            "--label",
            "ticket=T-6",
            "--label",
            "topic=two words",
        ],
        &[],
    );
    let env = envelope(&run);
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(
        env["labels"],
        serde_json::json!({"ticket": "T-6", "topic": "two words"})
    );
    let id = env["run_id"].as_str().unwrap();
    let all = runs(&p);
    let steps: Vec<&Value> = all.iter().filter(|r| r["parent_run_id"] == id).collect();
    assert_eq!(steps.len(), 2, "{all:?}");
    for step in &steps {
        // The step's own labels win over the workflow's, key by key.
        let want = if step["kind"] == "tool" {
            serde_json::json!({"ticket": "T-6", "topic": "two words"})
        } else {
            serde_json::json!({"step": "check", "ticket": "T-step", "topic": "two words"})
        };
        assert_eq!(step["labels"], want, "{step}");
    }
    // Found by label: the workflow and both steps.
    let listed = p.command(&["runs", "--json", "--label", "topic=two words"]);
    let listed = super::support::run_bounded(listed, super::workflow_support::LIMIT);
    assert_eq!(listed.stdout.lines().count(), 3, "{}", listed.all_output());
    // The table's LABELS column.
    let table = p.command(&["runs", "--label", "topic=two words"]);
    let table = super::support::run_bounded(table, super::workflow_support::LIMIT);
    let mut lines = table.stdout.lines();
    assert!(lines.next().unwrap().contains("LABELS"), "{}", table.stdout);
    let row = table
        .stdout
        .lines()
        .find(|l| l.starts_with(id))
        .unwrap_or_else(|| panic!("{}", table.stdout));
    assert!(row.contains("ticket=T-6,topic=two words"), "{row}");
}
