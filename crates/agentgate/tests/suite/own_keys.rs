//! Agents never hold agentgate's own keys (issue 31, item 1): a stand-in
//! Claude Code writes its whole environment (and the MCP configuration it
//! is given) to a file, and a registry tool writes its own; agentgate runs
//! them with `AGENTGATE_TOKEN`, `AGENTGATE_HOME`, `AGENTGATE_CONFIG`,
//! `AGENTGATE_LOG` (and a store URL with a password, a copy of the token in
//! another variable) in its environment. In every mode (`agentgate run`,
//! `run --warm` through the session host, `serve`'s executor, `agentgate
//! worker` on PostgreSQL, a workflow's agent and tool steps, the MCP server
//! entry a CLI is given) none of them reaches the CLI or the tool. And a
//! run cannot answer its own approval requests: a stand-in that got the
//! token and answers from a process that left its group (double fork,
//! `setsid`) is refused with 403, while a person's answer is taken.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use super::serve_queue_support::{QueueHome, wait_until};
use super::serve_support::{Env, Serve, get, post_json};
use super::store_postgres::fresh_database;
use super::support::run_bounded;
use super::tool_support::Project;
use super::worker::Worker;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const TOKEN: &str = "own-keys-token-0123456789abcdef0";

/// A one-shot Claude Code stand-in: writes its environment to
/// `DIR/env-TAG` and, when given `--mcp-config FILE`, that file to
/// `DIR/mcp-TAG` (TAG: the `tag-...` word of its prompt), then answers.
pub const DUMPER: &str = r#"#!/bin/bash
dir='@DIR@'
prompt="$(cat) $*"
tag=$(printf '%s' "$prompt" | grep -o 'tag-[a-z0-9]*' | head -1)
env > "$dir/env-$tag"
prev=""
for a in "$@"; do
  if [ "$prev" = "--mcp-config" ]; then cat "$a" > "$dir/mcp-$tag"; fi
  prev="$a"
done
echo '{"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"done '"$tag"'","session_id":"sess-1","num_turns":1}'
"#;

/// A warm Claude Code stand-in (stream-json in and out): writes its
/// environment to `DIR/env-warm` and answers each turn.
const WARM_DUMPER: &str = r#"#!/bin/bash
dir='@DIR@'
env > "$dir/env-warm"
while IFS= read -r line; do
  case "$line" in
    *'"type":"user"'*)
      echo '{"type":"system","subtype":"init","session_id":"sess-w","model":"fake-model"}'
      echo '{"type":"result","subtype":"success","is_error":false,"result":"warm done","session_id":"sess-w","num_turns":1}'
      ;;
  esac
done
"#;

/// A registry tool that writes its environment into its workspace.
const ENV_TOOL: &str = "#!/bin/bash\nenv > env.txt\necho '{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"dumped\":true}}'\n";

