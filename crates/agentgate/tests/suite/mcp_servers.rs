//! MCP servers given to an agent CLI for one run, end to end: the REAL
//! Claude Code, Codex, Gemini CLI, Qwen Code and opencode against
//! `agentgate fake-llm`, planned and run through the library with one MCP
//! server, `mcp-probe` (crates/agentgate-fixtures). fake-llm's script
//! makes the model call the probe's `lookup` tool by the name the CLI
//! declared; the test checks that the CLI started the probe and called it
//! with the argument, that the tool's result reached the model, that the
//! run's events and `tool_activity` show the call, that nothing was
//! written into the CLI's home configuration, and that no probe outlives
//! the run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_core::Config;
use agentgate_core::TaskInput;
use agentgate_core::{EventSink, RunOptions, run};
use agentgate_core::{PermissionMode, Settings};
use agentgate_core::{RunFlags, plan};
use agentgate_fakellm::clients::Cli;
use agentgate_protocol::Event;
use agentgate_providers::McpServer;
use serde_json::Value;

use super::support::{Client, FakeServer};

/// The name the CLI gives the tool `tool` of the MCP server `server` in
/// its model requests (read off the tools each CLI declares to fake-llm;
/// Codex's namespace tool as fake-llm names it).
pub(super) fn declared_name(cli: Cli, server: &str, tool: &str) -> String {
    match cli {
        Cli::Claude | Cli::Codex | Cli::Qwen => format!("mcp__{server}__{tool}"),
        Cli::Gemini => format!("mcp_{server}_{tool}"),
        Cli::Opencode => format!("{server}_{tool}"),
    }
}

/// A fake-llm script: call `tool` with the key `k42`, then answer `answer`
/// once the tool's result is back.
pub(super) fn call_then_answer(tool: &str, answer: &str) -> String {
    format!(
        r#"turns:
  - match: {{tool_result: false}}
    text: "Looking it up."
    tool_call: {{name: "{tool}", args: {{key: "k42"}}}}
  - match: {{tool_result: true}}
    text: "{answer}"
"#
    )
}

/// The model the run asks for. Codex 0.169 defers MCP tools behind its
/// `tool_search` tool when the model's metadata says it can search tools,
/// which fake-llm does not speak; for a model Codex does not know, it
/// declares each server's tools in a namespace tool (`mcp__probe`), which
/// fake-llm names `mcp__probe__lookup`. opencode takes its model from the
/// recipe's config.
pub(super) fn model(cli: Cli, configured: &str) -> Option<String> {
    match cli {
        Cli::Codex => Some("agentgate-fake-model".into()),
        Cli::Opencode => None,
        _ => Some(configured.into()),
    }
}

/// The `mcp-probe` fixture, built next to the agentgate binary.
fn probe_program() -> PathBuf {
    let probe = Path::new(env!("CARGO_BIN_EXE_agentgate")).with_file_name("mcp-probe");
    assert!(
        probe.is_file(),
        "{} is missing: run `cargo build -p agentgate-fixtures --bin mcp-probe`",
        probe.display()
    );
    probe
}

#[derive(Default)]
struct Events(Vec<Value>);

impl EventSink for Events {
    fn emit(&mut self, event: &Event) {
        self.0.push(serde_json::to_value(event).unwrap());
    }
}

/// Every file under `dir`, with its content (opencode's package cache
/// aside).
pub(super) fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                // opencode's shared package cache is not configuration.
                if p.file_name().is_some_and(|n| n == "node_modules") {
                    continue;
                }
                stack.push(p);
            } else if kind.is_file() {
                out.push((p.clone(), std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

/// The files of `home` from `before` are still there, and no file there
/// holds any of `needles` (what only the run's server configuration says).
pub(super) fn home_untouched(
    cli: Cli,
    home: &Path,
    before: &[(PathBuf, Vec<u8>)],
    needles: &[&str],
) {
    for (path, _) in before {
        assert!(path.exists(), "{cli}: {} was removed", path.display());
    }
    for (path, content) in snapshot(home) {
        let text = String::from_utf8_lossy(&content);
        assert!(
            !needles.iter().any(|n| text.contains(n)),
            "{cli}: {} names the run's MCP server",
            path.display()
        );
    }
}

/// Whether the process `pid` runs (exists and is not a zombie).
pub(super) fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        })
}

