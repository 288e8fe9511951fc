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

use serde_json::{Value, json};

use super::protocol::{Answer, Inbound, PermissionAsk, WarmProtocol};
use crate::approvals::{ToolCall, class_of_tool};

/// Claude Code's stream-json protocol (see the module notes).
#[derive(Debug, Default)]
pub struct ClaudeWarm {
    /// Numbers the host's own control requests.
    next_request: u64,
}

impl ClaudeWarm {
    /// A new protocol state.
    pub fn new() -> Self {
        Self::default()
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
        vec![json!({"type": "user", "message": {"role": "user", "content": prompt}}).to_string()]
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
            Some("result") => vec![Inbound::Output(line.to_vec()), Inbound::TurnEnd],
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

    #[test]
    fn turns_and_interrupts_are_one_line_each() {
        let mut p = ClaudeWarm::new();
        let turn: Value = serde_json::from_str(&p.turn("hello \"you\"")[0]).unwrap();
        assert_eq!(turn["message"]["content"], "hello \"you\"");
        let a: Value = serde_json::from_str(&p.interrupt()[0]).unwrap();
        let b: Value = serde_json::from_str(&p.interrupt()[0]).unwrap();
        assert_eq!(a["request"]["subtype"], "interrupt");
        assert_ne!(a["request_id"], b["request_id"]);
    }
}
