//! The OpenAI Chat Completions API (`POST /v1/chat/completions`), as Qwen
//! Code (the `openai` SDK) and opencode (`@ai-sdk/openai-compatible`) use it.
//!
//! Streaming answers are unnamed SSE frames, each a `chat.completion.chunk`:
//! a role chunk, the thinking as `delta.reasoning_content` (the field both
//! clients read, as DeepSeek and Qwen's own servers send it), one chunk per
//! text piece in `delta.content`, each tool call as a header chunk (`id`,
//! `type`, `function.name`, empty `arguments`) followed by its JSON
//! arguments split across chunks, a chunk with the `finish_reason`, then (as
//! `stream_options.include_usage` asks) a chunk with `choices: []` and the
//! usage, and the literal `data: [DONE]`.

use serde_json::{Map, Value, json};

use super::{BadRequest, Frame, PathInfo, Rendered};
use crate::reply::{ErrorReply, Response, ToolCall, Usage};
use crate::request::{Api, ChatRequest, Message, Role, ToolDecl, push_text};

/// The `system_fingerprint` every answer carries.
const FINGERPRINT: &str = "fp_fakellm";

/// Content-part types that carry reasoning rather than answer text.
const THINKING_PARTS: [&str; 3] = ["thinking", "reasoning", "redacted_thinking"];

