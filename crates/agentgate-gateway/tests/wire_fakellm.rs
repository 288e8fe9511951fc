//! The wire module against the scripted model server: real HTTP requests
//! to `agentgate-fakellm` in all four APIs, streamed and not, each body fed
//! to the tap in 7-byte chunks; every token class must equal what the
//! server was scripted to send, mapped as agentgate's CLI decoders map it
//! (input with cache reads and writes in it, output with reasoning in it).
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test by panicking"
)]

use std::time::Duration;

use agentgate_fakellm::api::{anthropic, chat, gemini, responses};
use agentgate_fakellm::reply::{ErrorKind, ErrorReply};
use agentgate_fakellm::{Api, FakeLlm, Script, ServerConfig};
use agentgate_gateway::wire::{self, ResponseTap, TapReport};
use agentgate_protocol::{Usage, WireApi};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Distinct figures for every class, so a swap of two shows.
const SCRIPT: &str = r#"
turns:
  - match: {contains: "USAGE"}
    repeat: true
    thinking: "Plan: answer."
    text: ["Hel", "lo, ", "wor", "ld"]
    usage: {input: 101, output: 23, cache_read: 1009, cache_write: 307, cache_write_1h: 100, reasoning: 7}
  - match: {contains: "BREAK"}
    repeat: true
    text: ["partial", "never-sent"]
    usage: {input: 11, output: 5, cache_read: 0, cache_write: 0, reasoning: 0}
    fail: error_event
    fail_error: {kind: overloaded}
  - match: {contains: "CUT"}
    repeat: true
    text: ["partial", "never-sent"]
    fail: mid_stream
  - match: {contains: "NOFIN"}
    repeat: true
    text: ["partial", "more"]
    fail: no_finish
  - match: {contains: "LIMIT"}
    repeat: true
    error: {kind: rate_limit, retry_after: 30}
"#;

/// A response: status, headers (lower-case names) and body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn header_map(&self) -> http::HeaderMap {
        let mut map = http::HeaderMap::new();
        for (k, v) in &self.headers {
            if let (Ok(k), Ok(v)) = (
                http::HeaderName::from_bytes(k.as_bytes()),
                http::HeaderValue::from_str(v),
            ) {
                map.append(k, v);
            }
        }
        map
    }
}

/// POST `body` to `path` over HTTP/1.1 (`connection: close`), reading the
/// whole response; a chunked body is decoded (up to where it was cut).
async fn post(server: &FakeLlm, path: &str, body: &Value) -> Reply {
    let body = body.to_string();
    let request = format!(
        "POST {path} HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\n\
         anthropic-version: 2023-06-01\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        server.addr(),
        body.len()
    );
    let exchange = async {
        let mut stream = TcpStream::connect(server.addr()).await.unwrap();
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        // A connection the server drops part way still gives what it sent.
        let _ = stream.read_to_end(&mut raw).await;
        raw
    };
    let raw = tokio::time::timeout(Duration::from_secs(20), exchange)
        .await
        .expect("the scripted server answers within 20 s");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a header block");
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

/// The payload of a chunked body, as far as it goes.
fn dechunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..100_000 {
        let Some(eol) = raw.windows(2).position(|w| w == b"\r\n") else {
            break;
        };
        let size_text = String::from_utf8_lossy(&raw[..eol]);
        let Ok(size) = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
        else {
            break;
        };
        if size == 0 {
            break;
        }
        let start = eol + 2;
        let end = (start + size).min(raw.len());
        out.extend_from_slice(&raw[start..end]);
        if end < start + size || end + 2 > raw.len() {
            break;
        }
        raw = &raw[end + 2..];
    }
    out
}

/// The request for `api` asking `prompt`, and its path.
fn request(api: WireApi, stream: bool, prompt: &str) -> (String, Value) {
    match api {
        WireApi::AnthropicMessages => (
            "/v1/messages".into(),
            json!({"model": "claude-sonnet-4-5", "max_tokens": 256, "stream": stream,
                   "messages": [{"role": "user", "content": prompt}]}),
        ),
        WireApi::OpenaiResponses => (
            "/v1/responses".into(),
            json!({"model": "gpt-5-codex", "stream": stream, "input": prompt}),
        ),
        WireApi::OpenaiChat => {
            let mut body = json!({"model": "qwen3-coder-plus", "stream": stream,
                                  "messages": [{"role": "user", "content": prompt}]});
            if stream {
                body["stream_options"] = json!({"include_usage": true});
            }
            ("/v1/chat/completions".into(), body)
        }
        WireApi::Gemini => {
            let action = if stream {
                "streamGenerateContent?alt=sse"
            } else {
                "generateContent"
            };
            (
                format!("/v1beta/models/gemini-2.5-pro:{action}"),
                json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}]}),
            )
        }
    }
}