/// Write `script` (with `@DIR@` as `dir`) as an executable `path`.
pub fn script(path: &Path, script: &str, dir: &Path) {
    std::fs::write(path, script.replace("@DIR@", dir.to_str().unwrap())).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// What a dump must not hold: no `AGENTGATE_*` variable, none of the
/// `values` anywhere.
pub fn assert_no_own(what: &str, dump: &str, values: &[&str]) {
    let own: Vec<&str> = dump
        .lines()
        .filter(|l| l.starts_with("AGENTGATE_"))
        .collect();
    assert!(own.is_empty(), "{what} holds {own:?}:\n{dump}");
    for value in values {
        assert!(!dump.contains(value), "{what} holds {value:?}:\n{dump}");
    }
}

fn read(path: &Path) -> String {
    wait_until(&format!("{}", path.display()), || {
        std::fs::read_to_string(path).ok().filter(|t| !t.is_empty())
    })
}

/// The files named `name` in the tool runs' workspaces of the store `home`.
fn tool_dumps(home: &Path) -> Vec<PathBuf> {
    let Ok(runs) = std::fs::read_dir(home.join("runs")) else {
        return Vec::new();
    };
    runs.flatten()
        .map(|r| r.path().join("work").join("env.txt"))
        .filter(|p| p.is_file())
        .collect()
}

fn wait_for_status(url: &str, id: &str, token: &str, status: &str) -> Value {
    wait_until(&format!("run {id} {status}"), || {
        let run = get(url, &format!("/v1/runs/{id}"), Some(token)).json();
        let now = run["status"].as_str().unwrap_or_default().to_owned();
        if now == status {
            return Some(run);
        }
        assert!(
            !["succeeded", "failed", "cancelled", "abandoned"].contains(&now.as_str()),
            "run {id} ended {now}, not {status}: {run:#}"
        );
        None
    })
}

/// A project with the `envdump` tool, the dumper as `claude`, and a config
/// naming the registry.
fn project() -> (Project, PathBuf) {
    let p = Project::new();
    p.tool("envdump", "description: Dumps its environment.\n", ENV_TOOL);
    let claude = p.root().join("claude");
    script(&claude, DUMPER, p.root());
    std::fs::write(
        p.root().join("agentgate.yaml"),
        "version: 1\ntools:\n  registry: tools/registry\n",
    )
    .unwrap();
    (p, claude)
}

#[test]
fn no_agentgate_variable_reaches_a_cli_or_tool_of_serve_or_its_workflows() {
    let (p, claude) = project();
    let bin = p.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let config = p.root().join("agentgate.yaml").display().to_string();
    let serve = Serve::start(
        &Env {
            home: p.root(),
            bin: &bin,
            vars: vec![
                ("AGENTGATE_HOME", p.home().display().to_string()),
                ("AGENTGATE_TOKEN", TOKEN.to_owned()),
                ("AGENTGATE_CONFIG", config),
                ("AGENTGATE_LOG", "info".to_owned()),
                // The token under another name: its value gives it away.
                ("COPY_OF_THE_TOKEN", TOKEN.to_owned()),
            ],
        },
        &[],
    );
    // A run naming one of agentgate's variables itself is refused.
    let refused = post_json(
        &serve.url,
        "/v1/runs",
        TOKEN,
        &json!({
            "prompt": "tag-refused", "providers": ["claude"], "binary": claude,
            "env": {"AGENTGATE_HOME": "/elsewhere"},
        })
        .to_string(),
    );
    assert_eq!(refused.status, 422, "{}", refused.body);
    assert_eq!(refused.json()["error"]["field"], "env", "{}", refused.body);
    // A run whose agent gets the registry tools: its CLI is given agentgate's
    // MCP server.
    let run = post_json(
        &serve.url,
        "/v1/runs",
        TOKEN,
        &json!({
            "prompt": "tag-serve", "providers": ["claude"], "binary": claude,
            "tools": ["envdump"], "cwd": p.root(),
        })
        .to_string(),
    );
    assert_eq!(run.status, 201, "{}", run.body);
    let run_id = run.json()["run_id"].as_str().unwrap().to_owned();
    // A workflow: a tool step, then an agent step.
    let workflow = format!(
        "version: 1\nname: envcheck\nsteps:\n  - id: dump\n    tool: envdump\n  - id: ask\n    agent:\n      providers: [claude]\n      binary: {}\n      prompt: tag-wfagent\n",
        claude.display()
    );
    let wf = post_json(
        &serve.url,
        "/v1/workflows",
        TOKEN,
        &json!({"workflow": workflow, "base_dir": p.root()}).to_string(),
    );
    assert_eq!(wf.status, 201, "{}", wf.body);
    let wf_id = wf.json()["run_id"].as_str().unwrap().to_owned();
    wait_for_status(&serve.url, &run_id, TOKEN, "succeeded");
    wait_for_status(&serve.url, &wf_id, TOKEN, "succeeded");

    let values = [TOKEN];
    assert_no_own(
        "serve's CLI",
        &read(&p.root().join("env-tag-serve")),
        &values,
    );
    let mcp = read(&p.root().join("mcp-tag-serve"));
    assert!(mcp.contains("--relay"), "the tool server relays: {mcp}");
    assert!(!mcp.contains("AGENTGATE_"), "the MCP entry: {mcp}");
    assert!(
        !mcp.contains(&p.home().join("agentgate.db").display().to_string()),
        "the MCP entry names the store: {mcp}"
    );
    assert_no_own(
        "a workflow's agent step",
        &read(&p.root().join("env-tag-wfagent")),
        &values,
    );
    let dumps = tool_dumps(&p.home());
    assert_eq!(dumps.len(), 1, "the tool step ran once: {dumps:?}");
    assert_no_own(
        "a workflow's tool step",
        &std::fs::read_to_string(&dumps[0]).unwrap(),
        &values,
    );
}

/// `agentgate run ARGS` in the project, with agentgate's variables set.
fn run(p: &Project, args: &[&str]) -> super::support::Run {
    let mut cmd = Command::new(AGENTGATE);
    cmd.arg("run")
        .args(args)
        .current_dir(p.root())
        .env("AGENTGATE_HOME", p.home())
        .env("AGENTGATE_CONFIG", p.root().join("agentgate.yaml"))
        .env("AGENTGATE_STORE", p.home().join("agentgate.db"))
        .env("AGENTGATE_TOKEN", TOKEN)
        .env("AGENTGATE_LOG", "warn")
        .stdin(std::process::Stdio::null());
    run_bounded(cmd, Duration::from_secs(90))
}

#[test]
fn no_agentgate_variable_reaches_the_cli_of_a_run_cold_or_warm() {
    let (p, claude) = project();
    let claude = claude.display().to_string();
    let cold = run(
        &p,
        &["--provider", "claude", "--binary", &claude, "tag-cold"],
    );
    assert_eq!(cold.code, Some(0), "{}", cold.all_output());
    assert_no_own("run's CLI", &read(&p.root().join("env-tag-cold")), &[TOKEN]);

    let warm_claude = p.root().join("warm-claude");
    script(&warm_claude, WARM_DUMPER, p.root());
    let warm = run(
        &p,
        &[
            "--provider",
            "claude",
            "--binary",
            warm_claude.to_str().unwrap(),
            "--warm",
            "--warm-idle",
            "1s",
            "--session",
            "own-keys",
            "hello",
        ],
    );
    let _host = HostStopper(p.home());
    assert_eq!(warm.code, Some(0), "{}", warm.all_output());
    assert_no_own(
        "run --warm's CLI (started by the session host)",
        &read(&p.root().join("env-warm")),
        &[TOKEN],
    );
}

/// Stops the session hosts of a data folder when dropped (their pid files).
struct HostStopper(PathBuf);

impl Drop for HostStopper {
    fn drop(&mut self) {
        let Ok(files) = std::fs::read_dir(self.0.join("warm")) else {
            return;
        };
        for file in files.flatten() {
            let path = file.path();
            if path.extension().is_some_and(|e| e == "pid")
                && let Ok(pid) = std::fs::read_to_string(&path)
            {
                let _ = Command::new("kill").arg("-TERM").arg(pid.trim()).status();
            }
        }
    }
}

/// A minimal MCP client: starts the server of the entry saved in
/// `argv[1]`, initializes, calls `envdump`, prints the result's
/// structured content.
const MCP_CLIENT: &str = r#"
import json, subprocess, sys
entry = json.load(open(sys.argv[1]))
server = subprocess.Popen([entry["command"]] + entry["args"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, text=True)
def send(message):
    server.stdin.write(json.dumps(message) + "\n")
    server.stdin.flush()
def answer(id):
    while True:
        line = server.stdout.readline()
        if not line:
            sys.exit("the server closed its output")
        message = json.loads(line)
        if message.get("id") == id:
            return message
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-03-26", "capabilities": {},
    "clientInfo": {"name": "stand-in", "version": "1"}}})
