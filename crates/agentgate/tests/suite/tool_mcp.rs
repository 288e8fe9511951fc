//! `agentgate mcp`: a real MCP client (JSON-RPC lines on the server's
//! stdin and stdout, as every agent CLI speaks it) against the real server
//! over a temporary registry: the tools listed with their input schemas, a
//! call run through the runner with its progress notified before the
//! result, `action_required` returned as a result, bad arguments a tool
//! error, and each run in the store with its parent.

use std::io::{BufRead as _, BufReader, Write as _};
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::suite::support::run_bounded;
use crate::suite::tool_support::{LIMIT, Project};

struct Client {
    stdin: ChildStdin,
    lines: mpsc::Receiver<Value>,
    child: std::process::Child,
}

impl Client {
    fn send(&mut self, message: Value) {
        let mut line = serde_json::to_vec(&message).unwrap();
        line.push(b'\n');
        self.stdin.write_all(&line).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Every message until the response to `id` (included).
    fn until_response(&mut self, id: u64) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let message = self
                .lines
                .recv_timeout(LIMIT)
                .unwrap_or_else(|_| panic!("no response to {id}: {seen:?}"));
            let done = message["id"] == id;
            seen.push(message);
            if done {
                return seen;
            }
        }
    }

    /// Writes `bytes` as they are (a line that is not JSON, say).
    fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next message the server writes.
    fn next(&mut self) -> Value {
        self.lines
            .recv_timeout(LIMIT)
            .unwrap_or_else(|_| panic!("the server wrote nothing"))
    }

    fn call(&mut self, id: u64, params: Value) -> (Vec<Value>, Value) {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}));
        let mut seen = self.until_response(id);
        let response = seen.pop().unwrap();
        (seen, response)
    }
}

fn start(p: &Project) -> Client {
    let mut child = p
        .command(&["mcp", "--parent-run", "rparent-1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if let Ok(value) = serde_json::from_str::<Value>(&line)
                && tx.send(value).is_err()
            {
                break;
            }
        }
    });
    let stdin = child.stdin.take().unwrap();
    Client {
        stdin,
        lines,
        child,
    }
}

#[test]
fn an_mcp_client_lists_calls_and_gets_progress_results_and_actions() {
    let p = Project::new();
    p.tool(
        "counter",
        "description: Counts to a number.\ninputs:\n  - {name: upto, type: integer, required: true, description: the last number}\n  - {name: label, type: string}\n",
        "#!/bin/bash\n\
         echo '{\"v\":1,\"type\":\"progress\",\"pct\":50,\"msg\":\"half way\"}'\n\
         echo '{\"v\":1,\"type\":\"progress\",\"pct\":100,\"msg\":\"done\"}'\n\
         echo '{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"counted\":'\"$2\"'}}'\n",
    );
    p.tool(
        "asker",
        "",
        "#!/bin/bash\n\
         echo '{\"v\":1,\"type\":\"action_required\",\"action\":\"choose_strategy\",\"context\":{\"files\":3}}'\n",
    );
    let mut client = start(&p);
    client.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test-client", "version": "1"}}}),
    );
    let init = client.until_response(1).pop().unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "agentgate", "{init}");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    client.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = client.until_response(2).pop().unwrap();
    let tools = list["result"]["tools"].as_array().unwrap();
    let mut names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["asker", "counter"]);
    let counter = tools.iter().find(|t| t["name"] == "counter").unwrap();
    assert_eq!(counter["description"], "Counts to a number.");
    assert_eq!(
        counter["inputSchema"]["properties"]["upto"]["type"],
        "integer"
    );
    assert_eq!(counter["inputSchema"]["required"], json!(["upto"]));

    let (before, response) = client.call(
        3,
        json!({"name": "counter", "arguments": {"upto": 7}, "_meta": {"progressToken": "p-1"}}),
    );
    let progress: Vec<&Value> = before
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 2, "{before:?}");
    assert_eq!(progress[0]["params"]["progressToken"], "p-1");
    assert_eq!(progress[0]["params"]["progress"], 50.0);
    assert_eq!(progress[0]["params"]["message"], "half way");
    let result = &response["result"];
    assert_eq!(result["isError"], false, "{response}");
    assert_eq!(result["structuredContent"]["status"], "ok");
    assert_eq!(result["structuredContent"]["metrics"]["counted"], 7);
    assert_eq!(result["structuredContent"]["parent_run_id"], "rparent-1");
    let run_id = result["structuredContent"]["run_id"]
        .as_str()
        .unwrap()
        .to_owned();

    let (_, response) = client.call(4, json!({"name": "asker", "arguments": {}}));
    let asked = &response["result"]["structuredContent"];
    assert_eq!(asked["status"], "action_required", "{response}");
    assert_eq!(asked["actions"][0]["action"], "choose_strategy");
    assert_eq!(asked["actions"][0]["context"]["files"], 3);

    let (_, response) = client.call(5, json!({"name": "counter", "arguments": {"label": "x"}}));
    assert_eq!(response["result"]["isError"], true, "{response}");
    assert_eq!(
        response["result"]["structuredContent"]["code"],
        "E_INVALID_ARGUMENTS"
    );

    drop(client.stdin);
    let start = std::time::Instant::now();
    while client.child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < LIMIT, "agentgate mcp did not exit on EOF");
        std::thread::sleep(Duration::from_millis(50));
    }
    let events = p.events(&run_id);
    assert!(events.iter().any(|e| e.body.type_name() == "tool_message"));
    let listed =
        crate::suite::support::run_bounded(p.command(&["runs", "--json"]), Duration::from_secs(30));
    let runs: Vec<Value> = listed
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(runs.len(), 2, "two calls ran, the bad one did not");
    for r in &runs {
        assert_eq!(r["record"]["parent_run_id"], "rparent-1");
        assert_eq!(r["record"]["kind"], "tool");
    }
}