const APIS: [WireApi; 4] = [
    WireApi::AnthropicMessages,
    WireApi::OpenaiResponses,
    WireApi::OpenaiChat,
    WireApi::Gemini,
];

/// Call the server and tap the body in 7-byte chunks.
async fn call(server: &FakeLlm, api: WireApi, stream: bool, prompt: &str) -> (Reply, TapReport) {
    let (path, body) = request(api, stream, prompt);
    let bare_path = path.split('?').next().unwrap_or(&path);
    assert_eq!(wire::api_of(bare_path), Some(api), "{path}");
    let facts = wire::request_facts(api, bare_path, body.to_string().as_bytes());
    assert_eq!(facts.stream, stream, "{path}");
    assert!(facts.model.is_some(), "{path}");
    let reply = post(server, &path, &body).await;
    let event_stream = reply
        .header("content-type")
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let mut tap = ResponseTap::new(api, event_stream);
    for chunk in reply.body.chunks(7) {
        tap.push(chunk);
    }
    let report = tap.finish();
    (reply, report)
}

/// The script's `usage` as agentgate's decoders read it off each API:
/// Claude's input_tokens + cache reads + cache writes, output with the
/// thinking in it and no reasoning split; Codex's Responses figures with
/// cache writes (`cache_write_tokens`); Qwen/opencode's Chat and Gemini's
/// figures with the cache writes inside the prompt and no figure of their
/// own.
fn expected(api: WireApi) -> Usage {
    let (input, output, cache_read, cache_write, reasoning) = (101, 23, 1009, 307, 7);
    let input_tokens = input + cache_read + cache_write;
    let output_tokens = output + reasoning;
    let (cache_creation, reasoning_tokens) = match api {
        WireApi::AnthropicMessages => (cache_write, 0),
        WireApi::OpenaiResponses => (cache_write, reasoning),
        WireApi::OpenaiChat | WireApi::Gemini => (0, reasoning),
    };
    Usage {
        input_tokens,
        output_tokens,
        cache_read_input_tokens: cache_read,
        cache_creation_input_tokens: cache_creation,
        // The script's `cache_write_1h`: only Anthropic tells it.
        cache_creation_1h_input_tokens: if api == WireApi::AnthropicMessages {
            100
        } else {
            0
        },
        reasoning_tokens,
        total_tokens: input_tokens + output_tokens,
        cost_usd: None,
        context_tokens: Some(input_tokens + output_tokens),
        estimated: false,
    }
}

