//! Registry tools for agent runs, end to end: `agentgate run --tools`
//! (and an agent's `tools:` in the config) with the REAL Claude Code,
//! Codex and Gemini CLI against `agentgate fake-llm`, scripted to call the
//! registry tool `lookup` and then to answer with what the tool returned
//! (`{{tool_output}}`). The tool runs through agentgate's MCP server under
//! the runner; the test checks the tool's run in the store (kind `tool`,
//! its parent the agent's run, its messages among its events), that the
//! final answer carries the tool's result and its run id, that the agent
//! run's events and `tool_activity` count the call, that the CLI's home
//! configuration was not touched, and that nothing outlives the run; and
//! that `agentgate serve` gives a submitted run the tools it names.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::mcp_servers::{alive, call_then_answer, declared_name, home_untouched, model, snapshot};
use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};
use super::tool_support::Project;

const LIMIT: Duration = Duration::from_secs(180);

/// The tool: `lookup --key K` answers `value-of-K`, after a progress
/// message.
const LOOKUP: &str = "#!/bin/bash\n\
echo '{\"v\":1,\"type\":\"progress\",\"pct\":50,\"msg\":\"looking\"}'\n\
echo '{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"value\":\"value-of-'\"$2\"'\"}}'\n";

/// A project whose config names its registry, with the tool `lookup` and
/// an agent `looker` of `cli` that has it in its `tools:`.
fn project(cli: Cli) -> Project {
    let p = Project::new();
    p.tool(
        "lookup",
        "description: Looks a key up.\ninputs:\n  - {name: key, type: string, required: true, description: the key}\n",
        LOOKUP,
    );
    std::fs::write(
        p.root().join("agentgate.yaml"),
        format!(
            "version: 1\ntools:\n  registry: tools/registry\nagents:\n  looker:\n    provider: {}\n    tools: [lookup]\n",
            cli.binary()
        ),
    )
    .unwrap();
    p
}

/// `agentgate run` of the real CLI in its own working directory (away from
/// the project: the registry is found through the config), recording into
/// the project's store.
fn command(p: &Project, client: &Client, how: &[&str]) -> Command {
    let cli = client.setup.cli;
    let mut cmd = client.agentgate();
    cmd.arg("run")
        .args(how)
        .args(["--yolo", "--compact", "--binary"])
        .arg(&client.program);
    if let Some(m) = model(cli, &client.setup.model) {
        cmd.args(["--model", &m]);
    }
    cmd.arg("Please look up the key k42.")
        .env("AGENTGATE_HOME", p.home())
        .env("AGENTGATE_CONFIG", p.root().join("agentgate.yaml"));
    cmd
}

/// The runs of the store, as `agentgate runs --json` lists them.
fn runs(p: &Project) -> Vec<Value> {
    let listed = run_bounded(p.command(&["runs", "--json"]), Duration::from_secs(30));
    listed
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Processes whose command line names the project's folder (the MCP
/// server is started with `--registry <project>/tools/registry`).
fn processes_naming(dir: &Path) -> Vec<String> {
    let needle = dir.to_string_lossy().into_owned();
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(&needle) && alive(pid) {
            found.push(format!("{pid}: {text}"));
        }
    }
    found
}

