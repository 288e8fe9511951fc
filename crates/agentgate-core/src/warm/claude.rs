//! Claude Code's long-lived mode: `claude -p --input-format stream-json
//! --output-format stream-json --verbose`, one user message per stdin line,
//! the same stream-json out as a one-shot run (so the one-shot decoder
//! reads it), one `result` per turn. With `--permission-prompt-tool stdio`
//! it asks before a tool call with a `control_request` of subtype
//! `can_use_tool`, answered on stdin with a `control_response`: an allow
//! must carry `updatedInput` (the input unchanged) and a deny a `message`,
//! else Claude counts the answer as a failure. A turn is interrupted with a
//! `control_request` of subtype `interrupt`; Claude then withdraws its
//! pending request (`control_cancel_request`) and ends the turn with a
//! `result`. Claude never times a request out: the host does.
//!
//! Each turn's user message carries a `uuid` of the host's; Claude then
//! brackets the turn's output with `command_lifecycle` lines naming it
//! (`queued`, `started`, ..., `completed`). Once Claude has printed one,
//! only what comes between this turn's `started` and its `result` (or its
//! `completed`) is the turn's: what an earlier turn prints late (an
//! interrupted turn whose model call was already answering, a second
//! `result`) is dropped, and never read as the next turn's answer. A
//! Claude that prints no lifecycle lines is read as before, a `result`
//! ending the turn.

use serde_json::{Value, json};

use super::protocol::{Answer, Inbound, PermissionAsk, WarmProtocol};
use crate::approvals::{ToolCall, class_of_tool};

/// Claude Code's stream-json protocol (see the module notes).
#[derive(Debug, Default)]
pub struct ClaudeWarm {
    /// Numbers the host's own control requests.
    next_request: u64,
    /// Numbers the turns (the low half of their uuids).
    turns: u64,
    /// The high half of this process's turn uuids.
    uuid_prefix: u64,
    /// The uuid of the turn last started by the host.
    turn_uuid: Option<String>,
    /// Claude brackets turns with `command_lifecycle` lines.
    lifecycle: bool,
    /// Between the current turn's `started` and its end.
    in_turn: bool,
}

impl ClaudeWarm {
    /// A new protocol state.
    pub fn new() -> Self {
        let mut bytes = [0u8; 8];
        // Unique within the process is all a turn's uuid must be: without
        // random bytes, the clock's nanoseconds serve.
        let prefix = match getrandom::fill(&mut bytes) {
            Ok(()) => u64::from_le_bytes(bytes),
            Err(_) => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64),
        };
        Self {
            uuid_prefix: prefix,
            ..Self::default()
        }
    }

    /// The next turn's uuid, in the version-4 form Claude expects.
    fn next_uuid(&mut self) -> String {
        self.turns += 1;
        let hi = self.uuid_prefix;
        let lo = self.turns;
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            hi >> 32,
            (hi >> 16) & 0xffff,
            hi & 0x0fff,
            0x8000 | ((lo >> 48) & 0x3fff),
            lo & 0xffff_ffff_ffff
        )
    }

    /// What a `command_lifecycle` line says of the current turn.
    fn lifecycle_line(&mut self, value: &Value) -> Vec<Inbound> {
        self.lifecycle = true;
        let ours = self.turn_uuid.is_some()
            && value.get("command_uuid").and_then(Value::as_str) == self.turn_uuid.as_deref();
        if !ours {
            return vec![Inbound::Nothing];
        }
        match value.get("state").and_then(Value::as_str) {
            Some("started") => {
                self.in_turn = true;
                vec![Inbound::Nothing]
            }
            // Ended without a `result` the host saw: the turn ends here.
            Some("completed" | "failed" | "cancelled" | "interrupted") if self.in_turn => {
                self.in_turn = false;
                vec![Inbound::TurnEnd]
            }
            _ => vec![Inbound::Nothing],
        }
    }
}

