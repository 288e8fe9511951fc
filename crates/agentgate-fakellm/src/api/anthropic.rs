//! The Anthropic Messages API (`POST /v1/messages`), as Claude Code uses it.

use serde_json::{Value, json};

use super::{BadRequest, Frame, PathInfo, Rendered, text_of};
use crate::reply::{ErrorKind, ErrorReply, Response};
use crate::request::{Api, ChatRequest, Message, Role, ToolDecl, push_text};

/// Parse a Messages API request body.
pub fn parse(body: &Value, _path: &PathInfo) -> Result<ChatRequest, BadRequest> {
    let obj = body
        .as_object()
        .ok_or_else(|| BadRequest("expected a JSON object".into()))?;
    let model = obj
        .get("model")
        .and_then(Value::as_str)
        .ok_or_else(|| BadRequest("missing `model`".into()))?;
    let stream = obj.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let mut req = ChatRequest::new(Api::Anthropic, model, stream);
    if let Some(system) = obj.get("system") {
        req.system = text_of(system);
    }
    if let Some(tools) = obj.get("tools").and_then(Value::as_array) {
        for t in tools {
            if let Some(name) = t.get("name").and_then(Value::as_str) {
                req.tools.push(ToolDecl {
                    name: name.to_owned(),
                    parameters: t.get("input_schema").cloned().unwrap_or(Value::Null),
                    ..ToolDecl::default()
                });
            }
        }
    }
    for m in obj
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = match m.get("role").and_then(Value::as_str) {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            Some("system") => Role::System,
            _ => continue,
        };
        let mut msg = Message {
            role: Some(role),
            ..Message::default()
        };
        match m.get("content") {
            Some(Value::String(s)) => msg.text = s.clone(),
            Some(Value::Array(blocks)) => {
                for b in blocks {
                    match b.get("type").and_then(Value::as_str) {
                        Some("text") => push_text(
                            &mut msg.text,
                            b.get("text").and_then(Value::as_str).unwrap_or(""),
                        ),
                        Some("tool_use") | Some("server_tool_use") => msg.tool_calls.push(
                            b.get("name")
                                .and_then(Value::as_str)
                                .unwrap_or("")
                                .to_owned(),
                        ),
                        Some("tool_result") => {
                            msg.tool_results += 1;
                            push_text(&mut msg.tool_output, &tool_result_text(b.get("content")));
                        }
                        Some("thinking") | Some("redacted_thinking") => msg.thinking += 1,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        if role == Role::System {
            push_text(&mut req.system, &msg.text);
        }
        req.messages.push(msg);
    }
    Ok(req)
}

/// A `tool_result`'s content: a string, or text blocks.
fn tool_result_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            let mut out = String::new();
            for b in blocks {
                if let Some(t) = b.get("text").and_then(Value::as_str) {
                    push_text(&mut out, t);
                }
            }
            out
        }
        _ => String::new(),
    }
}

fn usage_json(resp: &Response) -> Value {
    let u = resp.usage;
    json!({
        "input_tokens": u.input,
        "cache_creation_input_tokens": u.cache_write,
        "cache_read_input_tokens": u.cache_read,
        "cache_creation": {
            "ephemeral_5m_input_tokens": u.cache_write_5m(),
            "ephemeral_1h_input_tokens": u.cache_write_1h,
        },
        "output_tokens": u.output_with_reasoning(),
    })
}

fn stop_reason(resp: &Response) -> &'static str {
    if resp.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    }
}

/// The signature sent with scripted thinking blocks.
pub const THINKING_SIGNATURE: &str = "fakellm-signature";

