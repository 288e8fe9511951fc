//! The OpenAI Responses API (`POST /v1/responses`), as Codex CLI speaks it
//! (`wire_api = "responses"`).
//!
//! Requests: `input` is a string or a list of items (`message` with role
//! developer/system/user/assistant, `reasoning`, `function_call`,
//! `function_call_output`, `custom_tool_call`, `custom_tool_call_output`,
//! ...); `instructions` is the system prompt; `tools` holds `function` tools
//! (`name` + `parameters`) and others (`custom`, `web_search`, `tool_search`).
//!
//! Streamed answers are SSE frames with `event: <type>` and a JSON `data`
//! that repeats the `type` and carries a `sequence_number`:
//! `response.created`, `response.in_progress`, then per output item
//! `response.output_item.added` ... `response.output_item.done`
//! (a `reasoning` item with summary parts, a `message` item with one
//! `output_text` part, `function_call` / `custom_tool_call` items), and
//! finally `response.completed` with the whole response and its `usage`.
//! There is no `[DONE]` sentinel: the stream simply ends.

use serde_json::{Map, Value, json};

use super::{BadRequest, Frame, PathInfo, Rendered, text_of};
use crate::reply::{ErrorReply, Response, ToolCall, Usage};
use crate::request::{Api, ChatRequest, Message, Role, ToolDecl, push_text};

/// Parse a `POST /v1/responses` body.
pub fn parse(body: &Value, path: &PathInfo) -> Result<ChatRequest, BadRequest> {
    let obj = body
        .as_object()
        .ok_or_else(|| BadRequest("the body is not a JSON object".into()))?;
    let model = obj
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| path.model.clone())
        .ok_or_else(|| BadRequest("missing required parameter: 'model'".into()))?;
    let stream = path
        .stream
        .unwrap_or_else(|| obj.get("stream").and_then(Value::as_bool).unwrap_or(false));

    let mut req = ChatRequest::new(Api::Responses, model, stream);

    if let Some(instructions) = obj.get("instructions") {
        push_text(&mut req.system, &text_of(instructions));
    }

    if let Some(tools) = obj.get("tools").and_then(Value::as_array) {
        req.tools = tools.iter().flat_map(tool_decls).collect();
    }

    req.response_format = obj
        .get("text")
        .and_then(|t| t.get("format"))
        .filter(|f| f.get("type").and_then(Value::as_str) != Some("text"))
        .cloned();
    req.wants_json = req
        .response_format
        .as_ref()
        .and_then(|f| f.get("type"))
        .and_then(Value::as_str)
        .is_some_and(|t| t == "json_schema" || t == "json_object");

    match obj.get("input") {
        Some(Value::String(s)) => req.messages.push(Message {
            role: Some(Role::User),
            text: s.clone(),
            ..Message::default()
        }),
        Some(Value::Array(items)) => {
            for item in items {
                push_item(&mut req, item);
            }
        }
        _ => {}
    }

    Ok(req)
}

/// The tools one declaration declares: a `namespace` tool (Codex's MCP
/// servers: `{"type": "namespace", "name": "mcp__probe", "tools": [...]}`)
/// declares each of its tools as `NAMESPACE__NAME`, any other one itself.
fn tool_decls(tool: &Value) -> Vec<ToolDecl> {
    let namespace = tool
        .get("name")
        .and_then(Value::as_str)
        .filter(|_| tool.get("type").and_then(Value::as_str) == Some("namespace"));
    match (namespace, tool.get("tools").and_then(Value::as_array)) {
        (Some(ns), Some(inner)) => inner
            .iter()
            .filter_map(tool_decl)
            .map(|mut d| {
                let own = std::mem::take(&mut d.name);
                d.name = format!("{ns}__{own}");
                d.namespaced = Some((ns.to_owned(), own));
                d
            })
            .collect(),
        _ => tool_decl(tool).into_iter().collect(),
    }
}

/// One declared tool: `function` tools carry a JSON Schema in `parameters`;
/// `custom` (freeform) tools have none; built-in tools such as `web_search`
/// have no name, so their type names them.
fn tool_decl(tool: &Value) -> Option<ToolDecl> {
    let kind = tool.get("type").and_then(Value::as_str);
    let name = tool
        .get("name")
        .and_then(Value::as_str)
        .or(kind)
        .filter(|n| !n.is_empty())?;
    let parameters = match kind {
        Some("custom") => Value::Null,
        _ => tool.get("parameters").cloned().unwrap_or(Value::Null),
    };
    Some(ToolDecl {
        name: name.to_owned(),
        parameters,
        namespaced: None,
    })
}

/// The message that assistant-side items (reasoning, tool calls, assistant
/// text) of the current model turn are gathered on.
fn assistant_message(req: &mut ChatRequest) -> &mut Message {
    let needs_new = req
        .messages
        .last()
        .is_none_or(|m| m.role != Some(Role::Assistant));
    if needs_new {
        req.messages.push(Message {
            role: Some(Role::Assistant),
            ..Message::default()
        });
    }
    let last = req.messages.len() - 1;
    &mut req.messages[last]
}

/// Add one `input` item to the short-form conversation.
fn push_item(req: &mut ChatRequest, item: &Value) {
    // Easy input messages (`{"role": ..., "content": ...}`) have no `type`.
    let kind = item
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    match kind {
        "message" => {
            let text = item.get("content").map(text_of).unwrap_or_default();
            match item.get("role").and_then(Value::as_str) {
                Some("developer" | "system") => {
                    push_text(&mut req.system, &text);
                    req.messages.push(Message {
                        role: Some(Role::System),
                        text,
                        ..Message::default()
                    });
                }
                Some("assistant") => push_text(&mut assistant_message(req).text, &text),
                Some("user") => req.messages.push(Message {
                    role: Some(Role::User),
                    text,
                    ..Message::default()
                }),
                _ => req.messages.push(Message {
                    role: None,
                    text,
                    ..Message::default()
                }),
            }
        }
        "reasoning" => assistant_message(req).thinking += 1,
        "function_call" | "custom_tool_call" => {
            let name = item.get("name").and_then(Value::as_str).unwrap_or(kind);
            assistant_message(req).tool_calls.push(name.to_owned());
        }
        "local_shell_call" => assistant_message(req).tool_calls.push("local_shell".into()),
        "tool_search_call" => assistant_message(req).tool_calls.push("tool_search".into()),
        "function_call_output"
        | "custom_tool_call_output"
        | "local_shell_call_output"
        | "tool_search_output" => {
            let text = item.get("output").map(text_of).unwrap_or_default();
            req.messages.push(Message {
                role: Some(Role::Tool),
                tool_output: text.clone(),
                text,
                tool_results: 1,
                ..Message::default()
            });
        }
        _ => {}
    }
}

