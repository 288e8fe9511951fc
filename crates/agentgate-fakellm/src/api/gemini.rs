//! The Gemini API (`generativelanguage.googleapis.com/v1beta`) as the
//! `@google/genai` SDK (and so Gemini CLI) uses it:
//! `POST /v1beta/models/<model>:generateContent` (one JSON body),
//! `:streamGenerateContent?alt=sse` (SSE with `data:` lines only, each a whole
//! `GenerateContentResponse`) and `:countTokens`.
//!
//! The model and the streaming mode come from the URL ([`PathInfo`]); the body
//! carries `contents`, `systemInstruction`, `tools` and `generationConfig`.

use serde_json::{Map, Value, json};

use super::{BadRequest, Frame, PathInfo, Rendered};
use crate::reply::{ErrorKind, ErrorReply, Response, ToolCall, Usage};
use crate::request::{Api, ChatRequest, Message, Role, ToolDecl, push_text};

/// The context window named in the "input token count" error.
const CONTEXT_WINDOW: u64 = 1_048_576;

/// Parse a `generateContent` / `streamGenerateContent` (or `countTokens`)
/// request body.
pub fn parse(body: &Value, path: &PathInfo) -> Result<ChatRequest, BadRequest> {
    let outer = body
        .as_object()
        .ok_or_else(|| BadRequest("the body is not a JSON object".into()))?;
    // `countTokens` may wrap a whole request in `generateContentRequest`.
    let obj = match (
        field(outer, "contents", "contents"),
        field(outer, "generateContentRequest", "generate_content_request"),
    ) {
        (None, Some(Value::Object(inner))) => inner,
        _ => outer,
    };
    let contents: Vec<&Value> = match field(obj, "contents", "contents") {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(item @ Value::Object(_)) => vec![item],
        _ => return Err(BadRequest("`contents` is not specified".into())),
    };

    let model = path
        .model
        .as_deref()
        .or_else(|| obj.get("model").and_then(Value::as_str))
        .or_else(|| outer.get("model").and_then(Value::as_str))
        .unwrap_or("");
    let model = model.strip_prefix("models/").unwrap_or(model);
    let mut req = ChatRequest::new(Api::Gemini, model, path.stream.unwrap_or(false));

    if let Some(system) = field(obj, "systemInstruction", "system_instruction") {
        req.system = match system {
            Value::Object(content) => content.get("parts").map(super::text_of).unwrap_or_default(),
            other => super::text_of(other),
        };
    }

    if let Some(Value::Array(tools)) = field(obj, "tools", "tools") {
        for tool in tools.iter().filter_map(Value::as_object) {
            let Some(Value::Array(decls)) =
                field(tool, "functionDeclarations", "function_declarations")
            else {
                continue;
            };
            for decl in decls.iter().filter_map(Value::as_object) {
                let Some(name) = decl.get("name").and_then(Value::as_str) else {
                    continue;
                };
                let parameters = field(decl, "parametersJsonSchema", "parameters_json_schema")
                    .or_else(|| decl.get("parameters"))
                    .cloned()
                    .unwrap_or(Value::Null);
                req.tools.push(ToolDecl {
                    name: name.to_owned(),
                    parameters,
                    ..ToolDecl::default()
                });
            }
        }
    }

    if let Some(Value::Object(config)) = field(obj, "generationConfig", "generation_config") {
        let mime_json = field(config, "responseMimeType", "response_mime_type")
            .and_then(Value::as_str)
            .is_some_and(|m| m.eq_ignore_ascii_case("application/json"));
        let schema = [
            ("responseJsonSchema", "response_json_schema"),
            ("responseSchema", "response_schema"),
        ]
        .iter()
        .any(|(camel, snake)| field(config, camel, snake).is_some_and(|v| !v.is_null()));
        req.wants_json = mime_json || schema;
    }

    req.messages = contents.into_iter().map(parse_content).collect();
    Ok(req)
}

/// One `Content` (`{role, parts}`) in short form.
fn parse_content(content: &Value) -> Message {
    let role = match content.get("role").and_then(Value::as_str) {
        Some("model") => Role::Assistant,
        Some("function") | Some("tool") => Role::Tool,
        Some("system") => Role::System,
        // Gemini defaults a content without a role to the user.
        _ => Role::User,
    };
    let mut msg = Message {
        role: Some(role),
        ..Message::default()
    };
    let parts = content.get("parts").and_then(Value::as_array);
    for part in parts.into_iter().flatten() {
        let Some(part) = part.as_object() else {
            if let Value::String(s) = part {
                push_text(&mut msg.text, s);
            }
            continue;
        };
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            msg.thinking += 1;
        } else if let Some(text) = part.get("text").and_then(Value::as_str) {
            push_text(&mut msg.text, text);
        }
        if let Some(call) = field(part, "functionCall", "function_call") {
            let name = call.get("name").and_then(Value::as_str).unwrap_or("");
            msg.tool_calls.push(name.to_owned());
        }
        if let Some(response) = field(part, "functionResponse", "function_response") {
            msg.tool_results += 1;
            let output = response.get("response").unwrap_or(response).to_string();
            push_text(&mut msg.tool_output, &output);
        }
    }
    msg
}