pub fn mcp_tool_call(cli: Cli) {
    let tool = declared_name(cli, "probe", "lookup");
    let server = FakeServer::start(&call_then_answer(&tool, "The lookup answered."));
    let client = Client::new(cli, &server);
    let setup = &client.setup;
    let logs = tempfile::tempdir().unwrap();
    let probe_log = logs.path().join("probe.jsonl");
    let mut probe = McpServer::new("probe", probe_program(), &[]);
    probe
        .env
        .push(("MCP_PROBE_LOG".into(), probe_log.display().to_string()));

    let before = snapshot(&setup.home);
    let flags = RunFlags {
        providers: vec![cli.binary().to_owned()],
        model: model(cli, &setup.model),
        settings: Settings {
            binary: Some(client.program.clone()),
            permission_mode: Some(PermissionMode::Bypass),
            cwd: Some(setup.workdir.clone()),
            timeout: Some(Duration::from_secs(180)),
            env: setup.env.clone(),
            ..Settings::default()
        },
        mcp_servers: vec![probe],
        ..RunFlags::default()
    };
    let task = TaskInput {
        prompt: "Please look up the key k42.".into(),
        ..TaskInput::default()
    };
    let mut plan = plan(&Config::default(), &flags, task).unwrap();
    // Nothing of this process's environment (its HOME) reaches the CLI.
    for step in &mut plan.steps {
        step.request.env_clear = true;
    }
    let options = RunOptions {
        keeper: Some(PathBuf::from(env!("CARGO_BIN_EXE_agentgate"))),
        ..RunOptions::default()
    };
    let mut events = Events::default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (_cancel, cancel_rx) = tokio::sync::mpsc::channel(1);
    let outcome = runtime.block_on(run(&plan, &options, None, &mut events, cancel_rx));
    let env = serde_json::to_value(&outcome.envelope).unwrap();
    let probe_lines: Vec<Value> = std::fs::read_to_string(&probe_log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let context = format!(
        "{cli}: envelope {env:#}\nprobe log {probe_lines:#?}\nrequests {:#?}",
        server.turn_requests()
    );
    assert_eq!(outcome.exit_code, 0, "{context}");
    assert_eq!(env["response"], "The lookup answered.", "{context}");

    // The CLI started the probe and called its tool with the argument.
    let calls: Vec<&Value> = probe_lines
        .iter()
        .filter(|l| l["event"] == "call")
        .collect();
    assert_eq!(calls.len(), 1, "{context}");
    assert_eq!(
        (&calls[0]["tool"], &calls[0]["key"]),
        (&Value::from("lookup"), &Value::from("k42")),
        "{context}"
    );

    // The CLI told the model of the tool under that name: declared it, or
    // named it among the deferred tools its tool search loads (Claude Code
    // 2.1.3xx declares only `ToolSearch` and lists MCP tools by name in a
    // reminder of the first message); Qwen Code lists MCP tools only
    // through its `tool_search` tool, yet runs a call by the name. And the
    // tool's result reached the model.
    let turns = server.turn_requests();
    let declared = turns[0]["tools"]
        .as_array()
        .is_some_and(|t| t.iter().any(|n| *n == *tool));
    let named = turns[0]["messages"].as_array().is_some_and(|m| {
        m.iter().any(|m| {
            m["text"]
                .as_str()
                .is_some_and(|t| t.contains(tool.as_str()))
        })
    });
    assert!(
        cli == Cli::Qwen || declared || named,
        "{cli} did not declare {tool} nor name it: {:#}",
        turns[0]
    );
    let outputs: Vec<&str> = turns
        .iter()
        .flat_map(|t| t["messages"].as_array().into_iter().flatten())
        .filter_map(|m| m["tool_output"].as_str())
        .collect();
    assert!(
        outputs.iter().any(|o| o.contains("value-of-k42")),
        "{cli}: the tool's result did not reach the model: {outputs:#?}"
    );

    // The run's events and its envelope show the call.
    let uses: Vec<&Value> = events
        .0
        .iter()
        .filter(|e| {
            e["type"] == "tool_use" && e["name"].as_str().is_some_and(|n| n.contains("lookup"))
        })
        .collect();
    assert_eq!(uses.len(), 1, "{cli}: events {:#?}", events.0);
    let id = &uses[0]["id"];
    assert!(
        events
            .0
            .iter()
            .any(|e| e["type"] == "tool_result" && &e["id"] == id),
        "{cli}: no tool_result for {id}: {:#?}",
        events.0
    );
    let activity = &env["metadata"]["tool_activity"];
    assert!(
        activity["call_count"].as_u64() >= Some(1),
        "{cli}: {activity:#}"
    );
    assert!(
        activity["tool_names"].as_array().is_some_and(|n| n
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.ends_with("lookup")))),
        "{cli}: {activity:#}"
    );

    // Nothing was written into the CLI's home about the server: its files
    // from before are still there (only the CLI's own bookkeeping
    // changed), and no file there names the probe.
    home_untouched(cli, &setup.home, &before, &["mcp-probe", "MCP_PROBE_LOG"]);

    // No probe outlives the run.
    let pids: Vec<u32> = probe_lines
        .iter()
        .filter(|l| l["event"] == "start")
        .filter_map(|l| l["pid"].as_u64())
        .map(|p| p as u32)
        .collect();
    assert!(!pids.is_empty(), "{context}");
    for pid in pids {
        assert!(!alive(pid), "{cli}: the probe {pid} outlived the run");
    }
}

#[test]
fn claude_calls_an_mcp_tool_of_the_run() {
    mcp_tool_call(Cli::Claude);
}

#[test]
fn qwen_calls_an_mcp_tool_of_the_run() {
    mcp_tool_call(Cli::Qwen);
}

#[test]
fn codex_calls_an_mcp_tool_of_the_run() {
    mcp_tool_call(Cli::Codex);
}

#[test]
fn opencode_calls_an_mcp_tool_of_the_run() {
    mcp_tool_call(Cli::Opencode);
}

#[test]
fn gemini_calls_an_mcp_tool_of_the_run() {
    mcp_tool_call(Cli::Gemini);
}