pub(super) fn tools_for_an_agent_run(cli: Cli, how: &[&str]) {
    let tool = declared_name(cli, "agentgate", "lookup");
    let server = FakeServer::start(&call_then_answer(&tool, "The tool said: {{tool_output}}"));
    let client = Client::new(cli, &server);
    let p = project(cli);
    let before = snapshot(&client.setup.home);
    let run: Run = run_bounded(command(&p, &client, how), LIMIT);
    let env = last_json(&run.stdout)
        .unwrap_or_else(|| panic!("{cli}: no envelope:\n{}", run.all_output()));
    let context = format!(
        "{cli}: {env:#}\n{}\nrequests {:#?}",
        run.stderr,
        server.requests()
    );
    assert_eq!(run.code, Some(0), "{context}");
    let agent_run = env["run_id"].as_str().unwrap().to_owned();

    // The tool's run: in the store, a tool run whose parent is the agent's.
    let all = runs(&p);
    let tool_runs: Vec<&Value> = all
        .iter()
        .filter(|r| r["record"]["kind"] == "tool")
        .collect();
    assert_eq!(tool_runs.len(), 1, "{context}\nruns {all:#?}");
    let record = &tool_runs[0]["record"];
    assert_eq!(record["parent_run_id"], agent_run.as_str(), "{record:#}");
    assert_eq!(record["providers"][0], "lookup", "{record:#}");
    let tool_run = record["run_id"].as_str().unwrap().to_owned();
    let events = p.events(&tool_run);
    let kinds: Vec<String> = events
        .iter()
        .filter_map(|e| match &e.body {
            agentgate_protocol::EventBody::ToolMessage(m) => {
                Some(m.message.body.type_name().to_owned())
            }
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["progress", "result"], "{events:#?}");
    assert!(
        events.iter().any(|e| e.body.type_name() == "result"),
        "{events:#?}"
    );

    // The answer is made of what the tool returned: its value and the id
    // of its run, which nothing but the tool's result carries.
    let answer = env["response"].as_str().unwrap_or_default();
    assert!(
        answer.starts_with("The tool said: ")
            && answer.contains("value-of-k42")
            && answer.contains(&tool_run),
        "{context}"
    );

    // The agent's run shows the call.
    let agent_events = p.events(&agent_run);
    let uses: Vec<&agentgate_protocol::Event> = agent_events
        .iter()
        .filter(|e| e.body.type_name() == "tool_use")
        .collect();
    assert_eq!(uses.len(), 1, "{agent_events:#?}");
    let activity = &env["metadata"]["tool_activity"];
    assert_eq!(activity["call_count"], 1, "{activity:#}");
    assert!(
        activity["tool_names"].as_array().is_some_and(|n| n
            .iter()
            .any(|n| n.as_str().is_some_and(|n| n.ends_with("lookup")))),
        "{activity:#}"
    );

    // The CLI's home configuration does not name the server (its session
    // transcript holds the tool's result, which names the tool's
    // workspace, not the server's registry argument).
    let registry = p.root().join("tools/registry");
    home_untouched(
        cli,
        &client.setup.home,
        &before,
        &["--parent-run", &registry.to_string_lossy()],
    );
    // What agentgate wrote for the CLI (the MCP configuration, with the
    // server's variables) went when the attempt ended: the agent run's
    // folder keeps none of it.
    for (path, content) in snapshot(&p.run_dir(&agent_run)) {
        assert!(
            !String::from_utf8_lossy(&content).contains("--parent-run"),
            "{cli}: {} outlived the attempt",
            path.display()
        );
    }
    // Nothing of the run is left: no MCP server, no tool.
    let left = processes_naming(p.root());
    assert!(left.is_empty(), "{cli}: left running: {left:#?}");
}

#[test]
fn claude_calls_a_registry_tool_of_its_agent() {
    tools_for_an_agent_run(Cli::Claude, &["--agent", "looker"]);
}

#[test]
fn claude_calls_a_registry_tool_given_with_tools() {
    tools_for_an_agent_run(Cli::Claude, &["--provider", "claude", "--tools", "lookup"]);
}

#[test]
fn codex_calls_a_registry_tool_given_with_tools() {
    tools_for_an_agent_run(Cli::Codex, &["--provider", "codex", "--tools", "lookup"]);
}

#[test]
fn gemini_calls_a_registry_tool_given_with_tools() {
    tools_for_an_agent_run(Cli::Gemini, &["--provider", "gemini", "--tools", "lookup"]);
}

/// A tool the registry does not offer ends the run with `invalid_input`
/// before the CLI starts (a stand-in CLI that leaves a mark shows it did
/// not), and `--tools` without the store is refused.
#[test]
fn a_tool_the_registry_does_not_offer_ends_the_run_before_any_cli_starts() {
    use std::os::unix::fs::PermissionsExt as _;
    let p = project(Cli::Claude);
    let mark = p.root().join("cli-started");
    let cli = p.root().join("stand-in-cli");
    std::fs::write(&cli, format!("#!/bin/sh\ntouch '{}'\n", mark.display())).unwrap();
    std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run = |extra: &[&str]| {
        let mut cmd = p.command(&["run", "--provider", "claude", "--compact", "--binary"]);
        cmd.arg(&cli)
            .args(extra)
            .arg("hello")
            .env("AGENTGATE_CONFIG", p.root().join("agentgate.yaml"))
            .stdin(std::process::Stdio::null());
        run_bounded(cmd, Duration::from_secs(60))
    };
    let unknown = run(&["--tools", "lookup,nope"]);
    let env = last_json(&unknown.stdout)
        .unwrap_or_else(|| panic!("no envelope:\n{}", unknown.all_output()));
    assert_eq!(unknown.code, Some(2), "{}", unknown.all_output());
    assert_eq!(env["error_type"], "invalid_input", "{env:#}");
    let message = env["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("`nope`") && message.contains("it offers: lookup"),
        "{message}"
    );
    assert!(!mark.exists(), "the CLI started");

    let no_store = run(&["--no-store", "--tools", "lookup"]);
    assert_eq!(no_store.code, Some(2), "{}", no_store.all_output());
    assert!(
        no_store.stderr.contains("drop --no-store"),
        "{}",
        no_store.all_output()
    );
    assert!(!mark.exists(), "the CLI started");
}

/// `agentgate serve` gives a submitted run the tools its request names
/// (the real Claude Code against fake-llm): the job succeeds with the
/// tool's value in its answer and the tool run recorded under it; a
/// request naming a tool the registry does not offer fails with
/// `invalid_input` naming it.
#[test]
fn serve_gives_a_submitted_run_its_registry_tools() {
    use super::serve_queue_support::{TOKEN, post, wait_until};
    use super::serve_support::{Env, Serve};
    use agentgate_store::{JobQueue as _, JobState, Store};

    let cli = Cli::Claude;
    let tool = declared_name(cli, "agentgate", "lookup");
    let server = FakeServer::start(&call_then_answer(&tool, "The tool said: {{tool_output}}"));
    let client = Client::new(cli, &server);
    let p = project(cli);
    let mut vars: Vec<(&str, String)> = client
        .setup
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    vars.extend([
        ("AGENTGATE_TOKEN", TOKEN.to_owned()),
        (
            "AGENTGATE_CONFIG",
            p.root().join("agentgate.yaml").display().to_string(),
        ),
        ("AGENTGATE_HOME", p.home().display().to_string()),
    ]);
    let bin = p.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let serve = Serve::start(
        &Env {
            home: p.root(),
            bin: &bin,
            vars,
        },
        &[],
    );
    let submit = |tools: &[&str]| {
        let body = serde_json::json!({
            "prompt": "Please look up the key k42.",
            "providers": ["claude"],
            "model": client.setup.model,
            "binary": client.program,
            "permission_mode": "bypass",
            "cwd": client.setup.workdir,
            "tools": tools,
        });
        let r = post(&serve.url, "/v1/runs", &body.to_string());
        assert_eq!(r.status, 201, "{r:?}");
        r.json()["run_id"].as_str().unwrap().to_owned()
    };
    let store = Store::open(p.home().join("agentgate.db")).unwrap();
    let ended = |id: &str| {
        wait_until(&format!("job {id} to end"), || {
            let job = store.get_job(id).unwrap()?;
            matches!(job.state, JobState::Succeeded | JobState::Failed).then_some(job)
        })
    };

    let id = submit(&["lookup"]);
    let job = ended(&id);
    let envelope = serde_json::to_value(job.envelope.unwrap()).unwrap();
    assert_eq!(job.state, JobState::Succeeded, "{envelope:#}");
    let all = runs(&p);
    let tool_run = all
        .iter()
        .find(|r| r["record"]["kind"] == "tool")
        .unwrap_or_else(|| panic!("no tool run: {all:#?}"));
    assert_eq!(tool_run["record"]["parent_run_id"], id.as_str());
    let answer = envelope["response"].as_str().unwrap_or_default();
    assert!(
        answer.contains("value-of-k42")
            && answer.contains(tool_run["record"]["run_id"].as_str().unwrap()),
        "{envelope:#}"
    );

    let id = submit(&["nope"]);
    let job = ended(&id);
    let envelope = serde_json::to_value(job.envelope.unwrap()).unwrap();
    assert_eq!(job.state, JobState::Failed, "{envelope:#}");
    assert_eq!(envelope["error_type"], "invalid_input", "{envelope:#}");
    assert!(
        envelope["error"]
            .as_str()
            .is_some_and(|e| e.contains("`nope`")),
        "{envelope:#}"
    );
    drop(serve);
}
