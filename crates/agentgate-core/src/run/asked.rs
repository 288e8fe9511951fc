//! An agent that asks its user a question in an unattended run: the call of
//! a CLI's ask tool (`agentgate_providers::decode::tools::ASK_USER_TOOLS`)
//! stops the CLI at once and ends the attempt with `user_input_requested`,
//! instead of a wait that only a timeout would end. A one-shot attempt
//! (`attempt.rs`) stops the process; a warm turn, `ask` mode's included
//! (`warm_attempt.rs`), interrupts the turn over the wire (the process
//! lives on for the next turn), also when the ask tool's call comes as a
//! permission request, which is then refused rather than put to the
//! approval policy. The signal is the
//! structured tool call, never the wording of an answer, so an answer that
//! merely contains a question mark is never taken for one.

use agentgate_protocol::{ErrorInfo, ErrorKind, ErrorSource, EventBody};
use agentgate_providers::decode::tools::asks_the_user;
use serde_json::Value;

/// What the agent is told when its question comes as a permission request
/// (a warm turn), before the turn is stopped.
pub(super) const UNATTENDED_REFUSAL: &str =
    "This run is unattended: nobody can answer a question. The turn is stopped.";

/// How many characters of the question the error message quotes.
const QUESTION_MAX_CHARS: usize = 200;

/// The error of an attempt whose agent asked, when `body` is such a call.
pub(super) fn question_asked(provider: &str, body: &EventBody) -> Option<ErrorInfo> {
    let EventBody::ToolUse(call) = body else {
        return None;
    };
    question_in_call(provider, &call.name, &call.input)
}

/// The error of an attempt whose agent called tool `name` with `input`,
/// when it is an ask tool.
pub(super) fn question_in_call(provider: &str, name: &str, input: &Value) -> Option<ErrorInfo> {
    if !asks_the_user(name) {
        return None;
    }
    let question = first_question(input).unwrap_or_else(|| input.to_string());
    let question: String = question.chars().take(QUESTION_MAX_CHARS).collect();
    Some(ErrorInfo::new(
        ErrorKind::UserInputRequested,
        ErrorSource::Internal,
        format!(
            "{provider} asked the user a question ({name} {question:?}), and nobody answers an unattended run: it was stopped (give the agent what it needs in the prompt or its instructions)",
        ),
    ))
}

/// The first text under a `question` key (Claude's and Codex's
/// `questions: [{question}]`, Gemini's `question`), depth first.
fn first_question(v: &Value) -> Option<String> {
    match v {
        Value::Object(map) => map
            .get("question")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| map.values().find_map(first_question)),
        Value::Array(items) => items.iter().find_map(first_question),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use agentgate_protocol::{ToolClass, ToolUseEvent};
    use serde_json::json;

    use super::*;

    fn call(name: &str, input: Value) -> EventBody {
        EventBody::ToolUse(ToolUseEvent {
            id: "t1".into(),
            name: name.into(),
            class: ToolClass::Other,
            input,
        })
    }

    #[test]
    fn an_ask_tool_call_is_a_typed_failure_quoting_the_question() {
        let input = json!({"questions": [{"question": "Which folder?", "header": "Folder", "options": []}]});
        let e = question_asked("claude", &call("AskUserQuestion", input)).unwrap();
        assert_eq!(e.kind, ErrorKind::UserInputRequested);
        assert!(e.recoverable);
        assert!(e.message.contains("\"Which folder?\""), "{}", e.message);
        assert!(e.message.contains("AskUserQuestion"), "{}", e.message);
        let e = question_asked("gemini", &call("ask_user", json!({"x": 1}))).unwrap();
        assert!(e.message.contains(r#"{\"x\":1}"#), "{}", e.message);
    }

    #[test]
    fn other_tools_and_answers_that_ask_are_not_questions() {
        assert!(question_asked("claude", &call("Bash", json!({"command": "ls"}))).is_none());
        let text = EventBody::Message(agentgate_protocol::MessageEvent {
            text: "Shall I file it under roses?".into(),
        });
        assert!(question_asked("claude", &text).is_none());
    }

    #[test]
    fn a_call_given_by_name_and_input_is_a_question_too() {
        // A warm turn's permission request carries the call apart.
        let input = json!({"question": "Which folder?"});
        let e = question_in_call("qwen", "ask_user", &input).unwrap();
        assert_eq!(e.kind, ErrorKind::UserInputRequested);
        assert!(
            e.message.contains("ask_user \"Which folder?\""),
            "{}",
            e.message
        );
        assert!(question_in_call("qwen", "run_shell_command", &input).is_none());
    }
}
