//! Issue 31: `copy_in` gives a tool only what it could be asked to read:
//! a path that resolves (`..`, absolute, symbolic links) outside the
//! request's folder and the tool's own read paths is refused, and so is
//! agentgate's own data folder, before anything runs or is recorded.

use agentgate_protocol::ToolStatus;
use serde_json::Value;

use crate::suite::support::run_bounded;
use crate::suite::tool_support::{LIMIT, Project};
use crate::suite::workflow_support::{envelope, step, workflow};

/// A tool that prints what it was given.
const SHOW: &str = "#!/bin/bash\ncat \"$WORKSPACE\"/* 2>&1; echo\n\
    echo '{\"v\":1,\"type\":\"result\",\"status\":\"ok\"}'\n";

/// `agentgate tool --copy-in PATH show` in the project: the run.
fn copy(p: &Project, path: &str) -> crate::suite::support::Run {
    run_bounded(p.command(&["tool", "--copy-in", path, "show"]), LIMIT)
}

fn runs_recorded(p: &Project) -> usize {
    let listed = run_bounded(p.command(&["runs", "--json"]), LIMIT);
    listed.stdout.lines().count()
}

#[test]
fn a_path_that_leads_out_of_the_folder_is_refused_and_nothing_runs() {
    let outer = tempfile::tempdir().unwrap();
    let secret = outer.path().join("secret.txt");
    std::fs::write(&secret, "outside-3e8f").unwrap();
    let p = Project::new();
    p.tool("show", "", SHOW);
    std::fs::write(p.root().join("notes.txt"), "inside-ok").unwrap();
    std::os::unix::fs::symlink(&secret, p.root().join("link.txt")).unwrap();
    std::fs::create_dir_all(p.root().join("bundle")).unwrap();
    std::fs::write(p.root().join("bundle/a.txt"), "a").unwrap();
    std::os::unix::fs::symlink(&secret, p.root().join("bundle/b.txt")).unwrap();
    std::fs::write(p.home().join("token"), "token-5a0c").unwrap();

    let relative_escape = format!(
        "../{}/secret.txt",
        outer.path().file_name().unwrap().to_string_lossy()
    );
    assert_eq!(
        std::fs::canonicalize(p.root().join(&relative_escape)).unwrap(),
        std::fs::canonicalize(&secret).unwrap(),
        "the relative path leads to the secret"
    );
    for (given, says) in [
        (
            relative_escape.clone(),
            "is outside what the tool may be given",
        ),
        (
            secret.display().to_string(),
            "is outside what the tool may be given",
        ),
        (
            "link.txt".to_owned(),
            "is outside what the tool may be given",
        ),
        ("bundle".to_owned(), "the link"),
        ("home/token".to_owned(), "inside agentgate's own"),
        ("home".to_owned(), "inside agentgate's own"),
    ] {
        let run = copy(&p, &given);
        assert_eq!(run.code, Some(2), "{given}: {}", run.all_output());
        assert!(
            run.stderr.contains("copy_in refused") && run.stderr.contains(says),
            "{given}: {}",
            run.stderr
        );
        assert!(!run.stdout.contains("outside-3e8f"), "{given}");
        assert!(!run.stdout.contains("token-5a0c"), "{given}");
    }
    assert_eq!(runs_recorded(&p), 0, "a refused copy_in records no run");

    let run = copy(&p, "notes.txt");
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let envelope: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(envelope["status"], "ok");
    assert_eq!(runs_recorded(&p), 1);
}

/// A path in the tool's own read paths may be given, wherever it is.
#[test]
fn a_path_the_tool_may_read_itself_is_given() {
    let outer = tempfile::tempdir().unwrap();
    let data = std::fs::canonicalize(outer.path()).unwrap().join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::write(data.join("in.csv"), "a,b\n").unwrap();
    let p = Project::new();
    p.tool(
        "show",
        &format!(
            "permissions:\n  filesystem:\n    read: [\"{}/**\"]\n",
            data.display()
        ),
        SHOW,
    );
    let (run, envelope) = p.run_tool(&[
        "--copy-in",
        &data.join("in.csv").display().to_string(),
        "show",
    ]);
    assert_eq!(envelope.status, ToolStatus::Ok, "{}", run.all_output());
}

/// A workflow's `copy_in` comes from its input: `..` and absolute paths
/// out of the workflow's folder fail the step, naming the path.
#[test]
fn a_workflow_step_cannot_copy_a_file_from_outside_its_folder() {
    let p = Project::new();
    p.tool("show", "", SHOW);
    std::fs::write(
        p.root().join("give.yaml"),
        "version: 1\nname: give\nsteps:\n  - id: take\n    tool: show\n    copy_in: [\"${input.file}\"]\n",
    )
    .unwrap();
    std::fs::write(p.root().join("mine.txt"), "mine").unwrap();
    for file in ["/etc/passwd", "../../../../../../etc/passwd"] {
        let input = format!(r#"{{"file": "{file}"}}"#);
        let run = workflow(&p, &["run", "give.yaml", "--input", &input], &[]);
        let env = envelope(&run);
        assert_eq!(run.code, Some(1), "{file}: {env:#}");
        let take = step(&env, "take");
        assert_eq!(take["status"], "failed", "{file}: {env:#}");
        let reason = take["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("copy_in refused") && reason.contains("/etc/passwd"),
            "{file}: {reason}"
        );
        assert!(!run.stdout.contains("root:x:0"), "{file}");
    }
    let run = workflow(
        &p,
        &["run", "give.yaml", "--input", r#"{"file": "mine.txt"}"#],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
}