/// Parse a Chat Completions request body.
///
/// Only a body that is not an object, or whose `messages` is not an array,
/// is refused; everything else unknown is ignored.
pub fn parse(body: &Value, path: &PathInfo) -> Result<ChatRequest, BadRequest> {
    let obj = body
        .as_object()
        .ok_or_else(|| BadRequest("the body is not a JSON object".to_owned()))?;
    let messages = obj
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| BadRequest("`messages` is missing or not an array".to_owned()))?;
    let model = obj
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| path.model.clone())
        .unwrap_or_default();
    let stream = obj
        .get("stream")
        .and_then(Value::as_bool)
        .or(path.stream)
        .unwrap_or(false);

    let mut req = ChatRequest::new(Api::Chat, model, stream);
    req.include_usage = obj
        .get("stream_options")
        .and_then(|o| o.get("include_usage"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    req.tools = parse_tools(obj);
    req.response_format = obj
        .get("response_format")
        .filter(|f| f.get("type").and_then(Value::as_str) != Some("text"))
        .cloned();
    req.wants_json = req
        .response_format
        .as_ref()
        .and_then(|f| f.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| t == "json_schema" || t == "json_object");
    for m in messages {
        if let Some(msg) = parse_message(m, &mut req.system) {
            req.messages.push(msg);
        }
    }
    Ok(req)
}

/// The declared tools: `tools[].function{name, parameters}`, tolerating the
/// flat form (`tools[]{name, parameters}`), custom tools and the legacy
/// `functions[]`.
fn parse_tools(obj: &Map<String, Value>) -> Vec<ToolDecl> {
    let tools = obj
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    let legacy = obj
        .get("functions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    tools
        .map(|t| t.get("function").or_else(|| t.get("custom")).unwrap_or(t))
        .chain(legacy)
        .filter_map(|f| {
            let name = f.get("name").and_then(Value::as_str)?;
            Some(ToolDecl {
                name: name.to_owned(),
                parameters: f.get("parameters").cloned().unwrap_or(Value::Null),
                ..ToolDecl::default()
            })
        })
        .collect()
}

/// One message in short form; system/developer text is also appended to
/// `system`. Non-object entries are skipped.
fn parse_message(m: &Value, system: &mut String) -> Option<Message> {
    let obj = m.as_object()?;
    let role = obj.get("role").and_then(Value::as_str).unwrap_or_default();
    let content = obj.get("content").unwrap_or(&Value::Null);
    let msg = match role {
        "system" | "developer" => {
            let text = content_text(content);
            push_text(system, &text);
            Message {
                role: Some(Role::System),
                text,
                ..Message::default()
            }
        }
        "user" => Message {
            role: Some(Role::User),
            text: content_text(content),
            ..Message::default()
        },
        "assistant" => Message {
            role: Some(Role::Assistant),
            text: content_text(content),
            tool_calls: assistant_tool_calls(obj),
            thinking: assistant_thinking(obj, content),
            ..Message::default()
        },
        // A tool result carries no user text (see `ChatRequest::latest_user_text`).
        "tool" | "function" => Message {
            role: Some(Role::Tool),
            tool_results: 1,
            tool_output: content_text(content),
            ..Message::default()
        },
        _ => Message {
            role: None,
            text: content_text(content),
            ..Message::default()
        },
    };
    Some(msg)
}

/// The text of a `content` that is a string or an array of parts, leaving
/// out reasoning parts (and refusals, images, audio, files: parts without a
/// `text`).
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let mut out = String::new();
            for p in parts {
                match p {
                    Value::String(s) => push_text(&mut out, s),
                    Value::Object(o) => {
                        let kind = o.get("type").and_then(Value::as_str).unwrap_or_default();
                        if THINKING_PARTS.contains(&kind) {
                            continue;
                        }
                        if let Some(t) = o.get("text").and_then(Value::as_str) {
                            push_text(&mut out, t);
                        }
                    }
                    _ => {}
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// The names of an assistant message's `tool_calls` (and a legacy `function_call`).
fn assistant_tool_calls(obj: &Map<String, Value>) -> Vec<String> {
    let calls = obj
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    calls
        .map(|c| c.get("function").or_else(|| c.get("custom")).unwrap_or(c))
        .chain(obj.get("function_call"))
        .filter_map(|f| f.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

/// How many thinking parts an assistant message carries: its
/// `reasoning_content` (or `reasoning`) and any reasoning content parts.
fn assistant_thinking(obj: &Map<String, Value>, content: &Value) -> usize {
    let non_empty = |key: &str| {
        obj.get(key)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    let field = usize::from(non_empty("reasoning_content") || non_empty("reasoning"));
    let parts = content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| {
            p.get("type")
                .and_then(Value::as_str)
                .is_some_and(|t| THINKING_PARTS.contains(&t))
        })
        .count();
    field + parts
}

/// Render an answer: SSE chunks when the request streams, else one
/// `chat.completion` body.
pub fn render(req: &ChatRequest, resp: &Response) -> Rendered {
    let head = Head::new(req, resp);
    if req.stream {
        Rendered::Sse(stream_frames(&head, resp, req.include_usage))
    } else {
        Rendered::Json(completion(&head, resp))
    }
}

/// The fields every chunk (and the non-streamed body) shares.
struct Head {
    id: String,
    created: i64,
    model: String,
}

impl Head {
    fn new(req: &ChatRequest, resp: &Response) -> Self {
        Head {
            id: completion_id(&resp.id),
            created: jiff::Timestamp::now().as_second(),
            model: req.model.clone(),
        }
    }

    /// A `chat.completion.chunk` with the given choices; `usage` is the
    /// usage value, or `None` to leave the field out (no include_usage).
    fn chunk(&self, choices: Value, usage: Option<Value>) -> Value {
        let mut v = json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "service_tier": "default",
            "system_fingerprint": FINGERPRINT,
            "choices": choices,
        });
        if let (Some(usage), Some(obj)) = (usage, v.as_object_mut()) {
            obj.insert("usage".to_owned(), usage);
        }
        v
    }
}

/// OpenAI completion ids look like `chatcmpl-<random>`.
fn completion_id(id: &str) -> String {
    if id.starts_with("chatcmpl-") {
        id.to_owned()
    } else {
        format!("chatcmpl-{id}")
    }
}

/// The SSE frames of a streamed answer.
fn stream_frames(head: &Head, resp: &Response, include_usage: bool) -> Vec<Frame> {
    // With include_usage every choice chunk carries `"usage": null`.
    let null_usage = include_usage.then_some(Value::Null);
    let choice = |delta: Value, finish: Value| {
        head.chunk(
            json!([{
                "index": 0,
                "delta": delta,
                "logprobs": null,
                "finish_reason": finish,
            }]),
            null_usage.clone(),
        )
    };
    let mut frames = Vec::new();

    frames.push(Frame::data(
        &choice(
            json!({"role": "assistant", "content": "", "refusal": null}),
            Value::Null,
        ),
        false,
    ));
    if let Some(thinking) = resp.thinking.as_deref().filter(|t| !t.is_empty()) {
        frames.push(Frame::data(
            &choice(
                json!({"content": null, "reasoning_content": thinking}),
                Value::Null,
            ),
            true,
        ));
    }
    for piece in resp.text.iter().filter(|t| !t.is_empty()) {
        frames.push(Frame::data(
            &choice(json!({"content": piece}), Value::Null),
            true,
        ));
    }
    for (index, call) in resp.tool_calls.iter().enumerate() {
        let header = json!({"tool_calls": [{
            "index": index,
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": ""},
        }]});
        frames.push(Frame::data(&choice(header, Value::Null), true));
        for piece in split_in_two(&arguments_string(call)) {
            let delta = json!({"tool_calls": [{
                "index": index,
                "function": {"arguments": piece},
            }]});
            frames.push(Frame::data(&choice(delta, Value::Null), true));
        }
    }
    frames.push(Frame::data(
        &choice(json!({}), json!(finish_reason(resp))),
        false,
    ));
    if include_usage {
        frames.push(Frame::data(
            &head.chunk(json!([]), Some(usage_json(&resp.usage))),
            false,
        ));
    }
    frames.push(Frame {
        event: None,
        data: "[DONE]".to_owned(),
        content: false,
    });
    frames
}

/// The non-streamed `chat.completion` body.
fn completion(head: &Head, resp: &Response) -> Value {
    let text = resp.full_text();
    let mut message = Map::new();
    message.insert("role".to_owned(), json!("assistant"));
    let content = if text.is_empty() && !resp.tool_calls.is_empty() {
        Value::Null
    } else {
        Value::String(text)
    };
    message.insert("content".to_owned(), content);
    if let Some(thinking) = resp.thinking.as_deref().filter(|t| !t.is_empty()) {
        message.insert("reasoning_content".to_owned(), json!(thinking));
    }
    if !resp.tool_calls.is_empty() {
        let calls: Vec<Value> = resp
            .tool_calls
            .iter()
            .map(|c| {
                json!({
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": arguments_string(c)},
                })
            })
            .collect();
        message.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    message.insert("refusal".to_owned(), Value::Null);
    message.insert("annotations".to_owned(), json!([]));
    json!({
        "id": head.id,
        "object": "chat.completion",
        "created": head.created,
        "model": head.model,
        "choices": [{
            "index": 0,
            "message": message,
            "logprobs": null,
            "finish_reason": finish_reason(resp),
        }],
        "usage": usage_json(&resp.usage),
        "service_tier": "default",
        "system_fingerprint": FINGERPRINT,
    })
}

fn finish_reason(resp: &Response) -> &'static str {
    if resp.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }
}

/// A tool call's arguments as the JSON string OpenAI sends (a string value
/// is taken as already serialized).
fn arguments_string(call: &ToolCall) -> String {
    match &call.arguments {
        Value::String(s) => s.clone(),
        Value::Null => "{}".to_owned(),
        other => other.to_string(),
    }
}

/// `s` in two pieces (at a char boundary near the middle), so that clients
/// must join argument fragments as they do with the real API.
fn split_in_two(s: &str) -> Vec<&str> {
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid += 1;
    }
    let (a, b) = s.split_at(mid);
    [a, b].into_iter().filter(|p| !p.is_empty()).collect()
}

/// OpenAI usage: `prompt_tokens` counts every prompt token (cached or
/// not), `cached_tokens` the ones read from the cache (OpenAI reports no
/// cache writes; they are part of the prompt), `completion_tokens` includes
/// the reasoning tokens.
fn usage_json(u: &Usage) -> Value {
    json!({
        "prompt_tokens": u.prompt_total(),
        "completion_tokens": u.output_with_reasoning(),
        "total_tokens": u.total(),
        "prompt_tokens_details": {
            "cached_tokens": u.cache_read,
            "audio_tokens": 0,
        },
        "completion_tokens_details": {
            "reasoning_tokens": u.reasoning,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    })
}

/// OpenAI's error body: `{"error": {"message", "type", "param", "code"}}`.
pub fn error_body(err: &ErrorReply) -> Value {
    super::openai_error::error_body(err, super::openai_error::Endpoint::Chat)
}

/// The chunk that ends a stream part way: `data: {"error": {...}}`, as
/// OpenAI-compatible servers send a failure after the answer has started.
pub fn stream_error(err: &ErrorReply) -> Frame {
    Frame::data(&error_body(err), false)
}

#[cfg(test)]
mod tests {
    use crate::reply::ErrorKind;
    use serde_json::{Value, json};

    use super::*;
    use crate::reply::Cut;

    const QWEN_TOOL_RESULT: &str = include_str!("../../tests/fixtures/chat/qwen_tool_result.json");
    const OPENCODE_RESUME: &str = include_str!("../../tests/fixtures/chat/opencode_resume.json");
    const OPENCODE_TITLE: &str = include_str!("../../tests/fixtures/chat/opencode_title.json");

    fn fixture(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn parse_ok(body: &Value) -> ChatRequest {
        parse(body, &PathInfo::default()).unwrap()
    }

    /// A request as Qwen Code and opencode send it: streams ask for usage.
    fn request(stream: bool) -> ChatRequest {
        let mut req = ChatRequest::new(Api::Chat, "qwen3-coder-plus", stream);
        req.include_usage = stream;
        req
    }

    #[test]
    fn usage_chunk_only_when_the_client_asks_for_it() {
        let body =
            json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]});
        let req = parse_ok(&body);
        assert!(!req.include_usage);
        let resp = Response {
            text: vec!["hi".into()],
            ..Response::default()
        };
        let Rendered::Sse(frames) = render(&req, &resp) else {
            panic!("not a stream")
        };
        assert!(
            frames.iter().all(|f| !f.data.contains("\"usage\"")),
            "{frames:#?}"
        );
        assert_eq!(frames.last().map(|f| f.data.as_str()), Some("[DONE]"));
        let mut asked = body.clone();
        asked["stream_options"] = json!({"include_usage": true});
        let req = parse_ok(&asked);
        assert!(req.include_usage);
        let Rendered::Sse(frames) = render(&req, &resp) else {
            panic!("not a stream")
        };
        let usage: Vec<Value> = frames
            .iter()
            .filter_map(|f| serde_json::from_str::<Value>(&f.data).ok())
            .filter(|v| v["usage"].is_object())
            .collect();
        assert_eq!(usage.len(), 1);
        assert_eq!(usage[0]["choices"], json!([]));
    }

    fn shell_call() -> ToolCall {
        ToolCall {
            id: "call_abc123".into(),
            name: "run_shell_command".into(),
            arguments: json!({"command": "echo hello > hello.txt"}),
        }
    }

    fn usage() -> Usage {
        Usage {
            input: 100,
            output: 20,
            cache_read: 30,
            cache_write: 5,
            reasoning: 7,
            cache_write_1h: 0,
        }
    }

    fn usage_value() -> Value {
        json!({
            "prompt_tokens": 135,
            "completion_tokens": 27,
            "total_tokens": 162,
            "prompt_tokens_details": {"cached_tokens": 30, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": 7,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        })
    }

    /// The frames' data as JSON (created zeroed), `[DONE]` as a string.
    fn frames(r: Rendered) -> Vec<(Value, bool)> {
        let Rendered::Sse(frames) = r else {
            panic!("expected an SSE stream, got {r:?}");
        };
        frames
            .into_iter()
            .map(|f| {
                assert_eq!(f.event, None, "Chat Completions frames have no event names");
                let data = if f.data == "[DONE]" {
                    Value::String(f.data)
                } else {
                    let mut v: Value = serde_json::from_str(&f.data).unwrap();
                    assert!(v["created"].as_i64().unwrap() > 1_600_000_000);
                    v["created"] = json!(0);
                    v
                };
                (data, f.content)
            })
            .collect()
    }

    fn chunk(choices: Value, usage: Value) -> Value {
        json!({
            "id": "chatcmpl-r1",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": "qwen3-coder-plus",
            "service_tier": "default",
            "system_fingerprint": "fp_fakellm",
            "choices": choices,
            "usage": usage,
        })
    }

    fn delta(delta: Value, finish: Value) -> Value {
        chunk(
            json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]),
            Value::Null,
        )
    }

    #[test]
    fn parses_qwen_tool_result_request() {
        let body = fixture(QWEN_TOOL_RESULT);
        let req = parse_ok(&body);
        assert_eq!(req.api, Api::Chat);
        assert_eq!(req.model, "qwen3-coder-plus");
        assert!(req.stream);
        assert!(!req.wants_json);
        assert_eq!(
            req.tool_names(),
            [
                "tool_search",
                "agent",
                "task_stop",
                "send_message",
                "skill",
                "list_directory",
                "read_file",
                "grep_search",
                "glob",
                "edit",
                "write_file",
                "run_shell_command",
                "todo_write",
                "web_fetch",
                "monitor"
            ]
        );
        let shell = req
            .tools
            .iter()
            .find(|t| t.name == "run_shell_command")
            .unwrap();
        assert_eq!(
            shell.parameters,
            body["tools"][11]["function"]["parameters"]
        );
        assert_eq!(shell.parameters["required"], json!(["command"]));

        let system = body["messages"][0]["content"].as_str().unwrap();
        assert_eq!(req.system, system);
        let context = body["messages"][1]["content"][0]["text"].as_str().unwrap();
        assert_eq!(
            serde_json::to_value(&req.messages).unwrap(),
            json!([
                {"role": "system", "text": system},
                {"role": "user", "text": context},
                {"role": "assistant", "text": "Got it. Thanks for the context!"},
                {"role": "user", "text": "RUNTOOL THINK create hello.txt"},
                {"role": "assistant", "tool_calls": ["run_shell_command"], "thinking": 1},
                {"role": "tool", "tool_results": 1,
                 "tool_output": "Command: echo hello > hello.txt\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: 0\nProcess Group PGID: 18167"},
            ])
        );
        assert!(req.latest_has_tool_result());
        assert_eq!(req.latest_user_text(), "");
    }

    #[test]
    fn parses_opencode_resumed_request() {
        let body = fixture(OPENCODE_RESUME);
        let req = parse_ok(&body);
        assert_eq!(req.model, "fake-model");
        assert!(req.stream);
        assert_eq!(
            req.tool_names(),
            [
                "bash",
                "edit",
                "glob",
                "grep",
                "read",
                "skill",
                "task",
                "todowrite",
                "webfetch",
                "write"
            ]
        );
        let bash = &req.tools[0];
        assert_eq!(bash.parameters, body["tools"][0]["function"]["parameters"]);
        let system = body["messages"][0]["content"].as_str().unwrap();
        assert_eq!(req.system, system);
        assert_eq!(
            serde_json::to_value(&req.messages).unwrap(),
            json!([
                {"role": "system", "text": system},
                {"role": "user", "text": "\"RUNTOOL THINK create hello.txt\""},
                {"role": "assistant", "tool_calls": ["bash"], "thinking": 1},
                {"role": "tool", "tool_output": "(no output)", "tool_results": 1},
                {"role": "assistant", "text": "done", "thinking": 1},
                {"role": "user", "text": "\"second turn\""},
            ])
        );
        assert!(!req.latest_has_tool_result());
        assert_eq!(req.latest_user_text(), "\"second turn\"");
    }

    #[test]
    fn parses_opencode_title_request_without_tools() {
        let body = fixture(OPENCODE_TITLE);
        let req = parse_ok(&body);
        assert!(req.tools.is_empty());
        assert!(req.stream);
        assert_eq!(
            serde_json::to_value(&req.messages).unwrap(),
            json!([
                {"role": "system", "text": body["messages"][0]["content"]},
                {"role": "user", "text": "Generate a title for this conversation:\n"},
                {"role": "user", "text": "\"say hi\""},
            ])
        );
    }

    #[test]
    fn parses_developer_parts_and_tolerates_unknowns() {
        let body = json!({
            "model": "gpt-test",
            "messages": [
                {"role": "developer", "content": [{"type": "text", "text": "be brief"}]},
                {"role": "system", "content": "and kind"},
                {"role": "user", "content": [
                    {"type": "text", "text": "look"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                    {"type": "text", "text": "here"},
                ]},
                {"role": "assistant", "content": null, "function_call": {"name": "old", "arguments": "{}"},
                 "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}},
                                {"id": "c2", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "out"},
                {"role": "assistant", "content": [{"type": "reasoning", "text": "hmm"}, {"type": "text", "text": "ok"}],
                 "reasoning_content": ""},
                {"role": "critic", "content": "?"},
                "not a message",
            ],
            "tools": [
                {"type": "function", "function": {"name": "shell", "parameters": {"type": "object"}}},
                {"type": "function", "name": "flat"},
                {"type": "function", "function": {"description": "nameless"}},
            ],
            "functions": [{"name": "legacy", "parameters": {"type": "object", "properties": {}}}],
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": {}}},
            "some_future_field": {"x": 1},
        });
        let req = parse_ok(&body);
        assert!(!req.stream);
        assert!(req.wants_json);
        assert_eq!(
            req.response_format,
            Some(json!({"type": "json_schema", "json_schema": {"name": "x", "schema": {}}}))
        );
        assert_eq!(req.system, "be brief\nand kind");
        assert_eq!(req.tool_names(), ["shell", "flat", "legacy"]);
        assert_eq!(req.tools[0].parameters, json!({"type": "object"}));
        assert_eq!(req.tools[1].parameters, Value::Null);
        assert_eq!(
            serde_json::to_value(&req.messages).unwrap(),
            json!([
                {"role": "system", "text": "be brief"},
                {"role": "system", "text": "and kind"},
                {"role": "user", "text": "look\nhere"},
                {"role": "assistant", "tool_calls": ["a", "b", "old"]},
                {"role": "tool", "tool_output": "out", "tool_results": 1},
                {"role": "assistant", "text": "ok", "thinking": 1},
                {"role": null, "text": "?"},
            ])
        );
    }

    #[test]
    fn refuses_only_bodies_without_messages() {
        assert!(parse(&json!([1]), &PathInfo::default()).is_err());
        assert!(parse(&json!("x"), &PathInfo::default()).is_err());
        assert!(parse(&json!({"model": "m"}), &PathInfo::default()).is_err());
        assert!(
            parse(
                &json!({"model": "m", "messages": "hi"}),
                &PathInfo::default()
            )
            .is_err()
        );
        let path = PathInfo {
            model: Some("from-path".into()),
            stream: None,
        };
        let req = parse(&json!({"messages": []}), &path).unwrap();
        assert_eq!(req.model, "from-path");
        assert!(req.messages.is_empty());
    }

    #[test]
    fn streams_text_chunks_then_finish_usage_and_done() {
        let resp = Response {
            text: vec!["Hello".into(), "".into(), " world".into()],
            usage: usage(),
            id: "r1".into(),
            ..Response::default()
        };
        let got = frames(render(&request(true), &resp));
        let want = vec![
            (
                delta(
                    json!({"role": "assistant", "content": "", "refusal": null}),
                    Value::Null,
                ),
                false,
            ),
            (delta(json!({"content": "Hello"}), Value::Null), true),
            (delta(json!({"content": " world"}), Value::Null), true),
            (delta(json!({}), json!("stop")), false),
            (chunk(json!([]), usage_value()), false),
            (json!("[DONE]"), false),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn streams_thinking_then_text_then_tool_call_with_split_arguments() {
        let mut second = shell_call();
        second.id = "call_def456".into();
        second.arguments = json!({"command": "cat hello.txt"});
        let resp = Response {
            thinking: Some("Let me think.".into()),
            text: vec!["Running it.".into()],
            tool_calls: vec![shell_call(), second],
            usage: usage(),
            cut: None,
            id: "chatcmpl-r1".into(),
        };
        let got = frames(render(&request(true), &resp));

        // Order and shapes up to the tool calls.
        assert_eq!(got[0].0["choices"][0]["delta"]["role"], "assistant");
        assert_eq!(
            got[1],
            (
                delta(
                    json!({"content": null, "reasoning_content": "Let me think."}),
                    Value::Null
                ),
                true
            )
        );
        assert_eq!(
            got[2],
            (delta(json!({"content": "Running it."}), Value::Null), true)
        );
        assert_eq!(
            got[3],
            (
                delta(
                    json!({"tool_calls": [{"index": 0, "id": "call_abc123", "type": "function",
                        "function": {"name": "run_shell_command", "arguments": ""}}]}),
                    Value::Null
                ),
                true
            )
        );
        // The end.
        let n = got.len();
        assert_eq!(got[n - 3], (delta(json!({}), json!("tool_calls")), false));
        assert_eq!(got[n - 2], (chunk(json!([]), usage_value()), false));
        assert_eq!(got[n - 1], (json!("[DONE]"), false));

        // Reassemble the tool calls as the openai SDK / ai-sdk do: by index,
        // id and name from the first fragment, arguments concatenated.
        let mut calls: Vec<(String, String, String)> = Vec::new();
        let mut fragments = vec![0usize; 2];
        for (data, content) in &got[3..n - 3] {
            assert!(content);
            let tc = &data["choices"][0]["delta"]["tool_calls"][0];
            let i = tc["index"].as_u64().unwrap() as usize;
            assert!(
                tc["function"].is_object(),
                "ai-sdk requires `function` in every fragment"
            );
            if calls.len() == i {
                assert_eq!(tc["type"], "function");
                calls.push((
                    tc["id"].as_str().unwrap().into(),
                    tc["function"]["name"].as_str().unwrap().into(),
                    String::new(),
                ));
            } else {
                assert!(tc.get("id").is_none() && tc["function"].get("name").is_none());
            }
            calls[i]
                .2
                .push_str(tc["function"]["arguments"].as_str().unwrap());
            fragments[i] += 1;
        }
        assert_eq!(
            fragments,
            [3, 3],
            "header plus arguments split across two chunks"
        );
        let parsed: Vec<(String, String, Value)> = calls
            .into_iter()
            .map(|(id, name, args)| (id, name, serde_json::from_str(&args).unwrap()))
            .collect();
        assert_eq!(
            parsed,
            [
                (
                    "call_abc123".to_owned(),
                    "run_shell_command".to_owned(),
                    json!({"command": "echo hello > hello.txt"})
                ),
                (
                    "call_def456".to_owned(),
                    "run_shell_command".to_owned(),
                    json!({"command": "cat hello.txt"})
                ),
            ]
        );
    }

    #[test]
    fn all_chunks_share_one_id_and_the_first_content_frame_follows_the_role() {
        let resp = Response {
            text: vec!["a".into()],
            cut: Some(Cut::Fail),
            id: "xyz".into(),
            ..Response::default()
        };
        let got = frames(render(&request(true), &resp));
        for (data, _) in &got[..got.len() - 1] {
            assert_eq!(data["id"], "chatcmpl-xyz");
            assert_eq!(data["object"], "chat.completion.chunk");
            assert_eq!(data["model"], "qwen3-coder-plus");
        }
        let first_content = got.iter().position(|(_, c)| *c).unwrap();
        assert_eq!(first_content, 1);
        assert_eq!(got[1].0["choices"][0]["delta"]["content"], "a");
    }

    #[test]
    fn split_keeps_char_boundaries() {
        assert_eq!(split_in_two("{}"), ["{", "}"]);
        assert_eq!(split_in_two("é"), ["é"]);
        assert_eq!(split_in_two("aéb").concat(), "aéb");
        assert!(split_in_two("").is_empty());
    }

    #[test]
    fn non_stream_body_with_thinking_and_tool_call() {
        let resp = Response {
            thinking: Some("Let me think.".into()),
            tool_calls: vec![shell_call()],
            usage: usage(),
            id: "r1".into(),
            ..Response::default()
        };
        let Rendered::Json(mut body) = render(&request(false), &resp) else {
            panic!("expected JSON");
        };
        assert!(body["created"].as_i64().unwrap() > 1_600_000_000);
        body["created"] = json!(0);
        assert_eq!(
            body,
            json!({
                "id": "chatcmpl-r1",
                "object": "chat.completion",
                "created": 0,
                "model": "qwen3-coder-plus",
                "choices": [{
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": null,
                        "reasoning_content": "Let me think.",
                        "tool_calls": [{
                            "id": "call_abc123",
                            "type": "function",
                            "function": {
                                "name": "run_shell_command",
                                "arguments": "{\"command\":\"echo hello > hello.txt\"}",
                            },
                        }],
                        "refusal": null,
                        "annotations": [],
                    },
                    "logprobs": null,
                    "finish_reason": "tool_calls",
                }],
                "usage": usage_value(),
                "service_tier": "default",
                "system_fingerprint": "fp_fakellm",
            })
        );
    }

    #[test]
    fn non_stream_text_body_joins_chunks() {
        let resp = Response {
            text: vec!["do".into(), "ne".into()],
            id: "r2".into(),
            ..Response::default()
        };
        let Rendered::Json(body) = render(&request(false), &resp) else {
            panic!("expected JSON");
        };
        assert_eq!(
            body["choices"][0],
            json!({
                "index": 0,
                "message": {"role": "assistant", "content": "done", "refusal": null, "annotations": []},
                "logprobs": null,
                "finish_reason": "stop",
            })
        );
        assert_eq!(body["usage"]["prompt_tokens"], 0);
        assert_eq!(body["usage"]["total_tokens"], 0);
    }

    #[test]
    fn usage_maps_onto_openai_fields() {
        assert_eq!(usage_json(&usage()), usage_value());
        let plain = Usage {
            input: 19501,
            output: 6,
            ..Usage::default()
        };
        assert_eq!(
            usage_json(&plain),
            json!({
                "prompt_tokens": 19501,
                "completion_tokens": 6,
                "total_tokens": 19507,
                "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                "completion_tokens_details": {
                    "reasoning_tokens": 0,
                    "audio_tokens": 0,
                    "accepted_prediction_tokens": 0,
                    "rejected_prediction_tokens": 0,
                },
            })
        );
    }

    fn err(kind: ErrorKind) -> ErrorReply {
        ErrorReply {
            kind,
            status: kind.default_status(Api::Chat),
            message: None,
            retry_after: None,
            model: "gpt-test".into(),
        }
    }

    #[test]
    fn error_bodies_match_openai() {
        let body = |kind| error_body(&err(kind));
        assert_eq!(
            body(ErrorKind::RateLimit),
            json!({"error": {
                "message": "Rate limit reached for gpt-test in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.",
                "type": "requests", "param": null, "code": "rate_limit_exceeded"}})
        );
        assert_eq!(
            body(ErrorKind::InsufficientQuota),
            json!({"error": {
                "message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
                "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}})
        );
        assert_eq!(
            body(ErrorKind::Auth),
            json!({"error": {
                "message": "Incorrect API key provided: test. You can find your API key at https://platform.openai.com/account/api-keys.",
                "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}})
        );
        assert_eq!(
            body(ErrorKind::InvalidModel),
            json!({"error": {
                "message": "The model `gpt-test` does not exist or you do not have access to it.",
                "type": "invalid_request_error", "param": null, "code": "model_not_found"}})
        );
        assert_eq!(
            body(ErrorKind::ContextTooLong),
            json!({"error": {
                "message": "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}})
        );
        assert_eq!(
            body(ErrorKind::Overloaded),
            json!({"error": {
                "message": "That model is currently overloaded with other requests. You can retry your request, or contact us through our help center at help.openai.com if the error persists.",
                "type": "server_error", "param": null, "code": null}})
        );
        assert_eq!(
            body(ErrorKind::ServerError),
            json!({"error": {
                "message": "The server had an error while processing your request. Sorry about that!",
                "type": "server_error", "param": null, "code": null}})
        );
        assert_eq!(
            body(ErrorKind::PermissionDenied),
            json!({"error": {
                "message": "Project `proj_test` does not have access to model `gpt-test`",
                "type": "invalid_request_error", "param": null, "code": "model_not_found"}})
        );
        assert_eq!(
            body(ErrorKind::InvalidRequest)["error"]["type"],
            "invalid_request_error"
        );
    }

    #[test]
    fn error_body_uses_script_message_model_and_retry_after() {
        let mut e = err(ErrorKind::InvalidModel);
        e.model = "gpt-nonexistent".into();
        assert_eq!(
            error_body(&e)["error"]["message"],
            "The model `gpt-nonexistent` does not exist or you do not have access to it."
        );
        e.message = Some("The requested model 'gpt-nonexistent' does not exist.".into());
        assert_eq!(
            error_body(&e),
            json!({"error": {
                "message": "The requested model 'gpt-nonexistent' does not exist.",
                "type": "invalid_request_error", "param": null, "code": "model_not_found"}})
        );
        let mut e = err(ErrorKind::RateLimit);
        e.retry_after = Some(3);
        let msg = error_body(&e)["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.ends_with("Please try again in 3s."), "{msg}");
    }
}
