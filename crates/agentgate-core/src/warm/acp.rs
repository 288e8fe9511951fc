//! The Agent Client Protocol, as Gemini CLI (`gemini --acp`), Qwen Code
//! (`qwen --acp`) and opencode (`opencode acp`) speak it: JSON-RPC 2.0
//! over stdio, one message per line. The host opens with `initialize` and
//! `session/new` (or, by session id, `session/load`; for opencode
//! `session/resume`, see [`Reopen`]), starts each turn with `session/prompt`,
//! whose response (a `stopReason`, or an error) ends the turn; in between
//! the agent sends `session/update` notifications. Before a tool call it
//! may send `session/request_permission` with options; the host answers by
//! the option's `kind` (`allow_once`, `reject_once`), since option ids
//! differ per agent. Cancelling is the `session/cancel` notification plus
//! the answer `cancelled` to every pending request: without the latter
//! neither agent ends the turn. The host declares no file system
//! capability (tools use the disk themselves) and refuses any request of
//! the agent other than a permission request. While a `session/load`
//! replays the history, its updates are not the turn's: they are dropped
//! until the load's response, and after it until the process reports the
//! replay done (Gemini CLI goes on replaying after its response; the
//! process waits for the output to go quiet, see
//! [`WarmProtocol::replays_after_open`]).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::protocol::{Answer, Inbound, PermissionAsk, WarmProtocol};
use crate::approvals::{ToolCall, ToolClass, class_of_acp_kind};

/// The id of the host's `session/new` or `session/load` request.
const OPEN_ID: u64 = 2;

/// How an agent takes up an earlier session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reopen {
    /// `session/load`, which replays the history (Gemini CLI, Qwen Code).
    Load,
    /// `session/resume`, which replays nothing (opencode, whose
    /// `session/load` stops mid-replay until more input arrives).
    Resume,
}

/// An ACP agent's protocol (see the module notes).
#[derive(Debug)]
pub struct AcpWarm {
    cwd: String,
    resume: Option<String>,
    reopen: Reopen,
    /// The model the session must have (`provider/model`), checked in the
    /// open response's `configOptions` (opencode takes its model from its
    /// config, and falls back to another one it knows).
    model: Option<String>,
    /// The reasoning variant to select once the session is open
    /// (opencode's `effort` config option, what `opencode run --variant`
    /// sets), and the id of that request while it is answered.
    effort: Option<String>,
    effort_id: Option<u64>,
    session_id: Option<String>,
    /// The id of the running `session/prompt`.
    prompt_id: Option<u64>,
    next_id: u64,
    /// The agent's permission requests not answered yet.
    pending: BTreeSet<String>,
    /// A loaded session's replay may still be arriving.
    replaying: bool,
}

impl AcpWarm {
    /// A session in `cwd`: `resume` loads that session, else a new one.
    pub fn new(cwd: &str, resume: Option<&str>) -> Self {
        AcpWarm {
            cwd: cwd.to_owned(),
            resume: resume.map(str::to_owned),
            reopen: Reopen::Load,
            model: None,
            effort: None,
            effort_id: None,
            session_id: None,
            prompt_id: None,
            next_id: OPEN_ID + 1,
            pending: BTreeSet::new(),
            replaying: false,
        }
    }

    /// opencode's: `resume` is taken up with `session/resume`, the
    /// session must have `model` when one is asked for, and `effort` (the
    /// run's `--reasoning-effort`) selects the model's variant of that
    /// name with `session/set_config_option` (`configId: effort`) before
    /// the session counts as open. A variant the model lacks is refused by
    /// opencode and the turn goes on without one, as `opencode run
    /// --variant` does.
    pub fn opencode(
        cwd: &str,
        resume: Option<&str>,
        model: Option<&str>,
        effort: Option<&str>,
    ) -> Self {
        AcpWarm {
            reopen: Reopen::Resume,
            model: model.map(str::to_owned),
            effort: effort.map(str::to_owned),
            ..AcpWarm::new(cwd, resume)
        }
    }

