//! Plays a script: picks the turn for each request and builds the reply.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use serde_json::Value;

use crate::reply::{Cut, ErrorKind, ErrorReply, Outcome, Reply, Response, ToolCall, Usage};
use crate::request::ChatRequest;
use crate::script::{FailSpec, HangMode, Script, TextSpec, Turn, TurnSpec, Unmatched};
use crate::tools;

/// Requests that clients send besides the conversation turn itself. They
/// get a canned answer and never use up a scripted turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SideRequest {
    /// Gemini CLI's model router: a JSON-schema answer without tools.
    Router,
    /// A conversation title (opencode).
    Title,
    /// Qwen Code's background memory extraction.
    Memory,
}

impl SideRequest {
    /// Recognise a side request.
    pub fn detect(req: &ChatRequest) -> Option<SideRequest> {
        let sys = req.system.to_ascii_lowercase();
        if req.wants_json && req.tools.is_empty() {
            Some(SideRequest::Router)
        } else if sys.contains("title generator")
            || req.latest_user_text().starts_with("Generate a title")
        {
            Some(SideRequest::Title)
        } else if sys.contains("memory extraction") {
            Some(SideRequest::Memory)
        } else {
            None
        }
    }
}

/// The script player: shared by all requests of one server.
#[derive(Debug)]
pub struct Engine {
    script: Script,
    /// Remaining uses per turn (`None` = unlimited).
    remaining: Mutex<Vec<Option<u32>>>,
    ids: AtomicU64,
}

/// The text the default model answers with.
pub const DEFAULT_GREETING: &str = "Hello from agentgate fake-llm.";

impl Engine {
    /// An engine playing `script`.
    pub fn new(script: Script) -> Self {
        let remaining = script.turns.iter().map(|t| t.times).collect();
        Engine {
            script,
            remaining: Mutex::new(remaining),
            ids: AtomicU64::new(1),
        }
    }

    /// The models the script lists, if it names them.
    pub fn models(&self) -> Option<&[String]> {
        self.script.models.as_deref()
    }

    /// A fresh id with a prefix, unique within this server.
    pub fn next_id(&self, prefix: &str) -> String {
        let n = self.ids.fetch_add(1, Ordering::Relaxed);
        format!("{prefix}{n:012x}")
    }