async fn start() -> FakeLlm {
    let script = Script::parse(SCRIPT).unwrap();
    FakeLlm::start(
        "127.0.0.1:0".parse().unwrap(),
        ServerConfig {
            script,
            log_path: None,
        },
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn every_class_equals_the_script_in_every_api_streamed_and_not() {
    let server = start().await;
    for api in APIS {
        for stream in [false, true] {
            let (reply, r) = call(&server, api, stream, "USAGE please").await;
            let what = format!("{api:?} stream={stream}");
            assert_eq!(reply.status, 200, "{what}");
            assert_eq!(r.usage, Some(expected(api)), "{what}");
            assert!(r.complete, "{what}");
            assert_eq!(
                (r.invalid.as_deref(), r.api_error.as_deref()),
                (None, None),
                "{what}"
            );
            assert!(r.model.is_some(), "{what}");
            // Only Anthropic says which TTL a cache write has.
            let ttl_split = match api {
                WireApi::AnthropicMessages => (Some(207), Some(100)),
                _ => (None, None),
            };
            assert_eq!(
                (r.cache_write_5m_tokens, r.cache_write_1h_tokens),
                ttl_split,
                "{what}"
            );
            if api == WireApi::Gemini && stream {
                // The same chunks as streamGenerateContent without alt=sse
                // sends them: one JSON array.
                let chunks: Vec<Value> = String::from_utf8_lossy(&reply.body)
                    .lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .map(|d| serde_json::from_str(d).unwrap())
                    .collect();
                assert!(chunks.len() > 2);
                let array = serde_json::to_vec_pretty(&chunks).unwrap();
                let mut tap = ResponseTap::new(api, false);
                for c in array.chunks(7) {
                    tap.push(c);
                }
                let from_array = tap.finish();
                assert_eq!(from_array.usage, Some(expected(api)));
                assert!(from_array.complete && from_array.invalid.is_none());
            }
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn in_stream_errors_cut_streams_and_error_bodies() {
    let server = start().await;
    for api in APIS {
        // The API's in-stream error after the first content.
        let (_, r) = call(&server, api, true, "BREAK now").await;
        let err = r.api_error.as_deref().unwrap_or_default();
        assert!(
            err.contains("overload") || err.contains("UNAVAILABLE"),
            "{api:?}: {r:?}"
        );
        assert!(!r.complete || api == WireApi::OpenaiChat, "{api:?}: {r:?}");
        // The connection dropped after the first content.
        let (_, r) = call(&server, api, true, "CUT now").await;
        assert!(!r.complete, "{api:?}: {r:?}");
        assert_eq!(r.api_error, None, "{api:?}");
        // Ended cleanly without the closing record.
        let (_, r) = call(&server, api, true, "NOFIN now").await;
        assert!(!r.complete, "{api:?}: {r:?}");
        // An HTTP error in the API's own shape, streamed request or not.
        for stream in [false, true] {
            let (reply, r) = call(&server, api, stream, "LIMIT now").await;
            assert_eq!(reply.status, 429);
            let err = r.api_error.clone().unwrap_or_default();
            let kind = match api {
                WireApi::AnthropicMessages => "rate_limit_error: ",
                WireApi::OpenaiResponses | WireApi::OpenaiChat => "requests: ",
                WireApi::Gemini => "RESOURCE_EXHAUSTED: ",
            };
            assert!(err.starts_with(kind), "{api:?}: {err}");
            assert_eq!(r.usage, None);
            let limits = wire::rate_limits(&reply.header_map(), jiff::Timestamp::now());
            assert_eq!(limits.retry_after_s, Some(30), "{api:?}");
            if api == WireApi::Gemini {
                assert_eq!(r.retry_after_s, Some(30), "RetryInfo in the body");
            }
        }
    }
    server.shutdown().await.unwrap();
}

/// The gateway's own error bodies have the shape of the server's (which
/// follows each vendor's, and which the CLIs' error parsing was checked
/// against): the same keys at the same places, the same `type` / `status`
/// word for the same HTTP status; and the tap reads them back.
#[test]
fn gateway_error_bodies_have_each_apis_shape() {
    let keys = |v: &Value| -> Vec<String> {
        fn walk(v: &Value, at: &str, out: &mut Vec<String>) {
            if let Value::Object(m) = v {
                for (k, inner) in m {
                    let here = format!("{at}/{k}");
                    out.push(here.clone());
                    walk(inner, &here, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(v, "", &mut out);
        out.sort();
        out
    };
    let cases = [
        (ErrorKind::Auth, 401),
        (ErrorKind::RateLimit, 429),
        (ErrorKind::InvalidRequest, 400),
        (ErrorKind::ServerError, 500),
        (ErrorKind::PermissionDenied, 403),
    ];
    for (kind, status) in cases {
        for api in APIS {
            let fake_api = match api {
                WireApi::AnthropicMessages => Api::Anthropic,
                WireApi::OpenaiResponses => Api::Responses,
                WireApi::OpenaiChat => Api::Chat,
                WireApi::Gemini => Api::Gemini,
            };
            assert_eq!(kind.default_status(fake_api), status);
            let err = ErrorReply {
                kind,
                status,
                message: Some("no".into()),
                retry_after: None,
                model: "m".into(),
            };
            let mut theirs = match api {
                WireApi::AnthropicMessages => anthropic::error_body(&err),
                WireApi::OpenaiResponses => responses::error_body(&err),
                WireApi::OpenaiChat => chat::error_body(&err),
                WireApi::Gemini => gemini::error_body(&err),
            };
            // Fields the vendors add that a client does not need.
            if let Some(o) = theirs.as_object_mut() {
                o.remove("request_id");
            }
            if let Some(o) = theirs["error"].as_object_mut() {
                o.remove("details");
            }
            let status_code = http::StatusCode::from_u16(status).unwrap();
            let (content_type, body) = wire::error_response(api, status_code, "no");
            assert_eq!(content_type, "application/json");
            let ours: Value = serde_json::from_slice(&body).unwrap();
            let what = format!("{api:?} {status}");
            assert_eq!(keys(&ours), keys(&theirs), "{what}: {ours} vs {theirs}");
            match api {
                WireApi::AnthropicMessages => {
                    assert_eq!(ours["type"], "error");
                    assert_eq!(ours["error"]["type"], theirs["error"]["type"], "{what}");
                }
                WireApi::OpenaiResponses | WireApi::OpenaiChat => {
                    assert!(ours["error"]["type"].is_string(), "{what}");
                    assert!(ours["error"]["param"].is_null(), "{what}");
                    if matches!(status, 401 | 400 | 429) {
                        assert_eq!(ours["error"]["type"], theirs["error"]["type"], "{what}");
                    }
                }
                WireApi::Gemini => {
                    assert_eq!(ours["error"]["status"], theirs["error"]["status"], "{what}");
                    assert_eq!(ours["error"]["code"], status, "{what}");
                }
            }
            // The tap reads the gateway's refusal as the API's error.
            let mut tap = ResponseTap::new(api, false);
            tap.push(&body);
            let r = tap.finish();
            assert!(
                r.api_error.as_deref().is_some_and(|e| e.ends_with(": no")),
                "{what}: {r:?}"
            );
        }
    }
}

/// The four turns of the scripts agentgate-providers' decoder tests play
/// to the real CLIs (`tests/fixtures/decode/scripts/{claude,codex,gemini}.yaml`),
/// and opencode's one Chat step (`agentgate-core`'s `decode_opencode`).
const DECODER_SCRIPT: &str = r#"
turns:
  - match: {contains: "TURN1"}
    repeat: true
    text: "a"
    usage: {input: 100, output: 8, cache_read: 50, cache_write: 20, reasoning: 5}
  - match: {contains: "TURN2"}
    repeat: true
    text: "b"
    usage: {input: 200, output: 9, cache_read: 150, cache_write: 0, reasoning: 0}
  - match: {contains: "TURN3"}
    repeat: true
    text: "c"
    usage: {input: 300, output: 10, cache_read: 250, cache_write: 10, reasoning: 0}
  - match: {contains: "TURN4"}
    repeat: true
    text: "d"
    usage: {input: 400, output: 12, cache_read: 350, cache_write: 0, reasoning: 4}
  - match: {contains: "OPENCODE"}
    repeat: true
    text: "e"
    usage: {input: 1000, output: 50, cache_read: 200, cache_write: 30, reasoning: 7}
"#;

fn add(sum: &mut Usage, u: &Usage) {
    sum.input_tokens += u.input_tokens;
    sum.output_tokens += u.output_tokens;
    sum.cache_read_input_tokens += u.cache_read_input_tokens;
    sum.cache_creation_input_tokens += u.cache_creation_input_tokens;
    sum.reasoning_tokens += u.reasoning_tokens;
    sum.total_tokens += u.total_tokens;
}

/// (input, cache read, cache write, output, reasoning).
fn classes(u: &Usage) -> (u64, u64, u64, u64, u64) {
    (
        u.input_tokens,
        u.cache_read_input_tokens,
        u.cache_creation_input_tokens,
        u.output_tokens,
        u.reasoning_tokens,
    )
}

#[tokio::test]
async fn the_wire_sums_what_the_cli_decoders_report_for_the_same_scripts() {
    let server = FakeLlm::start(
        "127.0.0.1:0".parse().unwrap(),
        ServerConfig {
            script: Script::parse(DECODER_SCRIPT).unwrap(),
            log_path: None,
        },
    )
    .await
    .unwrap();
    // What the decoders' tests assert for the runs of these scripts
    // (agentgate-providers tests/suite/decode.rs): Claude's billing
    // `usage(1000, 800, 30, 48)`, Codex's thread totals the same with
    // `reasoning_tokens: 9`, Gemini's `usage(1030, 800, 0, 48)` with 9
    // (Gemini states no cache writes: they stay in the prompt).
    let cli = [
        (WireApi::AnthropicMessages, (1830, 800, 30, 48, 0)),
        (WireApi::OpenaiResponses, (1830, 800, 30, 48, 9)),
        (WireApi::Gemini, (1830, 800, 0, 48, 9)),
    ];
    for (api, want) in cli {
        for stream in [true, false] {
            let mut sum = Usage::default();
            for turn in ["TURN1", "TURN2", "TURN3", "TURN4"] {
                let (_, r) = call(&server, api, stream, turn).await;
                add(&mut sum, r.usage.as_ref().unwrap());
            }
            assert_eq!(classes(&sum), want, "{api:?} stream={stream}");
            assert_eq!(sum.total_tokens, want.0 + want.3);
        }
    }
    // opencode's step over Chat: `step(1030, 200, 0, 50, 7)`, i.e. input
    // 1230 with 200 read from the cache, output 57 with 7 of reasoning.
    for stream in [true, false] {
        let (_, r) = call(&server, WireApi::OpenaiChat, stream, "OPENCODE").await;
        assert_eq!(classes(r.usage.as_ref().unwrap()), (1230, 200, 0, 57, 7));
    }
    server.shutdown().await.unwrap();
}
