//! Codex's long-lived mode: `codex app-server`, JSON-RPC over stdio
//! without the `jsonrpc` field, one message per line. The host opens with
//! `initialize` (then the `initialized` notification) and `thread/start`
//! (or `thread/resume` by thread id), starts each turn with `turn/start`
//! and interrupts one with `turn/interrupt`; a turn always ends with
//! `turn/completed` (status completed, interrupted or failed). With an
//! approval policy that asks, Codex sends server requests
//! `item/commandExecution/requestApproval` and
//! `item/fileChange/requestApproval` (answered `accept` or `decline`); a
//! file change's paths are only in its earlier `item/started`, so they are
//! kept by item id. Any other server request is refused with a JSON-RPC
//! error: Codex waits forever for an answer.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::protocol::{Answer, Inbound, PermissionAsk, WarmProtocol};
use crate::approvals::{ToolCall, ToolClass, unwrap_shell};

/// The id of the host's `thread/start` or `thread/resume` request.
const OPEN_ID: u64 = 2;

/// How a Codex thread is opened and what it may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexThread {
    /// The working folder.
    pub cwd: String,
    /// `Some(id)`: resume that thread; `None`: start one.
    pub resume: Option<String>,
    /// The model, if one is asked for.
    pub model: Option<String>,
    /// Ask before commands and file changes (`untrusted`), else never ask
    /// (`never`).
    pub ask: bool,
    /// `read-only`, `workspace-write` or `danger-full-access`.
    pub sandbox: String,
}

/// Codex app-server's protocol (see the module notes).
#[derive(Debug)]
pub struct CodexWarm {
    thread: CodexThread,
    thread_id: Option<String>,
    turn_id: Option<String>,
    next_id: u64,
    /// The paths of each file change item, by item id.
    changes: HashMap<String, Vec<String>>,
}

impl CodexWarm {
    /// The protocol for `thread`.
    pub fn new(thread: CodexThread) -> Self {
        CodexWarm {
            thread_id: thread.resume.clone(),
            thread,
            turn_id: None,
            next_id: OPEN_ID + 1,
            changes: HashMap::new(),
        }
    }

    fn request(&mut self, method: &str, params: Value) -> String {
        let id = self.next_id;
        self.next_id += 1;
        json!({"id": id, "method": method, "params": params}).to_string()
    }
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

impl WarmProtocol for CodexWarm {
    fn open(&mut self) -> Vec<String> {
        let t = &self.thread;
        let mut params = json!({
            "cwd": t.cwd,
            "approvalPolicy": if t.ask { "untrusted" } else { "never" },
            "sandbox": t.sandbox,
        });
        if let Some(m) = &t.model {
            params["model"] = json!(m);
        }
        let (method, params) = match &t.resume {
            Some(id) => {
                params["threadId"] = json!(id);
                ("thread/resume", params)
            }
            None => ("thread/start", params),
        };
        vec![
            json!({"id": 1, "method": "initialize", "params": {
                "clientInfo": {"name": "agentgate", "title": null, "version": env!("CARGO_PKG_VERSION")},
                "capabilities": {"experimentalApi": false, "optOutNotificationMethods": [
                    "account/rateLimits/updated", "remoteControl/status/changed"]},
            }})
            .to_string(),
            json!({"method": "initialized"}).to_string(),
            json!({"id": OPEN_ID, "method": method, "params": params}).to_string(),
        ]
    }

    fn opened_at_start(&self) -> bool {
        false
    }

    fn turn(&mut self, prompt: &str) -> Vec<String> {
        let thread = self.thread_id.clone().unwrap_or_default();
        vec![self.request(
            "turn/start",
            json!({"threadId": thread, "input": [{"type": "text", "text": prompt, "text_elements": []}]}),
        )]
    }