/// Render an answer: the SSE stream when the client asked for one, else the
/// Response object.
pub fn render(req: &ChatRequest, resp: &Response) -> Rendered {
    let ids = Ids::new(resp);
    let created_at = jiff::Timestamp::now().as_second();
    let items = output_items(req, resp, &ids);
    if !req.stream {
        let output = items.iter().map(OutputItem::done).collect();
        return Rendered::Json(response_object(
            req,
            &ids.response,
            created_at,
            "completed",
            output,
            Some(&resp.usage),
        ));
    }

    let mut frames = Sse::default();
    let pending = response_object(
        req,
        &ids.response,
        created_at,
        "in_progress",
        Vec::new(),
        None,
    );
    frames.push("response.created", json!({ "response": pending }), false);
    frames.push(
        "response.in_progress",
        json!({ "response": pending }),
        false,
    );
    for (index, item) in items.iter().enumerate() {
        item.stream(&mut frames, index);
    }
    let output = items.iter().map(OutputItem::done).collect();
    let done = response_object(
        req,
        &ids.response,
        created_at,
        "completed",
        output,
        Some(&resp.usage),
    );
    frames.push("response.completed", json!({ "response": done }), false);
    Rendered::Sse(frames.frames)
}

/// The ids of one response and its output items, all derived from the
/// script's response id.
struct Ids {
    base: String,
    response: String,
}

impl Ids {
    fn new(resp: &Response) -> Self {
        // Drop a provider prefix ("resp_", "msg_", "chatcmpl-") the engine may
        // have put on the id, and use the rest for every item.
        let id = resp.id.as_str();
        let rest = match id.find(['_', '-']) {
            Some(i) if i > 0 && id[..i].bytes().all(|b| b.is_ascii_lowercase()) => &id[i + 1..],
            _ => id,
        };
        let base = if rest.is_empty() { "fake" } else { rest }.to_owned();
        Ids {
            response: format!("resp_{base}"),
            base,
        }
    }

    fn item(&self, prefix: &str) -> String {
        format!("{prefix}_{}", self.base)
    }
}

/// An output item of the answer, in order: reasoning, message, tool calls.
enum OutputItem {
    Reasoning {
        id: String,
        text: String,
    },
    Message {
        id: String,
        chunks: Vec<String>,
    },
    FunctionCall {
        id: String,
        call_id: String,
        name: String,
        /// The namespace of a tool declared in a `namespace` tool (`name`
        /// is then its own name).
        namespace: Option<String>,
        arguments: String,
    },
    CustomToolCall {
        id: String,
        call_id: String,
        name: String,
        input: String,
    },
}

fn output_items(req: &ChatRequest, resp: &Response, ids: &Ids) -> Vec<OutputItem> {
    let mut items = Vec::new();
    if let Some(text) = resp.thinking.as_deref().filter(|t| !t.is_empty()) {
        items.push(OutputItem::Reasoning {
            id: ids.item("rs"),
            text: text.to_owned(),
        });
    }
    let has_text = resp.text.iter().any(|c| !c.is_empty());
    // An answer with neither text nor tool calls still carries an (empty)
    // message, as the real API's does.
    if has_text || resp.tool_calls.is_empty() {
        items.push(OutputItem::Message {
            id: ids.item("msg"),
            chunks: resp
                .text
                .iter()
                .filter(|c| !c.is_empty())
                .cloned()
                .collect(),
        });
    }
    for (i, call) in resp.tool_calls.iter().enumerate() {
        items.push(tool_call_item(req, call, ids, i));
    }
    items
}