/// A field under its camelCase name (what the SDK sends) or its snake_case
/// name (which the REST API accepts too).
fn field<'a>(obj: &'a Map<String, Value>, camel: &str, snake: &str) -> Option<&'a Value> {
    obj.get(camel).or_else(|| obj.get(snake))
}

/// Render an answer: SSE frames for `streamGenerateContent`, one
/// `GenerateContentResponse` for `generateContent`.
pub fn render(req: &ChatRequest, resp: &Response) -> Rendered {
    if req.stream {
        Rendered::Sse(stream_frames(req, resp))
    } else {
        Rendered::Json(full_body(req, resp))
    }
}

/// The frames of a streamed answer: thinking, each text chunk, each tool call,
/// then a closing frame with `finishReason` and the final usage.
fn stream_frames(req: &ChatRequest, resp: &Response) -> Vec<Frame> {
    let signature = thought_signature(resp);
    let interim = interim_usage(&resp.usage);
    let frame = |parts: Vec<Value>, finish: bool, usage: &Value, content: bool| {
        Frame::data(
            &envelope(req, resp, candidate(parts, finish), usage),
            content,
        )
    };

    let mut frames = Vec::new();
    if let Some(thinking) = resp.thinking.as_deref().filter(|t| !t.is_empty()) {
        frames.push(frame(vec![thought_part(thinking)], false, &interim, true));
    }
    // An empty text part would make the SDK drop the chunk as invalid.
    for chunk in resp.text.iter().filter(|c| !c.is_empty()) {
        frames.push(frame(vec![json!({"text": chunk})], false, &interim, true));
    }
    for (i, call) in resp.tool_calls.iter().enumerate() {
        let sig = (i == 0).then_some(signature.as_str());
        frames.push(frame(
            vec![function_call_part(call, sig)],
            false,
            &interim,
            true,
        ));
    }
    // Gemini 3 closes a text answer with an empty text part carrying the
    // thought signature; after function calls (whose first part already
    // carries it) the closing candidate has no parts.
    let closing = if resp.tool_calls.is_empty() {
        vec![json!({"text": "", "thoughtSignature": signature})]
    } else {
        Vec::new()
    };
    frames.push(frame(closing, true, &usage_metadata(&resp.usage), false));
    frames
}

/// The body of a non-streamed answer.
fn full_body(req: &ChatRequest, resp: &Response) -> Value {
    let signature = thought_signature(resp);
    let mut parts = Vec::new();
    if let Some(thinking) = resp.thinking.as_deref().filter(|t| !t.is_empty()) {
        parts.push(thought_part(thinking));
    }
    let text = resp.full_text();
    if !text.is_empty() {
        if resp.tool_calls.is_empty() {
            parts.push(json!({"text": text, "thoughtSignature": signature}));
        } else {
            parts.push(json!({"text": text}));
        }
    }
    for (i, call) in resp.tool_calls.iter().enumerate() {
        let sig = (i == 0).then_some(signature.as_str());
        parts.push(function_call_part(call, sig));
    }
    envelope(
        req,
        resp,
        candidate(parts, true),
        &usage_metadata(&resp.usage),
    )
}

/// A `GenerateContentResponse` around one candidate.
fn envelope(req: &ChatRequest, resp: &Response, candidate: Value, usage: &Value) -> Value {
    let mut body = Map::new();
    body.insert("candidates".into(), json!([candidate]));
    body.insert("usageMetadata".into(), usage.clone());
    // Gemini CLI keys its per-model stats by `modelVersion`.
    if !req.model.is_empty() {
        body.insert("modelVersion".into(), json!(req.model));
    }
    body.insert("responseId".into(), json!(resp.id));
    Value::Object(body)
}

/// Candidate 0 with the given parts (none: a content with only its role, as
/// proto3 JSON leaves out an empty list).
fn candidate(parts: Vec<Value>, finish: bool) -> Value {
    let content = if parts.is_empty() {
        json!({"role": "model"})
    } else {
        json!({"parts": parts, "role": "model"})
    };
    let mut cand = Map::new();
    cand.insert("content".into(), content);
    if finish {
        cand.insert("finishReason".into(), json!("STOP"));
    }
    cand.insert("index".into(), json!(0));
    Value::Object(cand)
}

fn thought_part(thinking: &str) -> Value {
    json!({"text": thinking, "thought": true})
}