    fn read(&mut self, line: &[u8]) -> Vec<Inbound> {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else {
            return vec![Inbound::Output(line.to_vec())];
        };
        let method = msg.get("method").and_then(Value::as_str);
        let id = msg.get("id").cloned();
        match (method, id) {
            // A server request.
            (Some(method), Some(id)) => {
                let params = msg.get("params").unwrap_or(&Value::Null);
                match method {
                    "item/commandExecution/requestApproval" => {
                        let raw = str_at(params, "/command").unwrap_or_default();
                        let command = unwrap_shell(raw).to_owned();
                        let paths: Vec<String> = params
                            .get("commandActions")
                            .and_then(Value::as_array)
                            .map(|a| {
                                a.iter()
                                    .filter_map(|x| str_at(x, "/path").map(str::to_owned))
                                    .collect()
                            })
                            .unwrap_or_default();
                        vec![Inbound::Ask(PermissionAsk {
                            cli_id: id,
                            call: ToolCall {
                                tool: "commandExecution".to_owned(),
                                class: Some(ToolClass::Shell),
                                paths,
                                command: Some(command),
                            },
                            input: params.clone(),
                            tool_use_id: str_at(params, "/itemId").map(str::to_owned),
                        })]
                    }
                    "item/fileChange/requestApproval" => {
                        let item = str_at(params, "/itemId").unwrap_or_default().to_owned();
                        let paths = self.changes.get(&item).cloned().unwrap_or_default();
                        vec![Inbound::Ask(PermissionAsk {
                            cli_id: id,
                            call: ToolCall {
                                tool: "fileChange".to_owned(),
                                class: Some(ToolClass::Write),
                                paths,
                                command: None,
                            },
                            input: params.clone(),
                            tool_use_id: Some(item),
                        })]
                    }
                    other => vec![Inbound::Reply(
                        json!({"id": id, "error": {"code": -32601,
                            "message": format!("agentgate does not answer `{other}`")}})
                        .to_string(),
                    )],
                }
            }
            // A notification.
            (Some(method), None) => {
                let params = msg.get("params").unwrap_or(&Value::Null);
                match method {
                    "item/started" if str_at(params, "/item/type") == Some("fileChange") => {
                        let paths = params
                            .pointer("/item/changes")
                            .and_then(Value::as_array)
                            .map(|c| {
                                c.iter()
                                    .filter_map(|x| str_at(x, "/path").map(str::to_owned))
                                    .collect()
                            })
                            .unwrap_or_default();
                        if let Some(item) = str_at(params, "/item/id") {
                            self.changes.insert(item.to_owned(), paths);
                        }
                        vec![Inbound::Output(line.to_vec())]
                    }
                    "turn/started" => {
                        self.turn_id = str_at(params, "/turn/id").map(str::to_owned);
                        vec![Inbound::Output(line.to_vec())]
                    }
                    "turn/completed" => {
                        self.turn_id = None;
                        self.changes.clear();
                        vec![Inbound::Output(line.to_vec()), Inbound::TurnEnd]
                    }
                    "serverRequest/resolved" => vec![Inbound::Withdrawn(
                        params.get("requestId").cloned().unwrap_or(Value::Null),
                    )],
                    _ => vec![Inbound::Output(line.to_vec())],
                }
            }
            // A response to the host.
            (None, Some(id)) => {
                if let Some(error) = msg.get("error") {
                    let message = str_at(error, "/message").unwrap_or("an error").to_owned();
                    return vec![Inbound::Refused(message)];
                }
                if id == json!(OPEN_ID)
                    && let Some(thread) = str_at(&msg, "/result/thread/id")
                {
                    self.thread_id = Some(thread.to_owned());
                    return vec![Inbound::Opened {
                        session_id: thread.to_owned(),
                    }];
                }
                if let Some(turn) = str_at(&msg, "/result/turn/id") {
                    self.turn_id = Some(turn.to_owned());
                }
                vec![Inbound::Nothing]
            }
            (None, None) => vec![Inbound::Output(line.to_vec())],
        }
    }

    fn answer(&mut self, ask: &PermissionAsk, answer: &Answer) -> Vec<String> {
        let decision = match answer {
            Answer::Allow => "accept",
            Answer::Deny { .. } => "decline",
        };
        vec![json!({"id": ask.cli_id, "result": {"decision": decision}}).to_string()]
    }