    /// How many uses each turn has left (`None` = unlimited), in script order.
    pub fn remaining(&self) -> Vec<Option<u32>> {
        match self.remaining.lock() {
            Ok(r) => r.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Decide the reply to a (non-side) request: the first turn, in script
    /// order, that still has uses left and whose conditions hold; else the
    /// default answer (or an error when the script says `on_unmatched: error`).
    pub fn reply(&self, req: &ChatRequest) -> Reply {
        let picked = {
            let mut remaining = match self.remaining.lock() {
                Ok(r) => r,
                Err(poisoned) => poisoned.into_inner(),
            };
            let mut found = None;
            for (i, turn) in self.script.turns.iter().enumerate() {
                let left = remaining.get(i).copied().flatten();
                let usable = match self.script.turns[i].times {
                    None => true,
                    Some(_) => left.is_some_and(|n| n > 0),
                };
                if usable && turn.matcher.matches(req) {
                    if let Some(Some(n)) = remaining.get_mut(i) {
                        *n -= 1;
                    }
                    found = Some(turn);
                    break;
                }
            }
            found
        };
        match picked {
            Some(turn) => self.play(turn, req),
            None => self.unmatched(req),
        }
    }

    /// The canned answer to a side request.
    pub fn side_reply(
        &self,
        kind: SideRequest,
        req: &ChatRequest,
        schema: Option<&Value>,
    ) -> Reply {
        let text = match kind {
            SideRequest::Router => schema
                .map(example_of)
                .unwrap_or(Value::Object(Default::default()))
                .to_string(),
            SideRequest::Title => "Scripted run".to_owned(),
            SideRequest::Memory => "No memory updates.".to_owned(),
        };
        let usage = default_usage(req, &text);
        Reply {
            turn: None,
            delay: Duration::ZERO,
            chunk_delay: Duration::ZERO,
            headers: Vec::new(),
            outcome: Outcome::Respond(Response {
                text: vec![text],
                usage,
                id: self.next_id("msg_"),
                ..Response::default()
            }),
        }
    }

    fn unmatched(&self, req: &ChatRequest) -> Reply {
        let outcome = match self.script.on_unmatched {
            Unmatched::Error => Outcome::Error(ErrorReply {
                kind: ErrorKind::ServerError,
                status: 500,
                message: Some(format!(
                    "fake-llm: no scripted turn matched this request (latest user message: {:?})",
                    truncate(req.latest_user_text(), 200)
                )),
                retry_after: None,
                model: req.model.clone(),
            }),
            Unmatched::Default => {
                let text = match &self.script.default_text {
                    Some(t) => t.clone(),
                    None if req.latest_has_tool_result() => "Done.".to_owned(),
                    None => {
                        let said = last_line(req.latest_user_text());
                        if said.is_empty() {
                            DEFAULT_GREETING.to_owned()
                        } else {
                            format!("{DEFAULT_GREETING} You said: {}", truncate(said, 200))
                        }
                    }
                };
                let usage = default_usage(req, &text);
                Outcome::Respond(Response {
                    text: vec![text],
                    usage,
                    id: self.next_id("msg_"),
                    ..Response::default()
                })
            }
        };
        Reply {
            turn: None,
            delay: Duration::ZERO,
            chunk_delay: Duration::ZERO,
            headers: Vec::new(),
            outcome,
        }
    }

    fn play(&self, turn: &Turn, req: &ChatRequest) -> Reply {
        let a: &TurnSpec = &turn.action;
        let outcome = self.outcome(a, req);
        Reply {
            turn: Some(turn.name.clone()),
            delay: Duration::from_millis(a.delay_ms),
            chunk_delay: Duration::from_millis(a.chunk_delay_ms),
            headers: turn.headers.clone(),
            outcome,
        }
    }

    fn outcome(&self, a: &TurnSpec, req: &ChatRequest) -> Outcome {
        if a.hang.and_then(|h| h.mode()) == Some(HangMode::Before) {
            return Outcome::Hang;
        }
        if let Some(e) = &a.error {
            return Outcome::Error(ErrorReply {
                kind: e.kind,
                status: e.status.unwrap_or_else(|| e.kind.default_status(req.api)),
                message: e.message.clone(),
                retry_after: e.retry_after,
                model: req.model.clone(),
            });
        }
        let mut calls = Vec::new();
        for c in a.tool_call.iter().chain(a.tool_calls.iter()) {
            match tools::resolve(&c.name, c.command.as_deref(), c.args.as_ref(), &req.tools) {
                Ok((name, arguments)) => calls.push(ToolCall {
                    id: self.next_id("call_"),
                    name,
                    arguments,
                }),
                Err(e) => {
                    return Outcome::Error(ErrorReply {
                        kind: ErrorKind::InvalidRequest,
                        status: 400,
                        message: Some(format!("fake-llm: {e}")),
                        retry_after: None,
                        model: req.model.clone(),
                    });
                }
            }
        }
        let text = match &a.text {
            None => Vec::new(),
            Some(TextSpec::Chunks(c)) => c.iter().map(|c| with_tool_output(c, req)).collect(),
            Some(TextSpec::One(t)) => {
                let t = with_tool_output(t, req);
                match a.chunk_chars {
                    Some(n) => chunk(&t, n),
                    None => vec![t],
                }
            }
        };
        let joined: String = text.concat();
        let usage = a.usage.unwrap_or_else(|| {
            let mut u = default_usage(req, &joined);
            u.reasoning = a.thinking.as_deref().map(estimate_tokens).unwrap_or(0);
            u.output += calls
                .iter()
                .map(|c| estimate_tokens(&c.arguments.to_string()))
                .sum::<u64>();
            u
        });
        let stream_error = || {
            let spec = a.fail_error.as_ref();
            let kind = spec.map_or(ErrorKind::ServerError, |e| e.kind);
            ErrorReply {
                kind,
                status: spec
                    .and_then(|e| e.status)
                    .unwrap_or_else(|| kind.default_status(req.api)),
                message: spec.and_then(|e| e.message.clone()),
                retry_after: spec.and_then(|e| e.retry_after),
                model: req.model.clone(),
            }
        };
        let cut = match a.fail {
            Some(FailSpec::MidStream) => Some(Cut::Fail),
            Some(FailSpec::ErrorEvent) => Some(Cut::ErrorEvent(stream_error())),
            Some(FailSpec::ResponseFailed) => Some(Cut::ResponseFailed(stream_error())),
            Some(FailSpec::NoFinish) => Some(Cut::NoFinish),
            None if a.hang.and_then(|h| h.mode()) == Some(HangMode::MidStream) => Some(Cut::Hang),
            None => None,
        };
        Outcome::Respond(Response {
            thinking: a.thinking.clone(),
            text,
            tool_calls: calls,
            usage,
            cut,
            id: self.next_id("msg_"),
        })
    }
}

/// Usage estimated from the request and the answer text (four characters a token).
fn default_usage(req: &ChatRequest, text: &str) -> Usage {
    Usage {
        input: req.estimated_input_tokens(),
        output: estimate_tokens(text),
        ..Usage::default()
    }
}

fn estimate_tokens(s: &str) -> u64 {
    (s.chars().count() as u64).div_ceil(4).max(1)
}

/// Split text into chunks of `n` characters (never inside a character).
/// What a turn's text says, with `{{tool_output}}` replaced by the output
/// of the tool results the request carries.
fn with_tool_output(text: &str, req: &ChatRequest) -> String {
    const PLACEHOLDER: &str = "{{tool_output}}";
    if text.contains(PLACEHOLDER) {
        text.replace(PLACEHOLDER, &req.latest_tool_output())
    } else {
        text.to_owned()
    }
}

fn chunk(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n.max(1)).map(|c| c.iter().collect()).collect()
}

fn last_line(s: &str) -> &str {
    s.lines()
        .rev()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}

fn truncate(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// A small value that satisfies a JSON Schema (for JSON-mode side requests):
/// required properties only, first enum value, strings "scripted".
pub fn example_of(schema: &Value) -> Value {
    if let Some(v) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return v.clone();
    }
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("object")
        .to_ascii_lowercase();
    match ty.as_str() {
        "string" => Value::String("scripted".into()),
        "integer" => {
            let min = schema.get("minimum").and_then(Value::as_i64).unwrap_or(1);
            Value::from(min.max(1))
        }
        "number" => Value::from(1.0),
        "boolean" => Value::Bool(false),
        "array" => Value::Array(Vec::new()),
        "null" => Value::Null,
        _ => {
            let mut out = serde_json::Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                let required: Vec<&str> = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_else(|| props.keys().map(String::as_str).collect());
                for (k, v) in props {
                    if required.contains(&k.as_str()) {
                        out.insert(k.clone(), example_of(v));
                    }
                }
            }
            Value::Object(out)
        }
    }
}