/// The paths a Claude tool's input names.
fn paths_of(input: &Value) -> Vec<String> {
    ["file_path", "notebook_path", "path"]
        .iter()
        .filter_map(|k| input.get(k).and_then(Value::as_str))
        .map(str::to_owned)
        .collect()
}

impl WarmProtocol for ClaudeWarm {
    fn open(&mut self) -> Vec<String> {
        Vec::new()
    }

    fn turn(&mut self, prompt: &str) -> Vec<String> {
        let uuid = self.next_uuid();
        self.turn_uuid = Some(uuid.clone());
        self.in_turn = false;
        vec![
            json!({"type": "user", "message": {"role": "user", "content": prompt}, "uuid": uuid})
                .to_string(),
        ]
    }

    fn read(&mut self, line: &[u8]) -> Vec<Inbound> {
        let Ok(value) = serde_json::from_slice::<Value>(line) else {
            return vec![Inbound::Output(line.to_vec())];
        };
        match value.get("type").and_then(Value::as_str) {
            Some("control_request") => {
                let id = value.get("request_id").cloned().unwrap_or(Value::Null);
                let request = value.get("request").unwrap_or(&Value::Null);
                match request.get("subtype").and_then(Value::as_str) {
                    Some("can_use_tool") => {
                        let tool = request
                            .get("tool_name")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_owned();
                        let input = request.get("input").cloned().unwrap_or(Value::Null);
                        let command = input
                            .get("command")
                            .and_then(Value::as_str)
                            .map(str::to_owned);
                        let mut paths = paths_of(&input);
                        if let Some(blocked) = request.get("blocked_path").and_then(Value::as_str)
                            && !paths.iter().any(|p| p == blocked)
                        {
                            paths.push(blocked.to_owned());
                        }
                        vec![Inbound::Ask(PermissionAsk {
                            cli_id: id,
                            call: ToolCall {
                                class: Some(class_of_tool(&tool)),
                                tool,
                                paths,
                                command,
                            },
                            input,
                            tool_use_id: request
                                .get("tool_use_id")
                                .and_then(Value::as_str)
                                .map(str::to_owned),
                        })]
                    }
                    other => vec![Inbound::Reply(
                        json!({"type": "control_response", "response": {
                            "subtype": "error", "request_id": id,
                            "error": format!("agentgate does not support `{}`", other.unwrap_or("?")),
                        }})
                        .to_string(),
                    )],
                }
            }
            Some("control_cancel_request") => vec![Inbound::Withdrawn(
                value.get("request_id").cloned().unwrap_or(Value::Null),
            )],
            Some("control_response") => vec![Inbound::Nothing],
            Some("command_lifecycle") => self.lifecycle_line(&value),
            // Outside the current turn: an earlier turn's late output.
            _ if self.lifecycle && !self.in_turn => vec![Inbound::Nothing],
            Some("result") => {
                self.in_turn = false;
                vec![Inbound::Output(line.to_vec()), Inbound::TurnEnd]
            }
            _ => vec![Inbound::Output(line.to_vec())],
        }
    }

    fn answer(&mut self, ask: &PermissionAsk, answer: &Answer) -> Vec<String> {
        let response = match answer {
            Answer::Allow => json!({"behavior": "allow", "updatedInput": ask.input}),
            Answer::Deny { message } => json!({"behavior": "deny", "message": message}),
        };
        vec![
            json!({"type": "control_response", "response": {
                "subtype": "success", "request_id": ask.cli_id, "response": response,
            }})
            .to_string(),
        ]
    }