    fn interrupt(&mut self) -> Vec<String> {
        let (Some(thread), Some(turn)) = (self.thread_id.clone(), self.turn_id.clone()) else {
            return Vec::new();
        };
        vec![self.request(
            "turn/interrupt",
            json!({"threadId": thread, "turnId": turn}),
        )]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(resume: Option<&str>) -> CodexThread {
        CodexThread {
            cwd: "/w".into(),
            resume: resume.map(str::to_owned),
            model: Some("gpt-5.5".into()),
            ask: true,
            sandbox: "read-only".into(),
        }
    }

    fn lines(v: Vec<String>) -> Vec<Value> {
        v.iter().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    // Messages as codex 0.169.0 app-server printed them (trimmed).
    const OPENED: &str = r#"{"id":2,"result":{"thread":{"id":"01a212da-5de6-7722-b48f-b0b9a5eac360","status":{"type":"idle"}},"model":"gpt-5.5"}}"#;
    const TURN_STARTED: &str = r#"{"method":"turn/started","params":{"threadId":"01a212da-5de6-7722-b48f-b0b9a5eac360","turn":{"id":"01a212da-5dfd-7632","status":"inProgress"}},"emittedAtMs":1}"#;
    const COMMAND_ASK: &str = r#"{"method":"item/commandExecution/requestApproval","id":3,"params":{"kind":"command","threadId":"t","turnId":"u","itemId":"call_00000000000a","command":"/bin/bash -lc 'echo hi > declined.txt'","cwd":"/w","commandActions":[{"type":"unknown","command":"echo hi > declined.txt"}],"availableDecisions":["accept","cancel"]}}"#;
    const READ_ASK: &str = r#"{"method":"item/commandExecution/requestApproval","id":4,"params":{"itemId":"c2","command":"/bin/bash -lc 'cat input.txt'","commandActions":[{"type":"read","command":"cat input.txt","name":"input.txt","path":"/w/input.txt"}]}}"#;
    const CHANGE_STARTED: &str = r#"{"method":"item/started","params":{"item":{"type":"fileChange","id":"call_000000000019","changes":[{"path":"/w/patched.txt","kind":{"type":"add"},"diff":"hello\n"}],"status":"inProgress"},"threadId":"t","turnId":"u"},"emittedAtMs":2}"#;
    const CHANGE_ASK: &str = r#"{"method":"item/fileChange/requestApproval","id":6,"params":{"threadId":"t","turnId":"u","itemId":"call_000000000019","reason":null,"grantRoot":null}}"#;
    const COMPLETED: &str = r#"{"method":"turn/completed","params":{"threadId":"t","turn":{"id":"01a212da-5dfd-7632","status":"completed","error":null}},"emittedAtMs":3}"#;

    #[test]
    fn a_thread_opens_and_turns_start_on_it() {
        let mut p = CodexWarm::new(thread(None));
        assert!(!p.opened_at_start());
        let open = lines(p.open());
        assert_eq!(open[0]["method"], "initialize");
        assert_eq!(open[1]["method"], "initialized");
        assert_eq!(open[2]["method"], "thread/start");
        assert_eq!(open[2]["params"]["approvalPolicy"], "untrusted");
        assert_eq!(
            p.read(OPENED.as_bytes()),
            [Inbound::Opened {
                session_id: "01a212da-5de6-7722-b48f-b0b9a5eac360".into()
            }]
        );
        let turn = lines(p.turn("hello"));
        assert_eq!(turn[0]["method"], "turn/start");
        assert_eq!(
            turn[0]["params"]["threadId"],
            "01a212da-5de6-7722-b48f-b0b9a5eac360"
        );
        assert_eq!(turn[0]["params"]["input"][0]["text"], "hello");
        assert!(p.interrupt().is_empty(), "no turn runs yet");
        p.read(TURN_STARTED.as_bytes());
        let stop = lines(p.interrupt());
        assert_eq!(stop[0]["method"], "turn/interrupt");
        assert_eq!(stop[0]["params"]["turnId"], "01a212da-5dfd-7632");
        assert_eq!(
            p.read(COMPLETED.as_bytes()),
            [
                Inbound::Output(COMPLETED.as_bytes().to_vec()),
                Inbound::TurnEnd
            ]
        );
        let resumed = lines(CodexWarm::new(thread(Some("t-1"))).open());
        assert_eq!(resumed[2]["method"], "thread/resume");
        assert_eq!(resumed[2]["params"]["threadId"], "t-1");
    }

    fn ask_of(p: &mut CodexWarm, line: &str) -> PermissionAsk {
        match p.read(line.as_bytes()).as_slice() {
            [Inbound::Ask(a)] => a.clone(),
            other => panic!("not an ask: {other:?}"),
        }
    }

    #[test]
    fn approvals_are_asks_answered_accept_or_decline() {
        let mut p = CodexWarm::new(thread(None));
        let ask = ask_of(&mut p, COMMAND_ASK);
        assert_eq!(ask.cli_id, json!(3));
        assert_eq!(ask.call.class, Some(ToolClass::Shell));
        assert_eq!(ask.call.command.as_deref(), Some("echo hi > declined.txt"));
        let read = ask_of(&mut p, READ_ASK);
        assert_eq!(read.call.command.as_deref(), Some("cat input.txt"));
        assert_eq!(read.call.paths, ["/w/input.txt"]);
        p.read(CHANGE_STARTED.as_bytes());
        let change = ask_of(&mut p, CHANGE_ASK);
        assert_eq!(change.call.class, Some(ToolClass::Write));
        assert_eq!(change.call.paths, ["/w/patched.txt"], "from item/started");
        let yes = lines(p.answer(&read, &Answer::Allow));
        assert_eq!(yes[0], json!({"id": 4, "result": {"decision": "accept"}}));
        let no = lines(p.answer(
            &ask,
            &Answer::Deny {
                message: "no".into(),
            },
        ));
        assert_eq!(no[0], json!({"id": 3, "result": {"decision": "decline"}}));
        // Another server request is refused, never left waiting.
        match p
            .read(br#"{"method":"item/tool/requestUserInput","id":9,"params":{}}"#)
            .as_slice()
        {
            [Inbound::Reply(line)] => {
                let v: Value = serde_json::from_str(line).unwrap();
                assert_eq!(v["id"], 9);
                assert!(v["error"]["message"].is_string());
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            p.read(br#"{"id":7,"error":{"code":-32600,"message":"thread not found: x"}}"#),
            [Inbound::Refused("thread not found: x".into())]
        );
    }
}