    /// The request selecting the effort variant of the open session, if
    /// one is asked for and not sent yet.
    fn select_effort(&mut self, session: &str) -> Option<String> {
        let effort = self.effort.take()?;
        let id = self.next_id;
        self.next_id += 1;
        self.effort_id = Some(id);
        Some(
            json!({"jsonrpc": "2.0", "id": id, "method": "session/set_config_option",
                "params": {"sessionId": session, "configId": "effort", "value": effort}})
            .to_string(),
        )
    }

    /// Why the open response's session cannot be used: its model is not
    /// the one asked for.
    fn wrong_model(&self, result: Option<&Value>) -> Option<String> {
        let wanted = self.model.as_deref()?;
        let options = result?.get("configOptions")?.as_array()?;
        let current = options
            .iter()
            .find(|o| o.get("id").and_then(Value::as_str) == Some("model"))?
            .get("currentValue")?
            .as_str()?;
        (current != wanted).then(|| {
            format!(
                "the model is unknown: the session got `{current}`, not `{wanted}` (a model is `provider/model` of a provider in the CLI's config)"
            )
        })
    }

    fn loading(&self) -> bool {
        (self.resume.is_some() && self.session_id.is_none()) || self.replaying
    }
}

fn rpc(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// The option of `kind` among a request's options.
fn option_of(params: &Value, kinds: &[&str]) -> Option<String> {
    let options = params.get("options")?.as_array()?;
    kinds.iter().find_map(|kind| {
        options
            .iter()
            .find(|o| o.get("kind").and_then(Value::as_str) == Some(kind))
            .and_then(|o| o.get("optionId").and_then(Value::as_str))
            .map(str::to_owned)
    })
}

impl WarmProtocol for AcpWarm {
    fn open(&mut self) -> Vec<String> {
        let reopen = match self.reopen {
            Reopen::Load => "session/load",
            Reopen::Resume => "session/resume",
        };
        let open = match &self.resume {
            Some(id) => json!({"jsonrpc": "2.0", "id": OPEN_ID, "method": reopen,
                "params": {"sessionId": id, "cwd": self.cwd, "mcpServers": []}}),
            None => json!({"jsonrpc": "2.0", "id": OPEN_ID, "method": "session/new",
                "params": {"cwd": self.cwd, "mcpServers": []}}),
        };
        vec![
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": 1,
                "clientInfo": {"name": "agentgate", "version": env!("CARGO_PKG_VERSION")},
                "clientCapabilities": {},
            }})
            .to_string(),
            open.to_string(),
        ]
    }

    fn opened_at_start(&self) -> bool {
        false
    }

    fn replays_after_open(&self) -> bool {
        self.replaying
    }

    fn replay_done(&mut self) {
        self.replaying = false;
    }

    fn turn(&mut self, prompt: &str) -> Vec<String> {
        self.replaying = false;
        let id = self.next_id;
        self.next_id += 1;
        self.prompt_id = Some(id);
        let session = self.session_id.clone().unwrap_or_default();
        vec![
            json!({"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": {
                "sessionId": session, "prompt": [{"type": "text", "text": prompt}],
            }})
            .to_string(),
        ]
    }

    fn read(&mut self, line: &[u8]) -> Vec<Inbound> {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else {
            return vec![Inbound::Output(line.to_vec())];
        };
        let method = msg.get("method").and_then(Value::as_str);
        match (method, msg.get("id").cloned()) {
            (Some("session/request_permission"), Some(id)) => {
                let params = msg.get("params").cloned().unwrap_or(Value::Null);
                let call = params.get("toolCall").unwrap_or(&Value::Null);
                let raw = call.get("rawInput").unwrap_or(&Value::Null);
                let kind = call.get("kind").and_then(Value::as_str);
                let name = call
                    .pointer("/_meta/toolName")
                    .and_then(Value::as_str)
                    .or(kind)
                    .unwrap_or("tool")
                    .to_owned();
                let class = class_of_acp_kind(kind, &name);
                let paths: Vec<String> = call
                    .get("locations")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .filter_map(|x| x.get("path").and_then(Value::as_str))
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                let command = raw
                    .get("command")
                    .and_then(Value::as_str)
                    .or_else(|| {
                        (class == ToolClass::Shell)
                            .then(|| call.get("title").and_then(Value::as_str))
                            .flatten()
                    })
                    .map(str::to_owned);
                self.pending.insert(id.to_string());
                vec![Inbound::Ask(PermissionAsk {
                    cli_id: id,
                    call: ToolCall {
                        tool: name,
                        class: Some(class),
                        paths,
                        command,
                    },
                    tool_use_id: call
                        .get("toolCallId")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    input: params,
                })]
            }
            (Some(other), Some(id)) => vec![Inbound::Reply(
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601,
                    "message": format!("agentgate does not answer `{other}`")}})
                .to_string(),
            )],
            (Some(_), None) if self.loading() => vec![Inbound::Nothing],
            (Some(_), None) => vec![Inbound::Output(line.to_vec())],
            (None, Some(id)) => {
                if id == json!(OPEN_ID) {
                    if let Some(error) = msg.get("error") {
                        let message = error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("an error")
                            .to_owned();
                        return vec![Inbound::Refused(message)];
                    }
                    if let Some(why) = self.wrong_model(msg.get("result")) {
                        return vec![Inbound::WrongModel(why)];
                    }
                    let session = msg
                        .pointer("/result/sessionId")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .or_else(|| self.resume.clone())
                        .unwrap_or_default();
                    self.session_id = Some(session.clone());
                    self.replaying = self.resume.is_some() && self.reopen == Reopen::Load;
                    if let Some(select) = self.select_effort(&session) {
                        return vec![Inbound::Reply(select)];
                    }
                    return vec![Inbound::Opened {
                        session_id: session,
                    }];
                }
                if self.effort_id.is_some() && id == json!(self.effort_id) {
                    // Selected, or refused (no such variant): open either way.
                    self.effort_id = None;
                    return vec![Inbound::Opened {
                        session_id: self.session_id.clone().unwrap_or_default(),
                    }];
                }
                if self.prompt_id.is_some() && id == json!(self.prompt_id) {
                    self.prompt_id = None;
                    self.pending.clear();
                    return vec![Inbound::Output(line.to_vec()), Inbound::TurnEnd];
                }
                vec![Inbound::Nothing]
            }
            (None, None) => vec![Inbound::Output(line.to_vec())],
        }
    }

    fn answer(&mut self, ask: &PermissionAsk, answer: &Answer) -> Vec<String> {
        self.pending.remove(&ask.cli_id.to_string());
        let (kinds, fallback): (&[&str], &str) = match answer {
            Answer::Allow => (&["allow_once", "allow_always"], "proceed_once"),
            Answer::Deny { .. } => (&["reject_once", "reject_always"], "cancel"),
        };
        let outcome = match option_of(&ask.input, kinds) {
            Some(option) => json!({"outcome": "selected", "optionId": option}),
            // No such option: a denial is a cancel; an allow without an
            // allow option cannot be given.
            None if matches!(answer, Answer::Deny { .. }) => json!({"outcome": "cancelled"}),
            None => json!({"outcome": "selected", "optionId": fallback}),
        };
        vec![rpc(&ask.cli_id, json!({"outcome": outcome}))]
    }

    fn interrupt(&mut self) -> Vec<String> {
        let Some(session) = self.session_id.clone() else {
            return Vec::new();
        };
        let mut lines = vec![
            json!({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}})
                .to_string(),
        ];
        for id in std::mem::take(&mut self.pending) {
            let id: Value = serde_json::from_str(&id).unwrap_or(Value::Null);
            lines.push(rpc(&id, json!({"outcome": {"outcome": "cancelled"}})));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(v: Vec<String>) -> Vec<Value> {
        v.iter().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    // As Gemini CLI 0.61.0 and Qwen Code 0.15.10 printed them (trimmed).
    const NEW: &str = r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"8b025eb9-5b7c-4912-87e3-fd92d0407781","modes":{"currentModeId":"default"}}}"#;
    const CHUNK: &str = r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"8b025eb9","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello "}}}}"#;
    const DONE: &str = r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","_meta":{"quota":{"token_count":{"input_tokens":120,"output_tokens":7}}}}}"#;
    const GEMINI_WRITE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"f532d9ae","options":[{"optionId":"proceed_always","name":"Allow for this session","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}],"toolCall":{"toolCallId":"write_file__call_000000000001","status":"pending","title":"Writing to rejected.txt","content":[{"type":"diff","path":"/w/rejected.txt","oldText":"","newText":"x"}],"locations":[{"path":"/w/rejected.txt"}],"kind":"edit"}}}"#;
    const QWEN_SHELL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"session/request_permission","params":{"sessionId":"55f7e159","options":[{"optionId":"proceed_always_project","name":"Always Allow in project: touch *","kind":"allow_always"},{"optionId":"proceed_once","name":"Allow","kind":"allow_once"},{"optionId":"cancel","name":"Reject","kind":"reject_once"}],"toolCall":{"toolCallId":"call_000000000007","status":"pending","title":"touch shell-made.txt && echo made","content":[],"locations":[],"kind":"execute","rawInput":{"command":"touch shell-made.txt && echo made"}}}}"#;

    fn ask_of(p: &mut AcpWarm, line: &str) -> PermissionAsk {
        match p.read(line.as_bytes()).as_slice() {
            [Inbound::Ask(a)] => a.clone(),
            other => panic!("not an ask: {other:?}"),
        }
    }

    #[test]
    fn a_session_opens_prompts_and_ends_its_turn_with_the_response() {
        let mut p = AcpWarm::new("/w", None);
        let open = lines(p.open());
        assert_eq!(open[0]["method"], "initialize");
        assert_eq!(open[0]["params"]["protocolVersion"], 1);
        assert_eq!(open[1]["method"], "session/new");
        assert_eq!(
            p.read(NEW.as_bytes()),
            [Inbound::Opened {
                session_id: "8b025eb9-5b7c-4912-87e3-fd92d0407781".into()
            }]
        );
        let turn = lines(p.turn("TURN1"));
        assert_eq!(turn[0]["id"], 3);
        assert_eq!(turn[0]["params"]["prompt"][0]["text"], "TURN1");
        assert_eq!(
            p.read(CHUNK.as_bytes()),
            [Inbound::Output(CHUNK.as_bytes().to_vec())]
        );
        assert_eq!(
            p.read(DONE.as_bytes()),
            [Inbound::Output(DONE.as_bytes().to_vec()), Inbound::TurnEnd]
        );
    }

    #[test]
    fn opencode_resumes_without_a_replay_and_checks_the_sessions_model() {
        // As opencode 1.18.33 answered (trimmed).
        let opened = |model: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":2,"result":{{"sessionId":"ses_1","configOptions":[{{"id":"model","category":"model","type":"select","currentValue":"{model}","options":[]}}]}}}}"#
            )
        };
        let mut p = AcpWarm::opencode("/w", Some("ses_1"), Some("fake/m1"), None);
        let open = lines(p.open());
        assert_eq!(open[1]["method"], "session/resume");
        assert_eq!(open[1]["params"]["sessionId"], "ses_1");
        assert_eq!(
            p.read(opened("fake/m1").as_bytes()),
            [Inbound::Opened {
                session_id: "ses_1".into()
            }]
        );
        assert!(!p.replays_after_open(), "session/resume replays nothing");
        assert_eq!(
            p.read(CHUNK.as_bytes()),
            [Inbound::Output(CHUNK.as_bytes().to_vec())]
        );
        // A model opencode does not know: it falls back to another one,
        // and the session is refused.
        let mut q = AcpWarm::opencode("/w", None, Some("fake/m1"), None);
        assert_eq!(lines(q.open())[1]["method"], "session/new");
        match q.read(opened("opencode/big-pickle").as_bytes()).as_slice() {
            [Inbound::WrongModel(why)] => {
                assert!(
                    why.contains("`opencode/big-pickle`, not `fake/m1`"),
                    "{why}"
                );
            }
            other => panic!("{other:?}"),
        }
        // No model asked for: whatever its config chose.
        let mut r = AcpWarm::opencode("/w", None, None, None);
        r.open();
        assert!(matches!(
            r.read(opened("opencode/big-pickle").as_bytes()).as_slice(),
            [Inbound::Opened { .. }]
        ));
    }

    #[test]
    fn a_load_drops_the_replayed_history_until_its_response() {
        let mut p = AcpWarm::new("/w", Some("s-1"));
        let open = lines(p.open());
        assert_eq!(open[1]["method"], "session/load");
        assert_eq!(open[1]["params"]["sessionId"], "s-1");
        assert_eq!(p.read(CHUNK.as_bytes()), [Inbound::Nothing], "a replay");
        assert_eq!(
            p.read(br#"{"jsonrpc":"2.0","id":2,"result":null}"#),
            [Inbound::Opened {
                session_id: "s-1".into()
            }]
        );
        // Gemini goes on replaying after its response, until the process
        // reports the output quiet.
        assert!(p.replays_after_open());
        assert_eq!(
            p.read(CHUNK.as_bytes()),
            [Inbound::Nothing],
            "still a replay"
        );
        p.replay_done();
        assert!(!p.replays_after_open());
        assert_eq!(
            p.read(CHUNK.as_bytes()),
            [Inbound::Output(CHUNK.as_bytes().to_vec())]
        );
        let mut q = AcpWarm::new("/w", Some("gone"));
        q.open();
        assert_eq!(
            q.read(br#"{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"No previous sessions found for this project."}}"#),
            [Inbound::Refused("No previous sessions found for this project.".into())]
        );
    }

    #[test]
    fn permission_requests_are_answered_by_the_options_kind() {
        let mut p = AcpWarm::new("/w", None);
        p.open();
        p.read(NEW.as_bytes());
        let write = ask_of(&mut p, GEMINI_WRITE);
        assert_eq!(write.call.class, Some(ToolClass::Write));
        assert_eq!(write.call.paths, ["/w/rejected.txt"]);
        let shell = ask_of(&mut p, QWEN_SHELL);
        assert_eq!(shell.call.class, Some(ToolClass::Shell));
        assert_eq!(
            shell.call.command.as_deref(),
            Some("touch shell-made.txt && echo made")
        );
        let no = lines(p.answer(
            &write,
            &Answer::Deny {
                message: "no".into(),
            },
        ));
        assert_eq!(
            no[0]["result"]["outcome"],
            json!({"outcome": "selected", "optionId": "cancel"})
        );
        // Cancelling answers what is still pending, then nothing more.
        p.turn("x");
        let stop = lines(p.interrupt());
        assert_eq!(stop[0]["method"], "session/cancel");
        assert!(stop[0].get("id").is_none(), "a notification");
        assert_eq!(stop.len(), 2, "{stop:?}");
        assert_eq!(stop[1]["id"], 1);
        assert_eq!(stop[1]["result"]["outcome"]["outcome"], "cancelled");
        let yes = lines(p.answer(&shell, &Answer::Allow));
        assert_eq!(yes[0]["result"]["outcome"]["optionId"], "proceed_once");
        // Any other request of the agent is refused.
        match p
            .read(br#"{"jsonrpc":"2.0","id":5,"method":"fs/write_text_file","params":{}}"#)
            .as_slice()
        {
            [Inbound::Reply(line)] => {
                let v: Value = serde_json::from_str(line).unwrap();
                assert_eq!(v["id"], 5);
                assert_eq!(v["error"]["code"], -32601);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn opencode_selects_the_effort_variant_before_the_session_counts_as_open() {
        let mut p = AcpWarm::opencode("/w", None, None, Some("high"));
        p.open();
        let opened =
            r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"ses_9","configOptions":[]}}"#;
        let select = match p.read(opened.as_bytes()).as_slice() {
            [Inbound::Reply(line)] => serde_json::from_str::<Value>(line).unwrap(),
            other => panic!("no selection: {other:?}"),
        };
        assert_eq!(select["method"], "session/set_config_option");
        assert_eq!(
            select["params"],
            json!({"sessionId": "ses_9", "configId": "effort", "value": "high"})
        );
        // Answered (here refused: the model has no such variant): open.
        let answer = json!({"jsonrpc": "2.0", "id": select["id"], "error": {"code": -32602, "message": "no variant"}});
        assert_eq!(
            p.read(answer.to_string().as_bytes()),
            [Inbound::Opened {
                session_id: "ses_9".into()
            }]
        );
        let turn = lines(p.turn("go"));
        assert_eq!(turn[0]["method"], "session/prompt");
        assert_ne!(turn[0]["id"], select["id"]);
        // Without an effort, the open response opens the session at once.
        let mut q = AcpWarm::opencode("/w", None, None, None);
        q.open();
        assert_eq!(
            q.read(opened.as_bytes()),
            [Inbound::Opened {
                session_id: "ses_9".into()
            }]
        );
    }
}