/// A client's `notifications/cancelled` reaches the tool as its cancel
/// file: the tool, waiting for it, says it was cancelled and stops by
/// itself, and its stored run ends cancelled.
#[test]
fn a_cancelled_call_creates_the_tools_cancel_file() {
    let p = Project::new();
    p.tool(
        "waiter",
        "",
        "#!/bin/bash\n\
         echo '{\"v\":1,\"type\":\"progress\",\"pct\":1,\"msg\":\"waiting\"}'\n\
         for _ in $(seq 600); do\n\
           if [ -e \"$CANCEL_FILE\" ]; then\n\
             echo '{\"v\":1,\"type\":\"cancelled\",\"reason\":\"cancel-file\"}'; exit 130\n\
           fi\n\
           echo '{\"v\":1,\"type\":\"heartbeat\"}'; sleep 0.1\n\
         done\n\
         echo '{\"v\":1,\"type\":\"result\",\"status\":\"ok\"}'\n",
    );
    let mut client = start(&p);
    client.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test-client", "version": "1"}}}),
    );
    client.until_response(1);
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    client.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params":
        {"name": "waiter", "arguments": {}, "_meta": {"progressToken": "w-1"}}}),
    );
    // The tool is running once its first progress is notified.
    loop {
        let message = client.lines.recv_timeout(LIMIT).expect("no progress");
        assert_ne!(message["id"], 2, "the call ended early: {message}");
        if message["method"] == "notifications/progress" {
            break;
        }
    }
    client.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 2, "reason": "the user stopped it"}}),
    );

    let start_wait = std::time::Instant::now();
    let run = loop {
        assert!(start_wait.elapsed() < LIMIT, "the tool run did not end");
        let listed = crate::suite::support::run_bounded(
            p.command(&["runs", "--json"]),
            Duration::from_secs(30),
        );
        let runs: Vec<Value> = listed
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        if let Some(r) = runs.first()
            && !r["ended_at"].is_null()
        {
            break r.clone();
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let run_id = run["record"]["run_id"].as_str().unwrap();
    let events: Vec<Value> = p
        .events(run_id)
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "tool_message" && e["message"]["type"] == "cancelled"),
        "the tool did not see its cancel file: {events:#?}"
    );
    let result = events.iter().find(|e| e["type"] == "result").unwrap();
    assert!(
        result.to_string().contains("\"status\":\"cancelled\""),
        "{result:#}"
    );
    drop(client.stdin);
    let _ = client.child.wait();
}

/// Issue 31: a line that is not JSON gets JSON-RPC's parse error (`id`
/// null), JSON that repeats a key (in a tool call's arguments too) an
/// invalid request answered to its id; the server keeps serving, and the
/// tool never runs on an ambiguous call.
#[test]
fn garbage_and_repeated_keys_are_answered_and_the_server_keeps_serving() {
    let p = Project::new();
    p.tool(
        "echo",
        "inputs:\n  - {name: word, type: string, required: true}\n",
        "#!/bin/bash\ntouch \"$WORKSPACE/ran\"\n\
         echo '{\"v\":1,\"type\":\"result\",\"status\":\"ok\",\"metrics\":{\"word\":\"'\"$2\"'\"}}'\n",
    );
    let mut client = start(&p);
    client.send_raw(b"this is not json\n");
    let parse = client.next();
    assert_eq!(parse["jsonrpc"], "2.0", "{parse}");
    assert_eq!(parse["id"], Value::Null, "{parse}");
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    assert!(
        parse["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Parse error"),
        "{parse}"
    );
    client.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test-client", "version": "1"}}}),
    );
    let init = client.until_response(1).pop().unwrap();
    assert_eq!(init["result"]["serverInfo"]["name"], "agentgate", "{init}");
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    // Garbage again, mid-session, then a half line.
    client.send_raw(b"{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\":\n");
    let parse = client.next();
    assert_eq!(
        (parse["id"].clone(), parse["error"]["code"].clone()),
        (Value::Null, json!(-32700)),
        "{parse}"
    );
    // A call whose arguments give `word` twice: refused, to its id.
    client.send_raw(
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"word":"safe","word":"rm -rf"}}}"#,
    );
    client.send_raw(b"\n");
    let refused = client.until_response(2).pop().unwrap();
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("duplicate key `word` in the object at `params.arguments`"),
        "{refused}"
    );
    // Still serving: the same call without the repeat runs.
    let (_, done) = client.call(3, json!({"name": "echo", "arguments": {"word": "safe"}}));
    assert_eq!(
        done["result"]["structuredContent"]["metrics"]["word"], "safe",
        "{done}"
    );
    let runs = run_bounded(p.command(&["runs", "--json"]), LIMIT);
    assert_eq!(
        runs.stdout.lines().count(),
        1,
        "only the clean call ran: {}",
        runs.all_output()
    );
    drop(client.stdin);
    let _ = client.child.wait();
}
