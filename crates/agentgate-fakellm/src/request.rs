//! The wire-independent view of one model request.
//!
//! Every API module parses its own request body into a [`ChatRequest`]; the
//! script engine matches turns against it and the request log records it.

use serde::Serialize;
use serde_json::Value;

/// Which wire protocol a request arrived on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    /// Anthropic Messages API (`/v1/messages`).
    Anthropic,
    /// OpenAI Responses API (`/v1/responses`).
    Responses,
    /// OpenAI Chat Completions API (`/v1/chat/completions`).
    Chat,
    /// Gemini API (`:generateContent`, `:streamGenerateContent`).
    Gemini,
}

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// System or developer instructions.
    System,
    /// The user (or the client speaking for the user).
    User,
    /// The model.
    Assistant,
    /// A tool result message (OpenAI `role: tool`, Responses `function_call_output`).
    Tool,
}

/// A tool the client declared, with the JSON Schema of its arguments.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ToolDecl {
    /// The tool's name as the client declared it; a tool of a Responses
    /// `namespace` tool is named `NAMESPACE__NAME` (as Codex names it).
    pub name: String,
    /// JSON Schema of the arguments (`Value::Null` when the client sent none).
    #[serde(skip)]
    pub parameters: Value,
    /// For a tool declared in a Responses `namespace` tool: the namespace
    /// and the tool's own name, which a call to it carries apart.
    #[serde(skip)]
    pub namespaced: Option<(String, String)>,
}

/// One message in short form.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Message {
    /// Who said it.
    pub role: Option<Role>,
    /// The concatenated text parts.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Names of the tools this (assistant) message called.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<String>,
    /// How many tool results this message carries.
    #[serde(skip_serializing_if = "is_zero")]
    pub tool_results: usize,
    /// The text of its tool results, joined (Gemini's function responses
    /// as compact JSON), so a test can see a tool's output reach the model.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub tool_output: String,
    /// How many thinking/reasoning parts this message carries.
    #[serde(skip_serializing_if = "is_zero")]
    pub thinking: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A model request reduced to what scripts match on and logs show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest {
    /// The wire protocol.
    pub api: Api,
    /// The model the client asked for.
    pub model: String,
    /// Whether the client asked for a streamed answer.
    pub stream: bool,
    /// The tools the client declared, in order.
    pub tools: Vec<ToolDecl>,
    /// System/developer instructions, concatenated.
    #[serde(skip)]
    pub system: String,
    /// The conversation, oldest first (system messages inline where the client put them).
    pub messages: Vec<Message>,
    /// The client asked for a JSON answer of a given schema (Gemini's router does).
    pub wants_json: bool,
    /// The structured-output format the client asked for, as sent (Responses
    /// `text.format`, Chat Completions `response_format`); `None` for plain
    /// text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Value>,
    /// The client asked for a usage chunk at the end of a stream (OpenAI
    /// Chat Completions `stream_options.include_usage`).
    pub include_usage: bool,
}

impl ChatRequest {
    /// A new request with no messages or tools.
    pub fn new(api: Api, model: impl Into<String>, stream: bool) -> Self {
        ChatRequest {
            api,
            model: model.into(),
            stream,
            tools: Vec::new(),
            system: String::new(),
            messages: Vec::new(),
            wants_json: false,
            response_format: None,
            include_usage: false,
        }
    }

    /// The latest message from the user's side: the last `user` or `tool`
    /// message (system messages that some clients insert after it are skipped).
    pub fn latest_input(&self) -> Option<&Message> {
        self.messages
            .iter()
            .rev()
            .find(|m| matches!(m.role, Some(Role::User) | Some(Role::Tool)))
    }

    /// The text of the latest input message ("" when it only carries tool results).
    pub fn latest_user_text(&self) -> &str {
        self.latest_input().map(|m| m.text.as_str()).unwrap_or("")
    }

    /// Whether the latest input carries a tool result.
    pub fn latest_has_tool_result(&self) -> bool {
        // Tool results can arrive as several consecutive `tool` messages
        // (OpenAI), so look at the whole trailing run of input messages.
        self.messages
            .iter()
            .rev()
            .skip_while(|m| m.role == Some(Role::System))
            .take_while(|m| matches!(m.role, Some(Role::User) | Some(Role::Tool)))
            .any(|m| m.tool_results > 0 || m.role == Some(Role::Tool))
    }

    /// The output of the tool results in the latest input (the trailing
    /// run of user and tool messages), joined with newlines: what a
    /// turn's `{{tool_output}}` stands for.
    pub fn latest_tool_output(&self) -> String {
        let mut trailing: Vec<&Message> = self
            .messages
            .iter()
            .rev()
            .skip_while(|m| m.role == Some(Role::System))
            .take_while(|m| matches!(m.role, Some(Role::User) | Some(Role::Tool)))
            .collect();
        trailing.reverse();
        let mut out = String::new();
        for m in trailing {
            push_text(&mut out, &m.tool_output);
        }
        out
    }

    /// The names of the declared tools.
    pub fn tool_names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name.clone()).collect()
    }

    /// A rough token count of the request, for default usage figures
    /// (about four characters a token).
    pub fn estimated_input_tokens(&self) -> u64 {
        let chars: usize = self.system.len()
            + self.messages.iter().map(|m| m.text.len()).sum::<usize>()
            + self
                .tools
                .iter()
                .map(|t| t.name.len() + t.parameters.to_string().len())
                .sum::<usize>();
        (chars as u64).div_ceil(4).max(1)
    }
}

/// Append `part` to `text`, separating parts with a newline.
pub(crate) fn push_text(text: &mut String, part: &str) {
    if part.is_empty() {
        return;
    }
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(part);
}