/// Render an answer as SSE events or a message object.
pub fn render(req: &ChatRequest, resp: &Response) -> Rendered {
    if !req.stream {
        let mut content = Vec::new();
        if let Some(t) = &resp.thinking {
            content
                .push(json!({"type": "thinking", "thinking": t, "signature": THINKING_SIGNATURE}));
        }
        if !resp.text.is_empty() {
            content.push(json!({"type": "text", "text": resp.full_text()}));
        }
        for c in &resp.tool_calls {
            content.push(
                json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}),
            );
        }
        return Rendered::Json(json!({
            "id": resp.id,
            "type": "message",
            "role": "assistant",
            "model": req.model,
            "content": content,
            "stop_reason": stop_reason(resp),
            "stop_sequence": null,
            "usage": usage_json(resp),
        }));
    }
    let mut frames = Vec::new();
    let mut start_usage = usage_json(resp);
    start_usage["output_tokens"] = json!(1);
    frames.push(Frame::named(
        "message_start",
        &json!({"type": "message_start", "message": {
            "id": resp.id, "type": "message", "role": "assistant", "model": req.model,
            "content": [], "stop_reason": null, "stop_sequence": null, "usage": start_usage,
        }}),
        false,
    ));
    let mut index = 0;
    if let Some(t) = &resp.thinking {
        frames.push(block_start(
            index,
            json!({"type": "thinking", "thinking": "", "signature": ""}),
        ));
        frames.push(delta(
            index,
            json!({"type": "thinking_delta", "thinking": t}),
            true,
        ));
        frames.push(delta(
            index,
            json!({"type": "signature_delta", "signature": THINKING_SIGNATURE}),
            false,
        ));
        frames.push(block_stop(index));
        index += 1;
    }
    if !resp.text.is_empty() {
        frames.push(block_start(index, json!({"type": "text", "text": ""})));
        for chunk in &resp.text {
            frames.push(delta(
                index,
                json!({"type": "text_delta", "text": chunk}),
                true,
            ));
        }
        frames.push(block_stop(index));
        index += 1;
    }
    for c in &resp.tool_calls {
        frames.push(block_start(
            index,
            json!({"type": "tool_use", "id": c.id, "name": c.name, "input": {}}),
        ));
        frames.push(delta(
            index,
            json!({"type": "input_json_delta", "partial_json": c.arguments.to_string()}),
            true,
        ));
        frames.push(block_stop(index));
        index += 1;
    }
    frames.push(Frame::named(
        "message_delta",
        &json!({"type": "message_delta",
            "delta": {"stop_reason": stop_reason(resp), "stop_sequence": null},
            "usage": usage_json(resp)}),
        false,
    ));
    frames.push(Frame::named(
        "message_stop",
        &json!({"type": "message_stop"}),
        false,
    ));
    Rendered::Sse(frames)
}

fn block_start(index: usize, block: Value) -> Frame {
    Frame::named(
        "content_block_start",
        &json!({"type": "content_block_start", "index": index, "content_block": block}),
        false,
    )
}

fn delta(index: usize, delta: Value, content: bool) -> Frame {
    Frame::named(
        "content_block_delta",
        &json!({"type": "content_block_delta", "index": index, "delta": delta}),
        content,
    )
}

fn block_stop(index: usize) -> Frame {
    Frame::named(
        "content_block_stop",
        &json!({"type": "content_block_stop", "index": index}),
        false,
    )
}

/// The `event: error` that ends a stream part way (as the API sends an
/// `overloaded_error` or `api_error` after the answer has started).
pub fn stream_error(err: &ErrorReply) -> Frame {
    Frame::named("error", &error_body(err), false)
}

/// Anthropic's error body: `{"type": "error", "error": {"type", "message"}}`.
pub fn error_body(err: &ErrorReply) -> Value {
    let (ty, default) = match err.kind {
        ErrorKind::RateLimit => (
            "rate_limit_error",
            "This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later.".to_owned(),
        ),
        ErrorKind::InsufficientQuota => (
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.".to_owned(),
        ),
        ErrorKind::Overloaded => ("overloaded_error", "Overloaded".to_owned()),
        ErrorKind::InvalidModel => ("not_found_error", format!("model: {}", err.model)),
        ErrorKind::Auth => ("authentication_error", "invalid x-api-key".to_owned()),
        ErrorKind::PermissionDenied => (
            "permission_error",
            "Your API key does not have permission to use the specified resource.".to_owned(),
        ),
        ErrorKind::ContextTooLong => (
            "invalid_request_error",
            "prompt is too long: 212000 tokens > 200000 maximum".to_owned(),
        ),
        ErrorKind::InvalidRequest => ("invalid_request_error", "Invalid request".to_owned()),
        ErrorKind::ServerError => ("api_error", "Internal server error".to_owned()),
    };
    // A 400 for an invalid model reads as Anthropic words it.
    let ty = if err.kind == ErrorKind::InvalidModel && err.status == 400 {
        "invalid_request_error"
    } else {
        ty
    };
    json!({
        "type": "error",
        "error": {"type": ty, "message": err.message.clone().unwrap_or(default)},
        "request_id": "req_fakellm",
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_tool_results_text_is_kept_as_its_output() {
        let body = json!({
            "model": "claude-sonnet-4-5",
            "messages": [
                {"role": "user", "content": "look it up"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "mcp__probe__lookup", "input": {"key": "k"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "value-of-k"}]},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "plain"},
                ]},
            ],
        });
        let req = parse(&body, &PathInfo::default()).unwrap();
        let last = &req.messages[2];
        assert_eq!(last.tool_results, 2);
        assert_eq!(last.tool_output, "value-of-k\nplain");
        assert_eq!(req.messages[1].tool_calls, ["mcp__probe__lookup"]);
    }
}