answer(1)
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
      "params": {"name": "envdump", "arguments": {}}})
print(json.dumps(answer(2)["result"]["structuredContent"]))
server.stdin.close()
server.wait()
"#;

/// A warm Claude Code stand-in that keeps the `agentgate` MCP server entry
/// it was started with (in `DIR/server-PID.json`: its file goes when the
/// attempt ends, as the real CLI reads it once) and calls `envdump`
/// through it on every turn, writing the result to `DIR/call-TAG` (TAG:
/// the `tag-...` word of the turn's prompt).
const WARM_TOOL_USER: &str = r#"#!/bin/bash
dir='@DIR@'
prev=""; config=""
for a in "$@"; do [ "$prev" = "--mcp-config" ] && config="$a"; prev="$a"; done
python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["mcpServers"]["agentgate"]))' "$config" > "$dir/server-$$.json"
while IFS= read -r line; do
  case "$line" in
    *'"type":"user"'*)
      n=$(printf '%s' "$line" | grep -o 'tag-[a-z]*' | head -1)
      python3 "$dir/mcp_client.py" "$dir/server-$$.json" > "$dir/call-$n.tmp" 2> "$dir/call-$n.err"
      mv "$dir/call-$n.tmp" "$dir/call-$n"
      echo '{"type":"system","subtype":"init","session_id":"sess-t","model":"fake-model"}'
      echo '{"type":"result","subtype":"success","is_error":false,"result":"called","session_id":"sess-t","num_turns":1}'
      ;;
  esac