/// A `functionCall` part: the arguments as an object, the call id, and the
/// thought signature on the first call of a turn (as Gemini 3 sends it and
/// as the API demands it back).
fn function_call_part(call: &ToolCall, signature: Option<&str>) -> Value {
    let args = match &call.arguments {
        Value::Object(_) => call.arguments.clone(),
        Value::Null => json!({}),
        // A JSON string of an object is unwrapped; anything else is kept whole.
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(v @ Value::Object(_)) => v,
            _ => json!({"value": s}),
        },
        other => json!({"value": other}),
    };
    let mut part = Map::new();
    part.insert(
        "functionCall".into(),
        json!({"name": call.name, "args": args, "id": call.id}),
    );
    if let Some(sig) = signature {
        part.insert("thoughtSignature".into(), json!(sig));
    }
    Value::Object(part)
}

/// An opaque (base64) thought signature, stable for a response.
fn thought_signature(resp: &Response) -> String {
    base64(format!("agentgate-fakellm thought signature {}", resp.id).as_bytes())
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The final `usageMetadata`.
///
/// `promptTokenCount` is the whole prompt (uncached + cache read + cache
/// write; Gemini has no cache-write figure), `cachedContentTokenCount` the
/// part of it read from the cache, `candidatesTokenCount` the visible output
/// (Gemini counts thoughts apart, in `thoughtsTokenCount`) and
/// `totalTokenCount` everything. Zero cache/thought counts are left out, as
/// proto3 JSON does. Gemini CLI reports `input` = prompt − cached.
fn usage_metadata(usage: &Usage) -> Value {
    let prompt = usage.prompt_total();
    let mut u = Map::new();
    u.insert("promptTokenCount".into(), json!(prompt));
    u.insert("candidatesTokenCount".into(), json!(usage.output));
    u.insert("totalTokenCount".into(), json!(usage.total()));
    if usage.cache_read > 0 {
        u.insert("cachedContentTokenCount".into(), json!(usage.cache_read));
    }
    u.insert(
        "promptTokensDetails".into(),
        json!([{"modality": "TEXT", "tokenCount": prompt}]),
    );
    if usage.cache_read > 0 {
        u.insert(
            "cacheTokensDetails".into(),
            json!([{"modality": "TEXT", "tokenCount": usage.cache_read}]),
        );
    }
    if usage.reasoning > 0 {
        u.insert("thoughtsTokenCount".into(), json!(usage.reasoning));
    }
    Value::Object(u)
}

/// The `usageMetadata` of the chunks before the last: the prompt only.
fn interim_usage(usage: &Usage) -> Value {
    let prompt = usage.prompt_total();
    let mut u = Map::new();
    u.insert("promptTokenCount".into(), json!(prompt));
    u.insert("totalTokenCount".into(), json!(prompt));
    if usage.cache_read > 0 {
        u.insert("cachedContentTokenCount".into(), json!(usage.cache_read));
    }
    u.insert(
        "promptTokensDetails".into(),
        json!([{"modality": "TEXT", "tokenCount": prompt}]),
    );
    Value::Object(u)
}

/// The body of a `countTokens` answer.
pub fn count_tokens_body(n: u64) -> Value {
    json!({
        "totalTokens": n,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": n}],
    })
}

/// Google's canonical status name for an HTTP status.
fn status_name(code: u16) -> Option<&'static str> {
    Some(match code {
        400 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        500 => "INTERNAL",
        501 => "UNIMPLEMENTED",
        503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        _ => return None,
    })
}

/// The chunk that ends a stream part way: `data: {"error": {...}}`.
pub fn stream_error(err: &ErrorReply) -> Frame {
    Frame::data(&error_body(err), false)
}

