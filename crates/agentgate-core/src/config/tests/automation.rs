//! `schedules:` and `watch:`.

use std::path::PathBuf;
use std::time::Duration;

use super::super::*;
use super::{invalid, parse};

const BOTH: &str = r#"version: 1
schedules:
  nightly:
    cron: "30 2 * * mon-fri"
    time_zone: Europe/Paris
    overlap: queue
    catch_up: 6h
    request:
      prompt: review the day's changes
      providers: [claude, codex]
      timeout: 10m
      priority: 5
      env: {N: "3"}
  hourly:
    cron: "@hourly"
    request: {prompt: hi}
watch:
  inbox:
    folder: inbox
    patterns: ["*.md", "note-?.txt"]
    poll: 500ms
    settle: 2s
    request:
      agents: [reviewer]
      cwd: /srv/repo
"#;

#[test]
fn schedules_and_watched_folders_are_read_and_checked() {
    let c = parse(BOTH).unwrap();
    assert_eq!(c.schedules.len(), 2);
    let s = &c.schedules[0];
    assert_eq!(s.name, "nightly");
    assert_eq!(s.cron.as_str(), "30 2 * * mon-fri");
    assert_eq!(s.time_zone_name, "Europe/Paris");
    assert_eq!(s.time_zone.iana_name(), Some("Europe/Paris"));
    assert_eq!(s.overlap, Overlap::Queue);
    assert_eq!(s.catch_up, Duration::from_secs(6 * 3600));
    assert_eq!(
        s.request.prompt.as_deref(),
        Some("review the day's changes")
    );
    assert_eq!(s.request.providers, ["claude", "codex"]);
    assert_eq!(s.request.timeout.as_deref(), Some("10m"));
    assert_eq!(s.request.priority, 5);
    assert_eq!(s.request.env.get("N").map(String::as_str), Some("3"));

    let h = &c.schedules[1];
    assert_eq!(h.time_zone_name, "UTC");
    assert_eq!(h.overlap, Overlap::Skip);
    assert_eq!(h.catch_up, Duration::ZERO);

    let w = &c.watches[0];
    assert_eq!(w.name, "inbox");
    assert_eq!(w.folder, PathBuf::from("/cfg/inbox"));
    assert_eq!(w.patterns, ["*.md", "note-?.txt"]);
    assert_eq!(w.poll, Duration::from_millis(500));
    assert_eq!(w.settle, Duration::from_secs(2));
    assert_eq!(w.request.agents, ["reviewer"]);
    assert_eq!(w.request.prompt, None);
}

#[test]
fn watch_defaults() {
    let c = parse("version: 1\nwatch:\n  w:\n    folder: /in\n    request: {}\n").unwrap();
    let w = &c.watches[0];
    assert_eq!(w.folder, PathBuf::from("/in"));
    assert!(w.patterns.is_empty());
    assert_eq!(w.poll, DEFAULT_POLL);
    assert_eq!(w.settle, DEFAULT_SETTLE);
}

#[test]
fn errors_name_the_entry_the_field_and_the_line() {
    let head = "version: 1\nschedules:\n  s:\n";
    let watch = "version: 1\nwatch:\n  w:\n    folder: /in\n";
    for (text, want_line, want) in [
        (
            format!("{head}    cron: \"0 0 * *\"\n    request: {{prompt: x}}\n"),
            4,
            "schedule `s`: cron: 4 fields",
        ),
        (
            format!("{head}    cron: \"0 0 * * * *\"\n    request: {{prompt: x}}\n"),
            4,
            "seconds are not supported",
        ),
        (
            format!(
                "{head}    cron: \"@daily\"\n    time_zone: Mars/Olympus\n    request: {{prompt: x}}\n"
            ),
            5,
            "time_zone: `Mars/Olympus` is not an IANA time zone name",
        ),
        (
            format!("{head}    cron: \"@daily\"\n    overlap: wait\n    request: {{prompt: x}}\n"),
            5,
            "wait",
        ),
        (
            format!(
                "{head}    cron: \"@daily\"\n    request:\n      prompt: x\n      timeout: soon\n"
            ),
            7,
            "schedule `s`: request.timeout:",
        ),
        (
            format!("{head}    cron: \"@daily\"\n    request:\n      providers: [claude]\n"),
            6,
            "request.prompt: a prompt or a task is needed",
        ),
        (
            format!(
                "{head}    cron: \"@daily\"\n    request:\n      prompt: x\n      colour: red\n"
            ),
            7,
            "request.colour",
        ),
        (
            format!(
                "{head}    cron: \"@daily\"\n    request:\n      prompt: x\n      idempotency_key: k\n"
            ),
            7,
            "request.idempotency_key: set by the server",
        ),
        (
            format!("{head}    cron: \"@daily\"\n    catch_up: 800h\n    request: {{prompt: x}}\n"),
            5,
            "catch_up: at most 31 days",
        ),
        (
            format!("{head}    cron: \"@daily\"\n    request: {{prompt: x}}\n    extra: 1\n"),
            6,
            "extra",
        ),
        (
            format!("{watch}    request: {{prompt: x}}\n"),
            5,
            "watch `w`: request.prompt: each file of the folder is the task",
        ),
        (
            format!("{watch}    request: {{binary: mycli}}\n"),
            5,
            "request.binary: `mycli` is not an absolute path",
        ),
        (
            format!("{watch}    patterns: [\"a/*.md\"]\n    request: {{}}\n"),
            5,
            "patterns: `a/*.md` is not a file name glob",
        ),
        (
            format!("{watch}    poll: 10ms\n    request: {{}}\n"),
            5,
            "poll: at least 100ms",
        ),
        (
            "version: 1\nwatch:\n  \"bad name\":\n    folder: /in\n    request: {}\n".to_owned(),
            3,
            "not a watch name",
        ),
    ] {
        let (line, e) = invalid(&text);
        assert_eq!(line, Some(want_line), "{text}: {e}");
        assert!(e.contains(want), "{text}: {e}");
    }
}