done
"#;

#[test]
fn warm_clis_call_registry_tools_through_the_session_hosts_relay() {
    let (p, _) = project();
    let cli = p.root().join("warm-tool-user");
    script(&cli, WARM_TOOL_USER, p.root());
    std::fs::write(p.root().join("mcp_client.py"), MCP_CLIENT).unwrap();
    let _host = HostStopper(p.home());
    let turn = |prompt: &str| {
        run(
            &p,
            &[
                "--provider",
                "claude",
                "--binary",
                cli.to_str().unwrap(),
                "--tools",
                "envdump",
                "--warm",
                "--warm-idle",
                "120s",
                "--session",
                "tools",
                prompt,
            ],
        )
    };
    // Two separate clients, one after the other. Each turn's CLI (a new
    // one: the `--parent-run` of its MCP server differs) calls the tool
    // through the host's relay, which outlives the client that made it.
    for tag in ["tag-one", "tag-two"] {
        let client = turn(tag);
        assert_eq!(client.code, Some(0), "{tag}: {}", client.all_output());
        let path = p.root().join(format!("call-{tag}"));
        wait_until(&format!("{}", path.display()), || {
            path.exists().then_some(())
        });
        let text = std::fs::read_to_string(&path).unwrap();
        let call: Value = serde_json::from_str(&text).unwrap_or_else(|e| {
            let err = std::fs::read_to_string(p.root().join(format!("call-{tag}.err")));
            panic!("{tag}: no tool result ({e}): {text:?} {err:?}")
        });
        assert_eq!(call["status"], "ok", "{tag}: {call:#}");
        assert_eq!(call["tool"], "envdump", "{tag}: {call:#}");
    }
    let relays: Vec<String> = std::fs::read_dir(p.root())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("server-"))
        .map(|e| {
            let entry: Value =
                serde_json::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
            assert!(entry.get("env").is_none(), "{entry:#}");
            let args: Vec<&str> = entry["args"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap())
                .collect();
            let at = args.iter().position(|a| *a == "--relay").unwrap();
            args[at + 1].to_owned()
        })
        .collect();
    assert_eq!(relays.len(), 2, "{relays:?}");
    assert_eq!(
        relays[0], relays[1],
        "both clients' CLIs were given the session host's one relay"
    );
    let dumps = tool_dumps(&p.home());
    assert_eq!(dumps.len(), 2, "{dumps:?}");
    for dump in dumps {
        assert_no_own(
            "a tool an agent called",
            &std::fs::read_to_string(dump).unwrap(),
            &[TOKEN],
        );
    }
}

#[test]
fn neither_agentgates_variables_nor_the_store_password_reach_a_workers_cli() {
    let password = "pw-0f-the-store-0123456789";
    let store = fresh_database().replacen("agentgate@", &format!("agentgate:{password}@"), 1);
    assert!(store.contains(password), "{store}");
    let home = QueueHome::new("");
    script(&home.file("bin/claude"), DUMPER, home.path());
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let worker = Worker::start_with(
        &home,
        &store,
        &[],
        &[
            ("AGENTGATE_TOKEN", TOKEN),
            ("DATABASE_URL", &store),
            ("PGPASSWORD", password),
        ],
    );
    let id = super::serve_queue_support::submit_ok(&server.url, "tag-worker", json!({}));
    wait_for_status(
        &server.url,
        &id,
        super::serve_queue_support::TOKEN,
        "succeeded",
    );
    assert_no_own(
        "a worker's CLI",
        &read(&home.file("env-tag-worker")),
        &[TOKEN, &store, password],
    );
    drop(worker);
}