/// The Google API error body (`{"error": {code, message, status, details}}`).
pub fn error_body(err: &ErrorReply) -> Value {
    let model = err.model.strip_prefix("models/").unwrap_or(&err.model);
    let retry_info = |secs: u64| {
        json!({
            "@type": "type.googleapis.com/google.rpc.RetryInfo",
            "retryDelay": format!("{secs}s"),
        })
    };
    let (status, message, details): (&str, String, Vec<Value>) = match err.kind {
        ErrorKind::RateLimit => (
            "RESOURCE_EXHAUSTED",
            "Resource has been exhausted (e.g. check quota).".into(),
            vec![retry_info(err.retry_after.unwrap_or(1))],
        ),
        ErrorKind::InsufficientQuota => {
            let mut details = vec![
                json!({
                    "@type": "type.googleapis.com/google.rpc.Help",
                    "links": [{
                        "description": "Learn more about Gemini API quotas",
                        "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
                    }],
                }),
                json!({
                    "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                    "violations": [{
                        "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                        "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                        "quotaDimensions": {"location": "global", "model": model},
                        "quotaValue": "250",
                    }],
                }),
            ];
            if let Some(secs) = err.retry_after {
                details.push(retry_info(secs));
            }
            (
                "RESOURCE_EXHAUSTED",
                "You exceeded your current quota, please check your plan and billing details."
                    .into(),
                details,
            )
        }
        ErrorKind::Overloaded => (
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.".into(),
            Vec::new(),
        ),
        ErrorKind::InvalidModel => (
            "NOT_FOUND",
            format!(
                "models/{model} is not found for API version v1beta, or is not supported for \
                 generateContent. Call ListModels to see the list of available models and their \
                 supported methods."
            ),
            Vec::new(),
        ),
        ErrorKind::Auth => {
            let message = "API key not valid. Please pass a valid API key.";
            (
                "UNAUTHENTICATED",
                message.into(),
                vec![
                    json!({
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                        "domain": "googleapis.com",
                        "metadata": {"service": "generativelanguage.googleapis.com"},
                    }),
                    json!({
                        "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                        "locale": "en-US",
                        "message": message,
                    }),
                ],
            )
        }
        ErrorKind::PermissionDenied => (
            "PERMISSION_DENIED",
            "The caller does not have permission".into(),
            Vec::new(),
        ),
        ErrorKind::ContextTooLong => (
            "INVALID_ARGUMENT",
            format!(
                "The input token count ({}) exceeds the maximum number of tokens allowed \
                 ({CONTEXT_WINDOW}).",
                CONTEXT_WINDOW + 1
            ),
            Vec::new(),
        ),
        ErrorKind::InvalidRequest => (
            "INVALID_ARGUMENT",
            "Request contains an invalid argument.".into(),
            Vec::new(),
        ),
        ErrorKind::ServerError => (
            "INTERNAL",
            "An internal error has occurred. Please retry or report in \
             https://developers.generativeai.google/guide/troubleshooting"
                .into(),
            Vec::new(),
        ),
    };
    // The status name follows the HTTP status when a script overrides it.
    let status = status_name(err.status).unwrap_or(status);
    let message = err.message.clone().unwrap_or(message);
    let mut error = Map::new();
    error.insert("code".into(), json!(err.status));
    error.insert("message".into(), json!(message));
    error.insert("status".into(), json!(status));
    if !details.is_empty() {
        error.insert("details".into(), Value::Array(details));
    }
    json!({ "error": error })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::Cut;

    const ROUTER: &str = include_str!("../../tests/fixtures/gemini/router_text_json.json");
    const TOOL_RESULT: &str = include_str!("../../tests/fixtures/gemini/stream_tool_result.json");
    const RESUME: &str = include_str!("../../tests/fixtures/gemini/stream_resume.json");

    /// A captured request: its URL path reduced the way the server does, and its body.
    fn fixture(text: &str) -> (PathInfo, Value) {
        let doc: Value = serde_json::from_str(text).unwrap();
        let path = doc["path"].as_str().unwrap();
        let rest = path.strip_prefix("/v1beta/models/").unwrap();
        let (model, method) = rest.split_once(':').unwrap();
        let info = PathInfo {
            model: Some(model.to_owned()),
            stream: Some(method.starts_with("streamGenerateContent")),
        };
        (info, doc["body"].clone())
    }

    fn stream_path(model: &str) -> PathInfo {
        PathInfo {
            model: Some(model.into()),
            stream: Some(true),
        }
    }

    fn req(stream: bool) -> ChatRequest {
        ChatRequest::new(Api::Gemini, "gemini-3.8-flash", stream)
    }

    fn shell_call() -> ToolCall {
        ToolCall {
            id: "call_7".into(),
            name: "run_shell_command".into(),
            arguments: json!({"command": "echo hello > hello.txt"}),
        }
    }

    fn usage() -> Usage {
        Usage {
            input: 100,
            output: 5,
            cache_read: 20,
            cache_write: 10,
            reasoning: 3,
            cache_write_1h: 0,
        }
    }

    fn frames(r: Rendered) -> Vec<Frame> {
        match r {
            Rendered::Sse(f) => f,
            Rendered::Json(v) => panic!("expected SSE, got {v}"),
        }
    }

    fn datas(frames: &[Frame]) -> Vec<Value> {
        frames
            .iter()
            .map(|f| serde_json::from_str(&f.data).unwrap())
            .collect()
    }

    fn sig(id: &str) -> String {
        base64(format!("agentgate-fakellm thought signature {id}").as_bytes())
    }

    // ---- parse -------------------------------------------------------------

    #[test]
    fn parses_the_router_request() {
        let (path, body) = fixture(ROUTER);
        let r = parse(&body, &path).unwrap();
        assert_eq!(r.api, Api::Gemini);
        assert_eq!(r.model, "gemini-3.5-flash-lite");
        assert!(!r.stream);
        assert!(r.wants_json);
        assert!(r.tools.is_empty());
        assert!(
            r.system
                .starts_with("\nYou are a specialized Task Routing AI.")
        );
        assert_eq!(r.messages.len(), 2);
        assert!(r.messages.iter().all(|m| m.role == Some(Role::User)));
        assert!(r.messages[0].text.starts_with("<session_context>"));
        assert_eq!(r.latest_user_text(), "say hi");
        assert!(!r.latest_has_tool_result());
    }

    #[test]
    fn parses_a_streamed_request_with_a_tool_result() {
        let (path, body) = fixture(TOOL_RESULT);
        let r = parse(&body, &path).unwrap();
        assert_eq!(r.model, "gemini-3.8-flash");
        assert!(r.stream);
        assert!(!r.wants_json);
        assert!(
            r.system
                .starts_with("You are Gemini CLI, an autonomous CLI agent")
        );
        assert_eq!(
            r.tool_names(),
            [
                "update_topic",
                "read_file",
                "run_shell_command",
                "activate_skill"
            ]
        );
        let shell = &r.tools[2];
        assert_eq!(
            shell.parameters,
            body["tools"][0]["functionDeclarations"][2]["parametersJsonSchema"]
        );
        assert_eq!(shell.parameters["required"], json!(["command"]));

        assert_eq!(r.messages.len(), 3);
        let user = &r.messages[0];
        assert_eq!(user.role, Some(Role::User));
        assert!(user.text.starts_with("<session_context>"));
        assert!(user.text.ends_with("\nRUNTOOL THINK create hello.txt"));
        assert_eq!(
            r.messages[1],
            Message {
                role: Some(Role::Assistant),
                tool_calls: vec!["run_shell_command".into()],
                ..Message::default()
            }
        );
        assert_eq!(
            r.messages[2],
            Message {
                role: Some(Role::User),
                tool_results: 1,
                tool_output: r#"{"output":"<untrusted_context>\nOutput: (empty)\nProcess Group PGID: 16413\n</untrusted_context>"}"#.into(),
                ..Message::default()
            }
        );
        assert!(r.latest_has_tool_result());
        assert_eq!(r.latest_user_text(), "");
    }

    #[test]
    fn parses_a_resumed_conversation() {
        let (path, body) = fixture(RESUME);
        let r = parse(&body, &path).unwrap();
        assert!(r.stream);
        assert_eq!(r.tool_names(), ["run_shell_command"]);
        let roles: Vec<_> = r.messages.iter().map(|m| m.role).collect();
        assert_eq!(
            roles,
            [Some(Role::User), Some(Role::Assistant), Some(Role::User)]
        );
        assert!(r.messages[0].text.ends_with("\nsay hi"));
        assert_eq!(r.messages[1].text, "done");
        assert_eq!(r.latest_user_text(), "second turn");
        assert!(!r.latest_has_tool_result());
    }

    #[test]
    fn parse_counts_thoughts_and_tolerates_unknown_shapes() {
        let body = json!({
            "model": "models/ignored-when-the-path-names-one",
            "contents": [
                {"parts": [{"text": "hi"}, {"inlineData": {"mimeType": "image/png", "data": "AA=="}}]},
                {"role": "model", "parts": [
                    {"text": "**Plan**\nthink", "thought": true},
                    {"text": "ok"},
                    {"function_call": {"name": "read_file", "args": {}}},
                    {"functionCall": {"name": "glob", "args": {}}, "thoughtSignature": "x"}
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "read_file", "response": {}}},
                    {"function_response": {"name": "glob", "response": {}}},
                    {"text": "and look again"}
                ]},
                {"role": "user"},
                "not a content"
            ],
            "system_instruction": {"parts": [{"text": "sys A"}, {"text": "sys B"}]},
            "tools": [
                {"googleSearch": {}},
                {"function_declarations": [
                    {"name": "read_file", "parameters": {"type": "OBJECT"}},
                    {"description": "no name"},
                    {"name": "bare"}
                ]}
            ],
            "generationConfig": {"responseSchema": {"type": "OBJECT"}},
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
            "somethingNew": 1
        });
        let r = parse(&body, &stream_path("models/gemini-x")).unwrap();
        assert_eq!(r.model, "gemini-x");
        assert!(r.stream);
        assert!(r.wants_json);
        assert_eq!(r.system, "sys A\nsys B");
        assert_eq!(r.tools.len(), 2);
        assert_eq!(r.tools[0].parameters, json!({"type": "OBJECT"}));
        assert_eq!(r.tools[1].name, "bare");
        assert_eq!(r.tools[1].parameters, Value::Null);
        assert_eq!(r.messages.len(), 5);
        assert_eq!(r.messages[0].role, Some(Role::User));
        assert_eq!(r.messages[0].text, "hi");
        assert_eq!(
            r.messages[1],
            Message {
                role: Some(Role::Assistant),
                text: "ok".into(),
                tool_calls: vec!["read_file".into(), "glob".into()],
                thinking: 1,
                ..Message::default()
            }
        );
        assert_eq!(r.messages[2].tool_results, 2);
        assert_eq!(r.messages[2].text, "and look again");
        assert_eq!(
            r.messages[3],
            Message {
                role: Some(Role::User),
                ..Message::default()
            }
        );
    }

    #[test]
    fn parse_takes_the_model_from_the_body_without_a_path_and_reads_count_tokens() {
        let body = json!({"generateContentRequest": {
            "model": "models/gemini-2.5-flash",
            "contents": [{"role": "user", "parts": [{"text": "count me"}]}],
            "generationConfig": {"responseMimeType": "text/plain"}
        }});
        let r = parse(&body, &PathInfo::default()).unwrap();
        assert_eq!(r.model, "gemini-2.5-flash");
        assert!(!r.stream);
        assert!(!r.wants_json);
        assert_eq!(r.latest_user_text(), "count me");

        let mime_only =
            json!({"contents": [], "generationConfig": {"responseMimeType": "application/json"}});
        assert!(parse(&mime_only, &PathInfo::default()).unwrap().wants_json);
    }

    #[test]
    fn parse_rejects_what_is_not_a_request() {
        let path = stream_path("m");
        assert!(parse(&json!([1, 2]), &path).is_err());
        assert!(parse(&json!("hi"), &path).is_err());
        assert!(parse(&json!({"systemInstruction": {"parts": []}}), &path).is_err());
        assert!(parse(&json!({"contents": "hi"}), &path).is_err());
    }

    // ---- render: stream ----------------------------------------------------

    #[test]
    fn streams_thinking_then_each_text_chunk_then_the_finish() {
        let resp = Response {
            thinking: Some("**Weighing**\nshort answer wanted".into()),
            text: vec!["do".into(), "".into(), "ne".into()],
            usage: usage(),
            id: "resp-1".into(),
            ..Response::default()
        };
        let f = frames(render(&req(true), &resp));
        assert!(
            f.iter()
                .all(|f| f.event.is_none() && !f.data.contains('\n'))
        );
        assert_eq!(
            f.iter().map(|f| f.content).collect::<Vec<_>>(),
            [true, true, true, false]
        );
        let interim = json!({
            "promptTokenCount": 130,
            "totalTokenCount": 130,
            "cachedContentTokenCount": 20,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 130}]
        });
        let chunk = |parts: Value| {
            json!({
                "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0}],
                "usageMetadata": interim,
                "modelVersion": "gemini-3.8-flash",
                "responseId": "resp-1"
            })
        };
        let d = datas(&f);
        assert_eq!(
            d[0],
            chunk(json!([{"text": "**Weighing**\nshort answer wanted", "thought": true}]))
        );
        assert_eq!(d[1], chunk(json!([{"text": "do"}])));
        assert_eq!(d[2], chunk(json!([{"text": "ne"}])));
        assert_eq!(
            d[3],
            json!({
                "candidates": [{
                    "content": {"parts": [{"text": "", "thoughtSignature": sig("resp-1")}], "role": "model"},
                    "finishReason": "STOP",
                    "index": 0
                }],
                "usageMetadata": {
                    "promptTokenCount": 130,
                    "candidatesTokenCount": 5,
                    "totalTokenCount": 138,
                    "cachedContentTokenCount": 20,
                    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 130}],
                    "cacheTokensDetails": [{"modality": "TEXT", "tokenCount": 20}],
                    "thoughtsTokenCount": 3
                },
                "modelVersion": "gemini-3.8-flash",
                "responseId": "resp-1"
            })
        );
    }

    #[test]
    fn streams_a_shell_call_as_a_function_call_part() {
        let second = ToolCall {
            id: "call_8".into(),
            name: "read_file".into(),
            arguments: json!("{\"file_path\": \"hello.txt\"}"),
        };
        let resp = Response {
            tool_calls: vec![shell_call(), second],
            usage: Usage {
                input: 40,
                output: 10,
                ..Usage::default()
            },
            id: "resp-2".into(),
            ..Response::default()
        };
        let f = frames(render(&req(true), &resp));
        assert_eq!(
            f.iter().map(|f| f.content).collect::<Vec<_>>(),
            [true, true, false]
        );
        let d = datas(&f);
        assert_eq!(
            d[0]["candidates"][0]["content"],
            json!({"parts": [{
                "functionCall": {
                    "name": "run_shell_command",
                    "args": {"command": "echo hello > hello.txt"},
                    "id": "call_7"
                },
                "thoughtSignature": sig("resp-2")
            }], "role": "model"})
        );
        // Only the first call of a turn carries the signature; string
        // arguments are sent as the object they encode.
        assert_eq!(
            d[1]["candidates"][0]["content"]["parts"],
            json!([{"functionCall": {"name": "read_file", "args": {"file_path": "hello.txt"}, "id": "call_8"}}])
        );
        assert_eq!(
            d[2]["candidates"],
            json!([{"content": {"role": "model"}, "finishReason": "STOP", "index": 0}])
        );
        assert_eq!(
            d[2]["usageMetadata"],
            json!({
                "promptTokenCount": 40,
                "candidatesTokenCount": 10,
                "totalTokenCount": 50,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 40}]
            })
        );
    }

    /// What Gemini CLI makes of the stream (mirrors its reading in
    /// `Turn.run` / `GeminiChat.processStreamResponse`): every chunk is a
    /// valid response, the visible text is the non-thought text, function
    /// calls come from `functionCall` parts, the finish reason and the usage
    /// from the last chunk that has them, the stats model from `modelVersion`.
    #[test]
    fn the_stream_reads_as_gemini_cli_reads_it() {
        let resp = Response {
            thinking: Some("hmm".into()),
            text: vec!["Creating ".into(), "the file.".into()],
            tool_calls: vec![shell_call()],
            usage: usage(),
            cut: Some(Cut::Fail),
            id: "resp-3".into(),
        };
        let d = datas(&frames(render(&req(true), &resp)));
        let (mut text, mut thoughts, mut calls, mut finish, mut last_usage) =
            (String::new(), 0, Vec::new(), None, None);
        for chunk in &d {
            assert_eq!(chunk["modelVersion"], "gemini-3.8-flash");
            let content = &chunk["candidates"][0]["content"];
            assert_eq!(content["role"], "model");
            for part in content["parts"].as_array().into_iter().flatten() {
                let obj = part.as_object().unwrap();
                assert!(!obj.is_empty());
                let text_only = obj.keys().all(|k| k == "text" || k == "thought");
                assert!(!(text_only && part["text"] == "" && part["thought"] != true));
                if part["thought"] == true {
                    thoughts += 1;
                } else if let Some(t) = part["text"].as_str() {
                    text.push_str(t);
                }
                if let Some(call) = part.get("functionCall") {
                    calls.push(call.clone());
                }
            }
            if let Some(r) = chunk["candidates"][0].get("finishReason") {
                finish = Some(r.clone());
            }
            last_usage = Some(chunk["usageMetadata"].clone());
        }
        assert_eq!(text, "Creating the file.");
        assert_eq!(thoughts, 1);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0]["name"], "run_shell_command");
        assert_eq!(calls[0]["args"]["command"], "echo hello > hello.txt");
        assert_eq!(finish, Some(json!("STOP")));
        let u = last_usage.unwrap();
        // The CLI's stats: input = prompt - cached, output = candidates.
        let prompt = u["promptTokenCount"].as_u64().unwrap();
        let cached = u["cachedContentTokenCount"].as_u64().unwrap();
        assert_eq!(prompt - cached, 110);
        assert_eq!(u["candidatesTokenCount"], 5);
        assert_eq!(u["thoughtsTokenCount"], 3);
        assert_eq!(u["totalTokenCount"], 138);
    }

    #[test]
    fn an_empty_answer_still_finishes() {
        let resp = Response {
            id: "r".into(),
            ..Response::default()
        };
        let f = frames(render(&req(true), &resp));
        assert_eq!(f.len(), 1);
        assert!(!f[0].content);
        let d = datas(&f);
        assert_eq!(d[0]["candidates"][0]["finishReason"], "STOP");
        assert_eq!(
            d[0]["usageMetadata"],
            json!({
                "promptTokenCount": 0,
                "candidatesTokenCount": 0,
                "totalTokenCount": 0,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 0}]
            })
        );
    }

    // ---- render: one body --------------------------------------------------

    #[test]
    fn renders_one_generate_content_response() {
        let resp = Response {
            thinking: Some("think".into()),
            text: vec![
                "{\"complexity_reasoning\": \"easy\", ".into(),
                "\"complexity_score\": 5}".into(),
            ],
            usage: Usage {
                input: 846,
                output: 5,
                ..Usage::default()
            },
            id: "resp-4".into(),
            ..Response::default()
        };
        let mut r = req(false);
        r.model = "gemini-3.5-flash-lite".into();
        let Rendered::Json(body) = render(&r, &resp) else {
            panic!("expected JSON")
        };
        assert_eq!(
            body,
            json!({
                "candidates": [{
                    "content": {"parts": [
                        {"text": "think", "thought": true},
                        {
                            "text": "{\"complexity_reasoning\": \"easy\", \"complexity_score\": 5}",
                            "thoughtSignature": sig("resp-4")
                        }
                    ], "role": "model"},
                    "finishReason": "STOP",
                    "index": 0
                }],
                "usageMetadata": {
                    "promptTokenCount": 846,
                    "candidatesTokenCount": 5,
                    "totalTokenCount": 851,
                    "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 846}]
                },
                "modelVersion": "gemini-3.5-flash-lite",
                "responseId": "resp-4"
            })
        );
    }

    #[test]
    fn renders_text_and_calls_in_one_body() {
        let resp = Response {
            text: vec!["Running it.".into()],
            tool_calls: vec![shell_call()],
            usage: usage(),
            id: "resp-5".into(),
            ..Response::default()
        };
        let Rendered::Json(body) = render(&req(false), &resp) else {
            panic!("expected JSON")
        };
        assert_eq!(
            body["candidates"][0]["content"]["parts"],
            json!([
                {"text": "Running it."},
                {
                    "functionCall": {
                        "name": "run_shell_command",
                        "args": {"command": "echo hello > hello.txt"},
                        "id": "call_7"
                    },
                    "thoughtSignature": sig("resp-5")
                }
            ])
        );
        assert_eq!(body["candidates"][0]["finishReason"], "STOP");
        assert_eq!(body["usageMetadata"]["totalTokenCount"], 138);
    }

    #[test]
    fn count_tokens_answer() {
        assert_eq!(
            count_tokens_body(42),
            json!({"totalTokens": 42, "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 42}]})
        );
    }

    #[test]
    fn base64_pads_like_the_standard() {
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b"fo"), "Zm8=");
        assert_eq!(base64(b"foo"), "Zm9v");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
    }

    // ---- errors ------------------------------------------------------------

    fn error(kind: ErrorKind) -> ErrorReply {
        ErrorReply {
            kind,
            status: kind.default_status(Api::Gemini),
            message: None,
            retry_after: None,
            model: "gemini-3.8-flash".into(),
        }
    }

    #[test]
    fn rate_limit_is_resource_exhausted_with_a_retry_delay() {
        let mut e = error(ErrorKind::RateLimit);
        assert_eq!(
            error_body(&e),
            json!({"error": {
                "code": 429,
                "message": "Resource has been exhausted (e.g. check quota).",
                "status": "RESOURCE_EXHAUSTED",
                "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"}]
            }})
        );
        e.retry_after = Some(20);
        assert_eq!(error_body(&e)["error"]["details"][0]["retryDelay"], "20s");
    }

    #[test]
    fn insufficient_quota_is_a_per_day_quota_failure() {
        assert_eq!(
            error_body(&error(ErrorKind::InsufficientQuota)),
            json!({"error": {
                "code": 429,
                "message": "You exceeded your current quota, please check your plan and billing details.",
                "status": "RESOURCE_EXHAUSTED",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.Help",
                        "links": [{
                            "description": "Learn more about Gemini API quotas",
                            "url": "https://ai.google.dev/gemini-api/docs/rate-limits"
                        }]
                    },
                    {
                        "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                        "violations": [{
                            "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                            "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier",
                            "quotaDimensions": {"location": "global", "model": "gemini-3.8-flash"},
                            "quotaValue": "250"
                        }]
                    }
                ]
            }})
        );
        let mut e = error(ErrorKind::InsufficientQuota);
        e.retry_after = Some(30);
        let details = error_body(&e)["error"]["details"].clone();
        assert_eq!(
            details[2],
            json!({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "30s"})
        );
    }

    #[test]
    fn auth_error_is_unauthenticated_with_the_api_key_reason() {
        assert_eq!(
            error_body(&error(ErrorKind::Auth)),
            json!({"error": {
                "code": 401,
                "message": "API key not valid. Please pass a valid API key.",
                "status": "UNAUTHENTICATED",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                        "domain": "googleapis.com",
                        "metadata": {"service": "generativelanguage.googleapis.com"}
                    },
                    {
                        "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
                        "locale": "en-US",
                        "message": "API key not valid. Please pass a valid API key."
                    }
                ]
            }})
        );
    }

    #[test]
    fn the_other_errors() {
        let plain = |kind, code: u16, status: &str, message: &str| {
            assert_eq!(
                error_body(&error(kind)),
                json!({"error": {"code": code, "message": message, "status": status}}),
                "{kind:?}"
            );
        };
        plain(
            ErrorKind::InvalidModel,
            404,
            "NOT_FOUND",
            "models/gemini-3.8-flash is not found for API version v1beta, or is not supported for \
             generateContent. Call ListModels to see the list of available models and their \
             supported methods.",
        );
        plain(
            ErrorKind::Overloaded,
            503,
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.",
        );
        plain(
            ErrorKind::PermissionDenied,
            403,
            "PERMISSION_DENIED",
            "The caller does not have permission",
        );
        plain(
            ErrorKind::ContextTooLong,
            400,
            "INVALID_ARGUMENT",
            "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).",
        );
        plain(
            ErrorKind::InvalidRequest,
            400,
            "INVALID_ARGUMENT",
            "Request contains an invalid argument.",
        );
        plain(
            ErrorKind::ServerError,
            500,
            "INTERNAL",
            "An internal error has occurred. Please retry or report in \
             https://developers.generativeai.google/guide/troubleshooting",
        );
    }

    #[test]
    fn a_scripted_message_and_status_override_the_defaults() {
        let mut e = error(ErrorKind::Auth);
        e.status = 400;
        e.message = Some("custom".into());
        e.model = "models/gemini-x".into();
        let body = error_body(&e);
        assert_eq!(body["error"]["code"], 400);
        assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");
        assert_eq!(body["error"]["message"], "custom");

        let mut e = error(ErrorKind::InvalidModel);
        e.model = "models/gemini-x".into();
        let msg = error_body(&e)["error"]["message"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(msg.starts_with("models/gemini-x is not found"), "{msg}");

        let mut e = error(ErrorKind::Overloaded);
        e.status = 529;
        assert_eq!(error_body(&e)["error"]["status"], "UNAVAILABLE");
    }
}