    fn interrupt(&mut self) -> Vec<String> {
        self.next_request += 1;
        vec![
            json!({"type": "control_request",
                   "request_id": format!("agentgate-interrupt-{}", self.next_request),
                   "request": {"subtype": "interrupt"}})
            .to_string(),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approvals::ToolClass;

    // Lines as Claude Code 2.1.197 printed them (trimmed of fields the
    // host does not read).
    const WRITE_ASK: &str = r#"{"type":"control_request","request_id":"f2042044-b93c-4d42-b736-7c13e0908a20","request":{"subtype":"can_use_tool","tool_name":"Write","display_name":"Write","input":{"file_path":"/w/denied.txt","content":"should not exist\n"},"description":"denied.txt","permission_suggestions":[{"type":"setMode","mode":"acceptEdits","destination":"session"}],"tool_use_id":"call_000000000001"}}"#;
    const BASH_ASK: &str = r#"{"type":"control_request","request_id":"cb638e27","request":{"subtype":"can_use_tool","tool_name":"Bash","display_name":"Bash","input":{"command":"echo hi > bash.txt"},"description":"echo hi > bash.txt","permission_suggestions":[],"blocked_path":"/w/bash.txt","tool_use_id":"call_000000000010"}}"#;
    const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"done","session_id":"s1","usage":{"input_tokens":10,"output_tokens":2}}"#;

    fn ask_of(line: &str) -> PermissionAsk {
        match ClaudeWarm::new().read(line.as_bytes()).as_slice() {
            [Inbound::Ask(ask)] => ask.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_can_use_tool_request_is_an_ask_with_its_paths_and_command() {
        let ask = ask_of(WRITE_ASK);
        assert_eq!(ask.cli_id, json!("f2042044-b93c-4d42-b736-7c13e0908a20"));
        assert_eq!(ask.call.tool, "Write");
        assert_eq!(ask.call.class, Some(ToolClass::Write));
        assert_eq!(ask.call.paths, ["/w/denied.txt"]);
        assert_eq!(ask.tool_use_id.as_deref(), Some("call_000000000001"));
        let bash = ask_of(BASH_ASK);
        assert_eq!(bash.call.class, Some(ToolClass::Shell));
        assert_eq!(bash.call.command.as_deref(), Some("echo hi > bash.txt"));
        assert_eq!(bash.call.paths, ["/w/bash.txt"], "the blocked path");
    }

    #[test]
    fn answers_carry_what_claude_requires() {
        let mut p = ClaudeWarm::new();
        let ask = ask_of(WRITE_ASK);
        let allow: Value = serde_json::from_str(&p.answer(&ask, &Answer::Allow)[0]).unwrap();
        assert_eq!(allow["type"], "control_response");
        assert_eq!(allow["response"]["request_id"], ask.cli_id);
        assert_eq!(allow["response"]["response"]["behavior"], "allow");
        assert_eq!(allow["response"]["response"]["updatedInput"], ask.input);
        let deny: Value = serde_json::from_str(
            &p.answer(
                &ask,
                &Answer::Deny {
                    message: "no writes".into(),
                },
            )[0],
        )
        .unwrap();
        assert_eq!(deny["response"]["response"]["behavior"], "deny");
        assert_eq!(deny["response"]["response"]["message"], "no writes");
    }

    #[test]
    fn a_result_ends_the_turn_and_other_requests_are_refused() {
        let mut p = ClaudeWarm::new();
        assert_eq!(
            p.read(RESULT.as_bytes()),
            [
                Inbound::Output(RESULT.as_bytes().to_vec()),
                Inbound::TurnEnd
            ]
        );
        let init = br#"{"type":"system","subtype":"init","session_id":"s1"}"#;
        assert_eq!(p.read(init), [Inbound::Output(init.to_vec())]);
        let hook = br#"{"type":"control_request","request_id":"h1","request":{"subtype":"hook_callback"}}"#;
        match p.read(hook).as_slice() {
            [Inbound::Reply(line)] => {
                let v: Value = serde_json::from_str(line).unwrap();
                assert_eq!(v["response"]["subtype"], "error");
                assert_eq!(v["response"]["request_id"], "h1");
            }
            other => panic!("{other:?}"),
        }
        let cancel = br#"{"type":"control_cancel_request","request_id":"f1"}"#;
        assert_eq!(p.read(cancel), [Inbound::Withdrawn(json!("f1"))]);
        assert_eq!(p.read(b"not json"), [Inbound::Output(b"not json".to_vec())]);
    }

    fn lifecycle(uuid: &str, state: &str) -> Vec<u8> {
        json!({"type": "command_lifecycle", "command_uuid": uuid, "state": state})
            .to_string()
            .into_bytes()
    }

    fn outputs(p: &mut ClaudeWarm, lines: &[Vec<u8>]) -> Vec<Inbound> {
        lines.iter().flat_map(|l| p.read(l)).collect()
    }

    /// An earlier turn's late output (its answer and a second `result`,
    /// printed after the host ended that turn) is not the next turn's:
    /// only what follows the next turn's own `started` is.
    #[test]
    fn a_late_answer_of_an_earlier_turn_is_dropped() {
        let mut p = ClaudeWarm::new();
        let first: Value = serde_json::from_str(&p.turn("one")[0]).unwrap();
        let one = first["uuid"].as_str().unwrap().to_owned();
        let answer = |text: &str| {
            json!({"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}})
                .to_string()
                .into_bytes()
        };
        let result = RESULT.as_bytes().to_vec();
        let turn_one = outputs(
            &mut p,
            &[
                lifecycle(&one, "queued"),
                lifecycle(&one, "started"),
                result.clone(),
            ],
        );
        assert_eq!(
            turn_one,
            [
                Inbound::Nothing,
                Inbound::Nothing,
                Inbound::Output(result.clone()),
                Inbound::TurnEnd
            ]
        );
        let second: Value = serde_json::from_str(&p.turn("two")[0]).unwrap();
        let two = second["uuid"].as_str().unwrap().to_owned();
        assert_ne!(one, two);
        let stale = answer("Filed it somewhere.");
        let fresh = answer("the second answer");
        let turn_two = outputs(
            &mut p,
            &[
                stale.clone(),
                result.clone(),
                lifecycle(&one, "completed"),
                lifecycle(&two, "started"),
                fresh.clone(),
                result.clone(),
                lifecycle(&two, "completed"),
            ],
        );
        let kept: Vec<&Inbound> = turn_two
            .iter()
            .filter(|i| **i != Inbound::Nothing)
            .collect();
        assert_eq!(
            kept,
            [
                &Inbound::Output(fresh),
                &Inbound::Output(result),
                &Inbound::TurnEnd
            ],
            "{turn_two:?}"
        );
    }

    /// A turn that Claude ends without a `result` ends at its `completed`.
    #[test]
    fn a_turn_ends_at_its_completed_without_a_result() {
        let mut p = ClaudeWarm::new();
        let first: Value = serde_json::from_str(&p.turn("one")[0]).unwrap();
        let one = first["uuid"].as_str().unwrap().to_owned();
        assert_eq!(p.read(&lifecycle(&one, "started")), [Inbound::Nothing]);
        assert_eq!(p.read(&lifecycle(&one, "completed")), [Inbound::TurnEnd]);
        // Said once only.
        assert_eq!(p.read(&lifecycle(&one, "completed")), [Inbound::Nothing]);
    }

    #[test]
    fn turns_and_interrupts_are_one_line_each() {
        let mut p = ClaudeWarm::new();
        let turn: Value = serde_json::from_str(&p.turn("hello \"you\"")[0]).unwrap();
        assert_eq!(turn["message"]["content"], "hello \"you\"");
        let uuid = turn["uuid"].as_str().unwrap();
        assert_eq!(
            (uuid.len(), &uuid[14..15], &uuid[8..9]),
            (36, "4", "-"),
            "{uuid}"
        );
        let a: Value = serde_json::from_str(&p.interrupt()[0]).unwrap();
        let b: Value = serde_json::from_str(&p.interrupt()[0]).unwrap();
        assert_eq!(a["request"]["subtype"], "interrupt");
        assert_ne!(a["request_id"], b["request_id"]);
    }
}