/// A request's relative paths are relative to the config file's folder,
/// as every path of the file is (the API itself takes absolute ones).
#[test]
fn relative_paths_of_a_request_are_relative_to_the_file() {
    let text = r#"version: 1
schedules:
  nightly:
    cron: "@daily"
    request:
      task: {prompt: review, files: [notes/a.md, /abs/b.md]}
      cwd: .
      add_dirs: [../shared]
      context: [docs/x.md]
      system_file: prompts/system.md
      output_schema: ./schema.json
      binary: bin/mycli
watch:
  inbox:
    folder: inbox
    request: {agent_file: agents/reviewer.md, context_dir: ctx}
"#;
    let c = parse(text).unwrap();
    let r = &c.schedules[0].request;
    assert_eq!(r.cwd, Some(PathBuf::from("/cfg")));
    assert_eq!(r.add_dirs, [PathBuf::from("/cfg/../shared")]);
    assert_eq!(r.context, [PathBuf::from("/cfg/docs/x.md")]);
    assert_eq!(r.system_file, Some(PathBuf::from("/cfg/prompts/system.md")));
    assert_eq!(r.output_schema, Some(PathBuf::from("/cfg/schema.json")));
    assert_eq!(r.binary, Some(PathBuf::from("/cfg/bin/mycli")));
    assert_eq!(
        r.task.as_ref().unwrap()["files"],
        serde_json::json!(["/cfg/notes/a.md", "/abs/b.md"])
    );
    let w = &c.watches[0];
    assert_eq!(w.folder, PathBuf::from("/cfg/inbox"));
    assert_eq!(
        w.request.agent_file,
        Some(PathBuf::from("/cfg/agents/reviewer.md"))
    );
    assert_eq!(w.request.context_dir, Some(PathBuf::from("/cfg/ctx")));
}

#[test]
fn store_names_a_postgres_url_or_a_sqlite_file_beside_the_config() {
    use agentgate_store::StoreLocation;
    let pg = parse("version: 1\nstore: postgres://ag@db.internal/ag?host=/run/pg\n").unwrap();
    assert_eq!(
        pg.store,
        Some(StoreLocation::Postgres(
            "postgres://ag@db.internal/ag?host=/run/pg".into()
        ))
    );
    let file = parse("version: 1\nstore: data/runs.db\n").unwrap();
    assert_eq!(
        file.store,
        Some(StoreLocation::Sqlite(PathBuf::from("/cfg/data/runs.db")))
    );
    assert_eq!(parse("version: 1\n").unwrap().store, None);
    let (line, message) = invalid("version: 1\nstore: mysql://ag:pw@db/ag\n");
    assert_eq!(line, Some(2));
    assert!(
        message.contains("postgres://") && !message.contains(":pw@"),
        "{message}"
    );
}

#[test]
fn approvals_are_read_in_order_with_their_lines() {
    use crate::approvals::{Decision, ToolClass};
    let cfg = super::parse(
        "version: 1\napprovals:\n  default: ask\n  ask_timeout: 90s\n  rules:\n    - {class: read, decision: allow}\n    - {class: write, path: \"src/**\", decision: allow}\n    - {command: \"git status*\", decision: allow}\n",
    )
    .unwrap();
    let a = &cfg.approvals;
    assert_eq!(a.default, Decision::Ask);
    assert_eq!(a.ask_timeout, std::time::Duration::from_secs(90));
    assert_eq!(a.rules.len(), 3);
    assert_eq!(a.rules[0].class, Some(ToolClass::Read));
    assert_eq!(a.rules[1].path.as_deref(), Some("src/**"));
    assert_eq!(a.rules[2].decision, Decision::Allow);
    assert_eq!(a.rules[1].label, "approvals.rules[1] (line 7)");
    // Without the section every request is denied.
    let none = super::parse("version: 1\n").unwrap();
    assert_eq!(none.approvals.default, Decision::Deny);
    assert!(none.approvals.rules.is_empty());
}

#[test]
fn bad_approvals_are_located() {
    for (text, line, says) in [
        (
            "version: 1\napprovals:\n  rules:\n    - {decision: allow}\n",
            4,
            "at least one of class, tool, path, command",
        ),
        (
            "version: 1\napprovals:\n  rules:\n    - {class: files, decision: allow}\n",
            4,
            "files",
        ),
        (
            "version: 1\napprovals:\n  rules:\n    - {class: read, decision: maybe}\n",
            4,
            "maybe",
        ),
        ("version: 1\napprovals:\n  ask_timeout: 0s\n", 3, "above 0"),
        ("version: 1\napprovals:\n  mode: ask\n", 3, "mode"),
    ] {
        let (at, message) = super::invalid(text);
        assert_eq!(at, Some(line), "{text}: {message}");
        assert!(message.contains(says), "{text}: {message}");
    }
}