/// The agent's accomplice: reads the URL and the token the agent got hold
/// of, finds the run's pending request and allows it; writes the answer's
/// status and body to `DIR/self-answer`.
const ANSWERER: &str = r#"
import json, sys, time, urllib.request, urllib.error
d = sys.argv[1]
url = open(d + "/url").read().strip()
token = open(d + "/token").read().strip()
def call(method, path, body=None):
    req = urllib.request.Request(url + path, method=method, data=body,
        headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
deadline = time.time() + 60
while time.time() < deadline:
    _, runs = call("GET", "/v1/runs")
    for run in json.loads(runs)["runs"]:
        _, waiting = call("GET", "/v1/runs/%s/approvals" % run["run_id"])
        for request in json.loads(waiting)["pending"]:
            status, body = call("POST", "/v1/runs/%s/approvals/%s" % (run["run_id"], request),
                                json.dumps({"decision": "allow"}).encode())
            with open(d + "/self-answer.tmp", "w") as f:
                f.write("%d %s" % (status, body))
            import os
            os.rename(d + "/self-answer.tmp", d + "/self-answer")
            sys.exit(0)
    time.sleep(0.1)
"#;

/// A warm Claude Code stand-in in permission mode `ask`: on the turn it
/// starts the answerer out of its group (a double fork and `setsid`), asks
/// to write a file, and writes the answer it gets to `DIR/decision`.
const ASKER: &str = r#"#!/bin/bash
dir='@DIR@'
while IFS= read -r line; do
  case "$line" in
    *'"type":"user"'*)
      echo '{"type":"system","subtype":"init","session_id":"sess-a","model":"fake-model"}'
      ( setsid python3 "$dir/answer.py" "$dir" </dev/null >/dev/null 2>&1 & )
      echo '{"type":"control_request","request_id":"req-1","request":{"subtype":"can_use_tool","tool_name":"Write","input":{"file_path":"'"$dir"'/x.txt","content":"x"},"tool_use_id":"call_1"}}'
      ;;
    *'"type":"control_response"'*)
      printf '%s\n' "$line" > "$dir/decision"
      echo '{"type":"result","subtype":"success","is_error":false,"result":"decided","session_id":"sess-a","num_turns":1}'
      ;;
  esac
done
"#;

#[test]
fn a_run_cannot_answer_its_own_approval_but_a_person_can() {
    let home = QueueHome::new("approvals:\n  default: ask\n  ask_timeout: 2m\n");
    let dir = home.path().to_path_buf();
    let asker = dir.join("asker");
    script(&asker, ASKER, &dir);
    std::fs::write(dir.join("answer.py"), ANSWERER).unwrap();
    let server = home.serve(false, &[]);
    let token = super::serve_queue_support::TOKEN;
    // What the agent got hold of (the token file is readable to it).
    std::fs::write(dir.join("url"), &server.url).unwrap();
    std::fs::write(dir.join("token"), token).unwrap();
    let submitted = post_json(
        &server.url,
        "/v1/runs",
        token,
        &json!({
            "prompt": "write x", "providers": ["claude"], "binary": asker,
            "permission_mode": "ask", "cwd": dir, "timeout": "150s",
        })
        .to_string(),
    );
    assert_eq!(submitted.status, 201, "{}", submitted.body);
    let id = submitted.json()["run_id"].as_str().unwrap().to_owned();

    // The accomplice's answer comes back, or (were it taken) reaches the
    // CLI, which then ends the turn and its processes.
    wait_until("the agent's own answer", || {
        (dir.join("self-answer").exists() || dir.join("decision").exists()).then_some(())
    });
    if let Ok(decision) = std::fs::read_to_string(dir.join("decision")) {
        panic!("the agent's own answer reached the CLI: {decision}");
    }
    let self_answer = read(&dir.join("self-answer"));
    assert!(
        self_answer.starts_with("403 ") && self_answer.contains("cannot answer approval requests"),
        "the run answered its own request: {self_answer}"
    );
    let pending = get(
        &server.url,
        &format!("/v1/runs/{id}/approvals"),
        Some(token),
    )
    .json();
    let request = pending["pending"][0]
        .as_str()
        .unwrap_or_else(|| panic!("the request is no longer pending: {pending:#}"))
        .to_owned();
    let person = post_json(
        &server.url,
        &format!("/v1/runs/{id}/approvals/{request}"),
        token,
        &json!({"decision": "deny", "message": "not now"}).to_string(),
    );
    assert_eq!(person.status, 200, "{}", person.body);
    let decision = read(&dir.join("decision"));
    assert!(
        decision.contains("\"behavior\":\"deny\"") && decision.contains("not now"),
        "{decision}"
    );
    wait_for_status(&server.url, &id, token, "succeeded");
}