/// A tool call as a `function_call` item (arguments as a JSON string), or as a
/// `custom_tool_call` item (raw `input`) when the call goes to a freeform tool
/// (declared without a JSON Schema) and its arguments are a plain string.
fn tool_call_item(req: &ChatRequest, call: &ToolCall, ids: &Ids, i: usize) -> OutputItem {
    let call_id = if call.id.is_empty() {
        format!("call_{}_{i}", ids.base)
    } else {
        call.id.clone()
    };
    let declared = req.tools.iter().find(|t| t.name == call.name);
    let freeform = declared.is_some_and(|t| t.parameters.is_null());
    let (namespace, name) = match declared.and_then(|t| t.namespaced.clone()) {
        Some((ns, own)) => (Some(ns), own),
        None => (None, call.name.clone()),
    };
    match &call.arguments {
        Value::String(input) if freeform => OutputItem::CustomToolCall {
            id: format!("ctc_{}_{i}", ids.base),
            call_id,
            name: call.name.clone(),
            input: input.clone(),
        },
        args => OutputItem::FunctionCall {
            id: format!("fc_{}_{i}", ids.base),
            call_id,
            name,
            namespace,
            // A string is taken as the arguments' JSON text verbatim.
            arguments: match args {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        },
    }
}

/// A `function_call` item with the `namespace` of its tool, if it has one.
fn with_namespace(mut item: Value, namespace: &Option<String>) -> Value {
    if let (Some(ns), Value::Object(fields)) = (namespace, &mut item) {
        fields.insert("namespace".into(), Value::from(ns.as_str()));
    }
    item
}

fn output_text_part(text: &str) -> Value {
    json!({ "type": "output_text", "annotations": [], "logprobs": [], "text": text })
}

fn summary_part(text: &str) -> Value {
    json!({ "type": "summary_text", "text": text })
}

impl OutputItem {
    /// The item as `response.output_item.added` shows it.
    fn added(&self) -> Value {
        match self {
            OutputItem::Reasoning { id, .. } => {
                json!({ "id": id, "type": "reasoning", "summary": [] })
            }
            OutputItem::Message { id, .. } => json!({
                "id": id, "type": "message", "status": "in_progress",
                "content": [], "role": "assistant"
            }),
            OutputItem::FunctionCall {
                id,
                call_id,
                name,
                namespace,
                ..
            } => with_namespace(
                json!({
                    "id": id, "type": "function_call", "status": "in_progress",
                    "arguments": "", "call_id": call_id, "name": name
                }),
                namespace,
            ),
            OutputItem::CustomToolCall {
                id, call_id, name, ..
            } => json!({
                "id": id, "type": "custom_tool_call", "status": "in_progress",
                "call_id": call_id, "input": "", "name": name
            }),
        }
    }

    /// The finished item, as `response.output_item.done` and the response's
    /// `output` show it.
    fn done(&self) -> Value {
        match self {
            OutputItem::Reasoning { id, text } => {
                json!({ "id": id, "type": "reasoning", "summary": [summary_part(text)] })
            }
            OutputItem::Message { id, chunks } => json!({
                "id": id, "type": "message", "status": "completed",
                "content": [output_text_part(&chunks.concat())], "role": "assistant"
            }),
            OutputItem::FunctionCall {
                id,
                call_id,
                name,
                namespace,
                arguments,
            } => with_namespace(
                json!({
                    "id": id, "type": "function_call", "status": "completed",
                    "arguments": arguments, "call_id": call_id, "name": name
                }),
                namespace,
            ),
            OutputItem::CustomToolCall {
                id,
                call_id,
                name,
                input,
            } => json!({
                "id": id, "type": "custom_tool_call", "status": "completed",
                "call_id": call_id, "input": input, "name": name
            }),
        }
    }

    /// Append the frames that stream this item.
    fn stream(&self, sse: &mut Sse, output_index: usize) {
        sse.push(
            "response.output_item.added",
            json!({ "output_index": output_index, "item": self.added() }),
            matches!(
                self,
                OutputItem::FunctionCall { .. } | OutputItem::CustomToolCall { .. }
            ),
        );
        match self {
            OutputItem::Reasoning { id, text } => {
                let at = json!({ "item_id": id, "output_index": output_index, "summary_index": 0 });
                sse.push_at(
                    "response.reasoning_summary_part.added",
                    &at,
                    json!({ "part": summary_part("") }),
                    false,
                );
                sse.push_at(
                    "response.reasoning_summary_text.delta",
                    &at,
                    json!({ "delta": text }),
                    true,
                );
                sse.push_at(
                    "response.reasoning_summary_text.done",
                    &at,
                    json!({ "text": text }),
                    true,
                );
                sse.push_at(
                    "response.reasoning_summary_part.done",
                    &at,
                    json!({ "part": summary_part(text) }),
                    true,
                );
            }
            OutputItem::Message { id, chunks } => {
                let at = json!({ "item_id": id, "output_index": output_index, "content_index": 0 });
                let text = chunks.concat();
                sse.push_at(
                    "response.content_part.added",
                    &at,
                    json!({ "part": output_text_part("") }),
                    false,
                );
                for chunk in chunks {
                    sse.push_at(
                        "response.output_text.delta",
                        &at,
                        json!({ "delta": chunk, "logprobs": [] }),
                        true,
                    );
                }
                sse.push_at(
                    "response.output_text.done",
                    &at,
                    json!({ "text": text, "logprobs": [] }),
                    !text.is_empty(),
                );
                sse.push_at(
                    "response.content_part.done",
                    &at,
                    json!({ "part": output_text_part(&text) }),
                    !text.is_empty(),
                );
            }
            OutputItem::FunctionCall { id, arguments, .. } => {
                let at = json!({ "item_id": id, "output_index": output_index });
                sse.push_at(
                    "response.function_call_arguments.delta",
                    &at,
                    json!({ "delta": arguments }),
                    true,
                );
                sse.push_at(
                    "response.function_call_arguments.done",
                    &at,
                    json!({ "arguments": arguments }),
                    true,
                );
            }
            OutputItem::CustomToolCall { id, input, .. } => {
                let at = json!({ "item_id": id, "output_index": output_index });
                sse.push_at(
                    "response.custom_tool_call_input.delta",
                    &at,
                    json!({ "delta": input }),
                    true,
                );
                sse.push_at(
                    "response.custom_tool_call_input.done",
                    &at,
                    json!({ "input": input }),
                    true,
                );
            }
        }
        let carries_content = match self {
            OutputItem::Message { chunks, .. } => !chunks.is_empty(),
            _ => true,
        };
        sse.push(
            "response.output_item.done",
            json!({ "output_index": output_index, "item": self.done() }),
            carries_content,
        );
    }
}

/// The frames of one stream, numbered in order.
#[derive(Default)]
struct Sse {
    frames: Vec<Frame>,
}

impl Sse {
    /// Append an event: `type` and `sequence_number` first, then `fields`.
    fn push(&mut self, kind: &str, fields: Value, content: bool) {
        let mut data = Map::new();
        data.insert("type".into(), Value::from(kind));
        data.insert("sequence_number".into(), Value::from(self.frames.len()));
        if let Value::Object(fields) = fields {
            data.extend(fields);
        }
        self.frames
            .push(Frame::named(kind, &Value::Object(data), content));
    }

    /// Append an event located by `at` (item id and indexes) plus `fields`.
    fn push_at(&mut self, kind: &str, at: &Value, fields: Value, content: bool) {
        let mut merged = at.clone();
        if let (Value::Object(m), Value::Object(f)) = (&mut merged, fields) {
            m.extend(f);
        }
        self.push(kind, merged, content);
    }
}

/// The Responses usage object: `input_tokens` counts every prompt token
/// (uncached + cache read + cache write) with the cache reads in
/// `input_tokens_details.cached_tokens` (and cache writes, which only some
/// clients such as Codex read, in `cache_write_tokens` when there are any);
/// `output_tokens` includes the reasoning tokens, which
/// `output_tokens_details.reasoning_tokens` repeats.
fn usage_object(usage: &Usage) -> Value {
    let mut input_details = json!({ "cached_tokens": usage.cache_read });
    if usage.cache_write > 0 {
        input_details["cache_write_tokens"] = Value::from(usage.cache_write);
    }
    json!({
        "input_tokens": usage.prompt_total(),
        "input_tokens_details": input_details,
        "output_tokens": usage.output_with_reasoning(),
        "output_tokens_details": { "reasoning_tokens": usage.reasoning },
        "total_tokens": usage.total(),
    })
}

/// The Response object (`response.created`, `response.completed`, or the
/// non-streamed body).
fn response_object(
    req: &ChatRequest,
    id: &str,
    created_at: i64,
    status: &str,
    output: Vec<Value>,
    usage: Option<&Usage>,
) -> Value {
    json!({
        "id": id,
        "object": "response",
        "created_at": created_at,
        "status": status,
        "background": false,
        "error": null,
        "incomplete_details": null,
        "instructions": null,
        "max_output_tokens": null,
        "max_tool_calls": null,
        "model": req.model,
        "output": output,
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "reasoning": { "effort": null, "summary": null },
        "service_tier": "default",
        "store": false,
        "temperature": 1.0,
        "text": {
            "format": req.response_format.clone().unwrap_or_else(|| json!({ "type": "text" })),
            "verbosity": "medium",
        },
        "tool_choice": "auto",
        "tools": [],
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage.map(usage_object),
        "user": null,
        "metadata": {},
    })
}

/// The OpenAI error body for an error reply:
/// `{"error": {"message", "type", "param", "code"}}`.
pub fn error_body(err: &ErrorReply) -> Value {
    super::openai_error::error_body(err, super::openai_error::Endpoint::Responses)
}

/// The event that ends a stream part way, numbered after the `sent` frames
/// before it: `response.failed` (the response with status `failed` and its
/// `error`) when `failed`, else a bare `error` event.
pub fn stream_error(
    req: &ChatRequest,
    resp: &Response,
    err: &ErrorReply,
    failed: bool,
    sent: usize,
) -> Frame {
    let body = error_body(err);
    let e = &body["error"];
    let code = e["code"]
        .as_str()
        .or(e["type"].as_str())
        .unwrap_or("server_error");
    let message = e["message"].clone();
    let data = if failed {
        let mut response = response_object(
            req,
            &Ids::new(resp).response,
            jiff::Timestamp::now().as_second(),
            "failed",
            Vec::new(),
            None,
        );
        response["error"] = json!({"code": code, "message": message});
        json!({"type": "response.failed", "sequence_number": sent, "response": response})
    } else {
        json!({"type": "error", "sequence_number": sent, "code": code, "message": message, "param": null})
    };
    let kind = if failed { "response.failed" } else { "error" };
    Frame::named(kind, &data, false)
}

#[cfg(test)]
mod tests {
    use crate::reply::ErrorKind;
    use serde_json::{Value, json};

    use super::*;
    use crate::reply::Cut;

    const FIRST_TURN: &str = include_str!("../../tests/fixtures/responses/codex_first_turn.json");
    const TOOL_RESULT: &str = include_str!("../../tests/fixtures/responses/codex_tool_result.json");
    const RESUME: &str = include_str!("../../tests/fixtures/responses/codex_resume.json");
    /// Codex 0.169's third request after this module's answers (reasoning +
    /// text + `exec_command` call, then an `apply_patch` custom tool call).
    const CUSTOM_TOOL_RESULT: &str =
        include_str!("../../tests/fixtures/responses/codex_custom_tool_result.json");

    fn fixture(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    fn parse_ok(body: &Value) -> ChatRequest {
        parse(body, &PathInfo::default()).unwrap()
    }

    fn usage() -> Usage {
        Usage {
            input: 100,
            output: 6,
            cache_read: 40,
            cache_write: 0,
            reasoning: 3,
            cache_write_1h: 0,
        }
    }

    fn shell_call() -> ToolCall {
        ToolCall {
            id: "call_abc123".into(),
            name: "exec_command".into(),
            arguments: json!({"cmd": "echo hello > hello.txt"}),
        }
    }

    fn request(stream: bool) -> ChatRequest {
        let mut req = ChatRequest::new(Api::Responses, "gpt-5.5", stream);
        req.tools = vec![
            ToolDecl {
                name: "exec_command".into(),
                parameters: json!({"type": "object", "properties": {"cmd": {"type": "string"}}}),
                ..ToolDecl::default()
            },
            ToolDecl {
                name: "apply_patch".into(),
                parameters: Value::Null,
                ..ToolDecl::default()
            },
        ];
        req
    }

    /// The frames as (event, data) with `created_at` replaced by 0.
    fn frames(rendered: Rendered) -> Vec<(String, Value, bool)> {
        let Rendered::Sse(frames) = rendered else {
            panic!("expected an SSE stream, got {rendered:?}");
        };
        frames
            .into_iter()
            .map(|f| {
                let mut data: Value = serde_json::from_str(&f.data).unwrap();
                if let Some(r) = data.get_mut("response") {
                    r["created_at"] = json!(0);
                }
                (f.event.unwrap(), data, f.content)
            })
            .collect()
    }

    fn events(frames: &[(String, Value, bool)]) -> Vec<&str> {
        frames.iter().map(|(e, _, _)| e.as_str()).collect()
    }

    fn find<'a>(frames: &'a [(String, Value, bool)], event: &str) -> Vec<&'a Value> {
        frames
            .iter()
            .filter(|(e, _, _)| e == event)
            .map(|(_, d, _)| d)
            .collect()
    }

    #[test]
    fn a_namespace_tool_declares_its_tools_and_a_call_carries_the_namespace() {
        // Codex declares an MCP server's tools in a namespace tool.
        let req = parse_ok(&json!({
            "model": "m", "stream": true, "input": [],
            "tools": [
                {"type": "function", "name": "exec_command", "parameters": {"type": "object"}},
                {"type": "namespace", "name": "mcp__probe", "description": "Tools.", "tools": [
                    {"type": "function", "name": "lookup", "parameters": {"type": "object",
                        "properties": {"key": {"type": "string"}}}}
                ]}
            ]
        }));
        assert_eq!(req.tool_names(), ["exec_command", "mcp__probe__lookup"]);
        let call = ToolCall {
            id: "call_1".into(),
            name: "mcp__probe__lookup".into(),
            arguments: json!({"key": "k42"}),
        };
        let resp = Response {
            thinking: None,
            text: Vec::new(),
            tool_calls: vec![call],
            usage: usage(),
            cut: None,
            id: "resp_7".into(),
        };
        let frames = frames(render(&req, &resp));
        let done = find(&frames, "response.output_item.done");
        assert_eq!(
            done[0]["item"],
            json!({"id": "fc_7_0", "type": "function_call", "status": "completed",
                   "arguments": "{\"key\":\"k42\"}", "call_id": "call_1",
                   "name": "lookup", "namespace": "mcp__probe"})
        );
        assert_eq!(
            find(&frames, "response.output_item.added")[0]["item"]["namespace"],
            "mcp__probe"
        );
        // A plain function's call has no namespace.
        let plain = tool_call_item(&req, &shell_call(), &Ids::new(&resp), 0);
        assert!(matches!(
            plain,
            OutputItem::FunctionCall {
                namespace: None,
                ..
            }
        ));
    }

    #[test]
    fn parses_codex_first_turn() {
        let req = parse_ok(&fixture(FIRST_TURN));
        assert_eq!(req.api, Api::Responses);
        assert_eq!(req.model, "gpt-5.5");
        assert!(req.stream);
        assert!(!req.wants_json);
        assert_eq!(
            req.tool_names(),
            [
                "exec_command",
                "write_stdin",
                "request_user_input",
                "apply_patch",
                "view_image",
                "get_goal",
                "create_goal",
                "update_goal",
                "tool_search",
                "web_search",
            ]
        );
        let exec = &req.tools[0];
        assert_eq!(exec.parameters["type"], "object");
        assert_eq!(exec.parameters["properties"]["cmd"]["type"], "string");
        assert_eq!(exec.parameters["required"], json!(["cmd"]));
        // Freeform and built-in tools carry no JSON Schema.
        assert_eq!(req.tools[3].parameters, Value::Null);
        assert_eq!(req.tools[9].parameters, Value::Null);
        assert_eq!(req.tools[8].parameters["required"], json!(["query"]));

        let roles: Vec<_> = req.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [
                Some(Role::System),
                Some(Role::System),
                Some(Role::User),
                Some(Role::User)
            ]
        );
        assert!(req.system.starts_with("You are Codex, a coding agent"));
        assert!(req.system.contains("<skills_instructions>"));
        assert!(req.system.contains("<permissions instructions>"));
        assert!(
            req.messages[1]
                .text
                .contains("\n<permissions instructions>")
        );
        assert!(req.messages[2].text.starts_with("<environment_context>"));
        assert_eq!(req.latest_user_text(), "RUNTOOL THINK create hello.txt");
        assert!(!req.latest_has_tool_result());
    }

    #[test]
    fn parses_codex_tool_result_turn() {
        let req = parse_ok(&fixture(TOOL_RESULT));
        let tail = serde_json::to_value(&req.messages[3..]).unwrap();
        assert_eq!(
            tail,
            json!([
                {"role": "user", "text": "RUNTOOL THINK create hello.txt"},
                {"role": "assistant", "tool_calls": ["exec_command"], "thinking": 1},
                {"role": "tool",
                 "text": "Chunk ID: 7c8cce\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n", "tool_output": "Chunk ID: 7c8cce\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n",
                 "tool_results": 1},
            ])
        );
        assert!(req.latest_has_tool_result());
        assert_eq!(req.latest_user_text(), req.messages[5].text);
    }

    #[test]
    fn parses_codex_resumed_session() {
        let req = parse_ok(&fixture(RESUME));
        let tail = serde_json::to_value(&req.messages[3..]).unwrap();
        assert_eq!(
            tail,
            json!([
                {"role": "user", "text": "RUNTOOL THINK create hello.txt"},
                {"role": "assistant", "tool_calls": ["exec_command"], "thinking": 1},
                {"role": "tool",
                 "text": "Chunk ID: 7c8cce\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n", "tool_output": "Chunk ID: 7c8cce\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n",
                 "tool_results": 1},
                {"role": "assistant", "text": "done", "thinking": 1},
                {"role": "user", "text": "second turn"},
            ])
        );
        assert_eq!(req.latest_user_text(), "second turn");
        assert!(!req.latest_has_tool_result());
    }

    #[test]
    fn parses_codex_custom_tool_result_turn() {
        let req = parse_ok(&fixture(CUSTOM_TOOL_RESULT));
        assert_eq!(req.tool_names(), ["exec_command", "apply_patch"]);
        let tail = serde_json::to_value(&req.messages[3..]).unwrap();
        assert_eq!(
            tail,
            json!([
                {"role": "user", "text": "make files\n"},
                {"role": "assistant", "text": "Creating it.", "tool_calls": ["exec_command"],
                 "thinking": 1},
                {"role": "tool",
                 "text": "Chunk ID: 680f04\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n", "tool_output": "Chunk ID: 680f04\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n",
                 "tool_results": 1},
                {"role": "assistant", "tool_calls": ["apply_patch"], "thinking": 1},
                {"role": "tool",
                 "text": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA b.txt\n", "tool_output": "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA b.txt\n",
                 "tool_results": 1},
            ])
        );
        assert!(req.latest_has_tool_result());
    }

    #[test]
    fn parses_other_input_shapes() {
        let body = json!({
            "model": "gpt-5",
            "instructions": "Be brief.",
            "input": [
                {"role": "system", "content": "sys text"},
                {"role": "user", "content": "plain string content"},
                {"type": "message", "role": "user", "content": [
                    {"type": "input_text", "text": "a"},
                    {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
                    {"type": "input_text", "text": "b"}
                ]},
                {"type": "reasoning", "id": "rs_1", "summary": []},
                {"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": "*** Begin Patch"},
                {"type": "function_call", "call_id": "c2", "name": "exec_command", "arguments": "{}"},
                {"type": "custom_tool_call_output", "call_id": "c1", "output": "patched"},
                {"type": "function_call_output", "call_id": "c2", "output": [{"type": "input_text", "text": "ok"}]},
                {"type": "item_reference", "id": "msg_9"},
                {"type": "some_future_item", "whatever": 1},
                {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "fine", "annotations": []}]}
            ],
            "tools": [
                {"type": "function", "name": "f", "parameters": {"type": "object"}},
                {"type": "custom", "name": "apply_patch", "format": {"type": "grammar", "syntax": "lark", "definition": "start: x"}},
                {"type": "web_search"},
                {"type": "function"}
            ],
            "text": {"format": {"type": "json_schema", "name": "out", "schema": {"type": "object"}, "strict": true}},
            "unknown_field": {"ignored": true}
        });
        let req = parse_ok(&body);
        assert!(!req.stream);
        assert!(req.wants_json);
        assert_eq!(req.system, "Be brief.\nsys text");
        assert_eq!(
            req.tool_names(),
            ["f", "apply_patch", "web_search", "function"]
        );
        assert_eq!(
            serde_json::to_value(&req.messages).unwrap(),
            json!([
                {"role": "system", "text": "sys text"},
                {"role": "user", "text": "plain string content"},
                {"role": "user", "text": "a\nb"},
                {"role": "assistant", "tool_calls": ["apply_patch", "exec_command"], "thinking": 1},
                {"role": "tool", "text": "patched", "tool_output": "patched", "tool_results": 1},
                {"role": "tool", "text": "ok", "tool_output": "ok", "tool_results": 1},
                {"role": "assistant", "text": "fine"},
            ])
        );

        let req = parse_ok(&json!({"model": "m", "input": "hi", "stream": true}));
        assert!(req.stream);
        assert_eq!(
            serde_json::to_value(&req.messages).unwrap(),
            json!([{"role": "user", "text": "hi"}])
        );

        // No input at all is tolerated.
        assert!(parse_ok(&json!({"model": "m"})).messages.is_empty());
    }

    #[test]
    fn rejects_bodies_without_an_object_or_a_model() {
        assert!(parse(&json!([1, 2]), &PathInfo::default()).is_err());
        assert!(parse(&json!("text"), &PathInfo::default()).is_err());
        assert!(parse(&json!({"input": "hi"}), &PathInfo::default()).is_err());
        let path = PathInfo {
            model: Some("from-path".into()),
            stream: Some(true),
        };
        let req = parse(&json!({"input": "hi"}), &path).unwrap();
        assert_eq!(req.model, "from-path");
        assert!(req.stream);
    }

    #[test]
    fn streams_text_as_the_real_api_does() {
        let resp = Response {
            text: vec!["do".into(), "ne".into()],
            usage: usage(),
            id: "resp_0001".into(),
            ..Response::default()
        };
        let frames = frames(render(&request(true), &resp));
        let pending = |status: &str, output: Value, usage: Value| {
            json!({
                "id": "resp_0001", "object": "response", "created_at": 0, "status": status,
                "background": false, "error": null, "incomplete_details": null,
                "instructions": null, "max_output_tokens": null, "max_tool_calls": null,
                "model": "gpt-5.5", "output": output, "parallel_tool_calls": true,
                "previous_response_id": null, "reasoning": {"effort": null, "summary": null},
                "service_tier": "default", "store": false, "temperature": 1.0,
                "text": {"format": {"type": "text"}, "verbosity": "medium"},
                "tool_choice": "auto", "tools": [], "top_logprobs": 0, "top_p": 1.0,
                "truncation": "disabled", "usage": usage, "user": null, "metadata": {}
            })
        };
        let done_item = json!({
            "id": "msg_0001", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "done"}]
        });
        let data: Vec<Value> = frames.iter().map(|(_, d, _)| d.clone()).collect();
        assert_eq!(
            data,
            vec![
                json!({"type": "response.created", "sequence_number": 0,
                       "response": pending("in_progress", json!([]), Value::Null)}),
                json!({"type": "response.in_progress", "sequence_number": 1,
                       "response": pending("in_progress", json!([]), Value::Null)}),
                json!({"type": "response.output_item.added", "sequence_number": 2, "output_index": 0,
                       "item": {"id": "msg_0001", "type": "message", "status": "in_progress",
                                "content": [], "role": "assistant"}}),
                json!({"type": "response.content_part.added", "sequence_number": 3,
                       "item_id": "msg_0001", "output_index": 0, "content_index": 0,
                       "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}}),
                json!({"type": "response.output_text.delta", "sequence_number": 4,
                       "item_id": "msg_0001", "output_index": 0, "content_index": 0,
                       "delta": "do", "logprobs": []}),
                json!({"type": "response.output_text.delta", "sequence_number": 5,
                       "item_id": "msg_0001", "output_index": 0, "content_index": 0,
                       "delta": "ne", "logprobs": []}),
                json!({"type": "response.output_text.done", "sequence_number": 6,
                       "item_id": "msg_0001", "output_index": 0, "content_index": 0,
                       "text": "done", "logprobs": []}),
                json!({"type": "response.content_part.done", "sequence_number": 7,
                       "item_id": "msg_0001", "output_index": 0, "content_index": 0,
                       "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": "done"}}),
                json!({"type": "response.output_item.done", "sequence_number": 8, "output_index": 0,
                       "item": done_item}),
                json!({"type": "response.completed", "sequence_number": 9,
                "response": pending("completed", json!([done_item]), json!({
                    "input_tokens": 140,
                    "input_tokens_details": {"cached_tokens": 40},
                    "output_tokens": 9,
                    "output_tokens_details": {"reasoning_tokens": 3},
                    "total_tokens": 149
                }))}),
            ]
        );
        // Every frame is named after its type.
        for (event, data, _) in &frames {
            assert_eq!(data["type"], json!(event));
        }
        // The first content frame is the first text delta.
        let contents: Vec<bool> = frames.iter().map(|(_, _, c)| *c).collect();
        assert_eq!(
            contents,
            [
                false, false, false, false, true, true, true, true, true, false
            ]
        );
    }

    #[test]
    fn streams_reasoning_text_and_a_shell_call_in_order() {
        let resp = Response {
            thinking: Some("**Fake reasoning** the user wants a short answer.".into()),
            text: vec!["Running it.".into()],
            tool_calls: vec![shell_call()],
            usage: usage(),
            cut: Some(Cut::Fail),
            id: "resp_42".into(),
        };
        let frames = frames(render(&request(true), &resp));
        assert_eq!(
            events(&frames),
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.reasoning_summary_part.added",
                "response.reasoning_summary_text.delta",
                "response.reasoning_summary_text.done",
                "response.reasoning_summary_part.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        for (i, (_, data, _)) in frames.iter().enumerate() {
            assert_eq!(data["sequence_number"], json!(i));
        }
        // A cut lands after the reasoning delta: the first content frame.
        let first_content = frames.iter().position(|(_, _, c)| *c).unwrap();
        assert_eq!(
            frames[first_content].0,
            "response.reasoning_summary_text.delta"
        );

        assert_eq!(
            find(&frames, "response.reasoning_summary_text.delta")[0],
            &json!({"type": "response.reasoning_summary_text.delta", "sequence_number": 4,
                    "item_id": "rs_42", "output_index": 0, "summary_index": 0,
                    "delta": "**Fake reasoning** the user wants a short answer."})
        );
        let reasoning = json!({"id": "rs_42", "type": "reasoning", "summary": [
            {"type": "summary_text", "text": "**Fake reasoning** the user wants a short answer."}]});
        assert_eq!(
            find(&frames, "response.output_item.done")[0]["item"],
            reasoning
        );

        // The shell call: Codex reads name, call_id and the JSON-string arguments
        // from the function_call item of response.output_item.done.
        let added = find(&frames, "response.output_item.added");
        assert_eq!(
            added[2],
            &json!({"type": "response.output_item.added", "sequence_number": 14, "output_index": 2,
                    "item": {"id": "fc_42_0", "type": "function_call", "status": "in_progress",
                             "arguments": "", "call_id": "call_abc123", "name": "exec_command"}})
        );
        assert_eq!(
            find(&frames, "response.function_call_arguments.delta")[0],
            &json!({"type": "response.function_call_arguments.delta", "sequence_number": 15,
                    "item_id": "fc_42_0", "output_index": 2,
                    "delta": "{\"cmd\":\"echo hello > hello.txt\"}"})
        );
        let call = json!({"id": "fc_42_0", "type": "function_call", "status": "completed",
                          "arguments": "{\"cmd\":\"echo hello > hello.txt\"}",
                          "call_id": "call_abc123", "name": "exec_command"});
        let done = find(&frames, "response.output_item.done");
        assert_eq!(done[2]["item"], call);
        let args: Value =
            serde_json::from_str(done[2]["item"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args, json!({"cmd": "echo hello > hello.txt"}));

        let completed = find(&frames, "response.completed")[0];
        assert_eq!(completed["response"]["status"], "completed");
        assert_eq!(
            completed["response"]["output"],
            json!([reasoning, done[1]["item"], call])
        );
        assert_eq!(
            completed["response"]["usage"],
            json!({"input_tokens": 140, "input_tokens_details": {"cached_tokens": 40},
                   "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 3},
                   "total_tokens": 149})
        );
    }

    #[test]
    fn a_tool_only_answer_has_no_message_item() {
        let resp = Response {
            tool_calls: vec![shell_call()],
            id: "resp_7".into(),
            ..Response::default()
        };
        let frames = frames(render(&request(true), &resp));
        let items: Vec<&Value> = find(&frames, "response.output_item.done")
            .into_iter()
            .map(|d| &d["item"]["type"])
            .collect();
        assert_eq!(items, [&json!("function_call")]);
        assert_eq!(frames.iter().position(|(_, _, c)| *c), Some(2));
    }

    #[test]
    fn an_empty_answer_still_has_a_message() {
        let resp = Response {
            id: "x".into(),
            ..Response::default()
        };
        let frames = frames(render(&request(true), &resp));
        assert!(find(&frames, "response.output_text.delta").is_empty());
        assert_eq!(
            find(&frames, "response.output_item.done")[0]["item"]["content"],
            json!([{"type": "output_text", "annotations": [], "logprobs": [], "text": ""}])
        );
        assert_eq!(
            find(&frames, "response.completed")[0]["response"]["id"],
            "resp_x"
        );
    }

    #[test]
    fn freeform_tools_get_custom_tool_calls() {
        let resp = Response {
            tool_calls: vec![ToolCall {
                id: "call_p".into(),
                name: "apply_patch".into(),
                arguments: json!("*** Begin Patch\n*** End Patch\n"),
            }],
            id: "resp_p".into(),
            ..Response::default()
        };
        let frames = frames(render(&request(true), &resp));
        assert_eq!(
            events(&frames)[2..],
            [
                "response.output_item.added",
                "response.custom_tool_call_input.delta",
                "response.custom_tool_call_input.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        assert_eq!(
            find(&frames, "response.output_item.done")[0]["item"],
            json!({"id": "ctc_p_0", "type": "custom_tool_call", "status": "completed",
                   "call_id": "call_p", "input": "*** Begin Patch\n*** End Patch\n",
                   "name": "apply_patch"})
        );
        assert_eq!(
            find(&frames, "response.custom_tool_call_input.delta")[0]["delta"],
            "*** Begin Patch\n*** End Patch\n"
        );
    }

    #[test]
    fn known_event_fields_have_the_types_codex_insists_on() {
        let resp = Response {
            thinking: Some("t".into()),
            text: vec!["a".into(), "b".into()],
            tool_calls: vec![shell_call()],
            usage: usage(),
            cut: None,
            id: "resp_c".into(),
        };
        for (event, data, _) in frames(render(&request(true), &resp)) {
            for key in ["delta", "text", "item_id", "call_id"] {
                if let Some(v) = data.get(key) {
                    assert!(v.is_string(), "{event}: {key} = {v}");
                }
            }
            for key in [
                "summary_index",
                "content_index",
                "output_index",
                "sequence_number",
            ] {
                if let Some(v) = data.get(key) {
                    assert!(v.is_u64(), "{event}: {key} = {v}");
                }
            }
            if let Some(item) = data.get("item") {
                assert!(item["id"].is_string());
                match item["type"].as_str().unwrap() {
                    "function_call" => {
                        assert!(item["arguments"].is_string());
                        assert!(item["call_id"].is_string());
                        assert!(item["name"].is_string());
                    }
                    "reasoning" => assert!(item["summary"].is_array()),
                    "message" => {
                        assert_eq!(item["role"], "assistant");
                        assert!(item["content"].is_array());
                    }
                    other => panic!("unexpected item type {other}"),
                }
            }
            if event.starts_with("response.") && data.get("response").is_some() {
                assert!(data["response"]["id"].is_string());
            }
        }
    }

    #[test]
    fn renders_the_non_streamed_response_object() {
        let resp = Response {
            thinking: Some("hmm".into()),
            text: vec!["He".into(), "llo".into()],
            tool_calls: vec![shell_call()],
            usage: Usage {
                input: 10,
                output: 5,
                cache_read: 2,
                cache_write: 3,
                reasoning: 4,
                cache_write_1h: 0,
            },
            cut: None,
            id: "resp_n".into(),
        };
        let Rendered::Json(mut body) = render(&request(false), &resp) else {
            panic!("expected a JSON body");
        };
        assert!(body["created_at"].as_i64().unwrap() > 1_700_000_000);
        body["created_at"] = json!(0);
        assert_eq!(
            body,
            json!({
                "id": "resp_n", "object": "response", "created_at": 0, "status": "completed",
                "background": false, "error": null, "incomplete_details": null,
                "instructions": null, "max_output_tokens": null, "max_tool_calls": null,
                "model": "gpt-5.5",
                "output": [
                    {"id": "rs_n", "type": "reasoning",
                     "summary": [{"type": "summary_text", "text": "hmm"}]},
                    {"id": "msg_n", "type": "message", "status": "completed", "role": "assistant",
                     "content": [{"type": "output_text", "annotations": [], "logprobs": [],
                                  "text": "Hello"}]},
                    {"id": "fc_n_0", "type": "function_call", "status": "completed",
                     "arguments": "{\"cmd\":\"echo hello > hello.txt\"}",
                     "call_id": "call_abc123", "name": "exec_command"}
                ],
                "parallel_tool_calls": true, "previous_response_id": null,
                "reasoning": {"effort": null, "summary": null},
                "service_tier": "default", "store": false, "temperature": 1.0,
                "text": {"format": {"type": "text"}, "verbosity": "medium"},
                "tool_choice": "auto", "tools": [], "top_logprobs": 0, "top_p": 1.0,
                "truncation": "disabled",
                "usage": {
                    "input_tokens": 15,
                    "input_tokens_details": {"cached_tokens": 2, "cache_write_tokens": 3},
                    "output_tokens": 9,
                    "output_tokens_details": {"reasoning_tokens": 4},
                    "total_tokens": 24
                },
                "user": null, "metadata": {}
            })
        );
    }

    #[test]
    fn a_codex_output_schema_is_kept_and_echoed() {
        // `codex exec --output-schema F` (0.169) sends the schema as a strict
        // `json_schema` text format, next to its usual tools.
        let format = json!({
            "type": "json_schema", "strict": true, "name": "codex_output_schema",
            "schema": {"type": "object", "properties": {"priority": {"type": "string", "enum": ["low", "high"]}},
                       "required": ["priority"], "additionalProperties": false}
        });
        let mut body = fixture(FIRST_TURN);
        body["text"] = json!({"verbosity": "low", "format": format});
        let req = parse_ok(&body);
        assert_eq!(req.response_format.as_ref(), Some(&format));
        assert!(req.wants_json);
        assert!(!req.tools.is_empty(), "not a tool-less side request");
        assert_eq!(crate::engine::SideRequest::detect(&req), None);

        let resp = Response {
            thinking: None,
            text: vec!["{\"priority\":\"high\"}".into()],
            tool_calls: Vec::new(),
            usage: usage(),
            cut: None,
            id: "resp_s".into(),
        };
        let f = frames(render(&req, &resp));
        let completed = find(&f, "response.completed");
        assert_eq!(completed[0]["response"]["text"]["format"], format);
        let done = find(&f, "response.output_text.done");
        assert_eq!(done[0]["text"], "{\"priority\":\"high\"}");

        // A plain text format is no structured-output request.
        body["text"] = json!({"format": {"type": "text"}});
        let req = parse_ok(&body);
        assert_eq!(req.response_format, None);
        assert!(!req.wants_json);
    }

    #[test]
    fn usage_maps_onto_openai_fields() {
        assert_eq!(
            usage_object(&Usage::default()),
            json!({"input_tokens": 0, "input_tokens_details": {"cached_tokens": 0},
                   "output_tokens": 0, "output_tokens_details": {"reasoning_tokens": 0},
                   "total_tokens": 0})
        );
        assert_eq!(
            usage_object(&Usage {
                input: 9510,
                output: 9,
                cache_read: 0,
                cache_write: 0,
                reasoning: 0,
                cache_write_1h: 0
            }),
            json!({"input_tokens": 9510, "input_tokens_details": {"cached_tokens": 0},
                   "output_tokens": 9, "output_tokens_details": {"reasoning_tokens": 0},
                   "total_tokens": 9519})
        );
    }

    #[test]
    fn response_ids_derive_from_the_script_id() {
        let ids = |id: &str| {
            let ids = Ids::new(&Response {
                id: id.into(),
                ..Response::default()
            });
            (ids.response.clone(), ids.item("msg"))
        };
        assert_eq!(ids("resp_abc"), ("resp_abc".into(), "msg_abc".into()));
        assert_eq!(ids("msg_01XY"), ("resp_01XY".into(), "msg_01XY".into()));
        assert_eq!(ids("chatcmpl-9"), ("resp_9".into(), "msg_9".into()));
        assert_eq!(ids("ABC_1"), ("resp_ABC_1".into(), "msg_ABC_1".into()));
        assert_eq!(ids(""), ("resp_fake".into(), "msg_fake".into()));
    }

    fn error(kind: ErrorKind) -> ErrorReply {
        ErrorReply {
            kind,
            status: kind.default_status(Api::Responses),
            message: None,
            retry_after: None,
            model: "gpt-5.5".into(),
        }
    }

    #[test]
    fn error_bodies_follow_openai() {
        let cases = [
            (
                ErrorKind::RateLimit,
                json!({"message": "Rate limit reached for gpt-5.5 in organization org-test on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit https://platform.openai.com/account/rate-limits to learn more.",
                       "type": "requests", "param": null, "code": "rate_limit_exceeded"}),
            ),
            (
                ErrorKind::InsufficientQuota,
                json!({"message": "You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.",
                       "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}),
            ),
            (
                ErrorKind::Overloaded,
                json!({"message": "Our servers are currently overloaded. Please try again later.",
                       "type": "service_unavailable_error", "param": null, "code": "server_is_overloaded"}),
            ),
            (
                ErrorKind::InvalidModel,
                json!({"message": "The model `gpt-5.5` does not exist or you do not have access to it.",
                       "type": "invalid_request_error", "param": null, "code": "model_not_found"}),
            ),
            (
                ErrorKind::Auth,
                json!({"message": "Incorrect API key provided: test. You can find your API key at https://platform.openai.com/account/api-keys.",
                       "type": "invalid_request_error", "param": null, "code": "invalid_api_key"}),
            ),
            (
                ErrorKind::PermissionDenied,
                json!({"message": "You have insufficient permissions for this operation. Missing scopes: api.responses.write. Check that you have the correct role in your organization (Reader, Writer, Owner) and project (Member, Owner), and if you're using a restricted API key, that it has the necessary scopes.",
                       "type": "invalid_request_error", "param": null, "code": null}),
            ),
            (
                ErrorKind::ContextTooLong,
                json!({"message": "Your input exceeds the context window of this model. Please adjust your input and try again.",
                       "type": "invalid_request_error", "param": "input", "code": "context_length_exceeded"}),
            ),
            (
                ErrorKind::InvalidRequest,
                json!({"message": "Invalid 'input': empty array. Expected an array with minimum length 1, but got an empty array instead.",
                       "type": "invalid_request_error", "param": "input", "code": "empty_array"}),
            ),
            (
                ErrorKind::ServerError,
                json!({"message": "An error occurred while processing your request. You can retry your request, or contact us through our help center at help.openai.com if the error persists. Please include the request ID req_test in your message.",
                       "type": "server_error", "param": null, "code": "server_error"}),
            ),
        ];
        for (kind, expected) in cases {
            assert_eq!(
                error_body(&error(kind)),
                json!({"error": expected}),
                "{kind:?}"
            );
        }
    }

    #[test]
    fn error_bodies_take_the_scripted_message_and_retry_delay() {
        let mut err = error(ErrorKind::RateLimit);
        err.retry_after = Some(2);
        assert!(
            error_body(&err)["error"]["message"]
                .as_str()
                .unwrap()
                .contains("Please try again in 2s.")
        );
        err.message = Some("slow down".into());
        assert_eq!(
            error_body(&err),
            json!({"error": {"message": "slow down", "type": "requests", "param": null,
                             "code": "rate_limit_exceeded"}})
        );
        let mut err = error(ErrorKind::InvalidModel);
        err.model = "gpt-nonexistent".into();
        assert_eq!(
            error_body(&err)["error"]["message"],
            "The model `gpt-nonexistent` does not exist or you do not have access to it."
        );
    }
}
