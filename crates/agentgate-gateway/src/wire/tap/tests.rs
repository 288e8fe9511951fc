//! The tap on bodies as the APIs send them, fed in odd-sized chunks.

use serde_json::json;

use super::*;

/// Feed `body` in chunks of `size` bytes.
fn tap(api: WireApi, event_stream: bool, body: &[u8], size: usize) -> TapReport {
    let mut t = ResponseTap::new(api, event_stream);
    for c in body.chunks(size) {
        t.push(c);
    }
    t.finish()
}

/// The same report whatever the chunking.
fn tap_all(api: WireApi, event_stream: bool, body: &[u8]) -> TapReport {
    let whole = tap(api, event_stream, body, body.len().max(1));
    for size in [1, 2, 3, 7, 13, 64] {
        assert_eq!(
            tap(api, event_stream, body, size),
            whole,
            "chunks of {size}"
        );
    }
    whole
}

fn sse(events: &[(Option<&str>, serde_json::Value)]) -> Vec<u8> {
    let mut out = String::new();
    for (name, data) in events {
        if let Some(n) = name {
            out.push_str(&format!("event: {n}\n"));
        }
        out.push_str(&format!("data: {data}\n\n"));
    }
    out.into_bytes()
}

fn figures(u: &Usage) -> [u64; 6] {
    [
        u.input_tokens,
        u.cache_read_input_tokens,
        u.cache_creation_input_tokens,
        u.output_tokens,
        u.reasoning_tokens,
        u.total_tokens,
    ]
}

#[test]
fn anthropic_stream_sums_start_and_delta_with_cache_ttls() {
    let body = sse(&[
        (
            Some("message_start"),
            json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":4000,"cache_creation":{"ephemeral_5m_input_tokens":100,"ephemeral_1h_input_tokens":200},"output_tokens":1,"service_tier":"standard"}}}),
        ),
        (Some("ping"), json!({"type":"ping"})),
        (
            Some("content_block_start"),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
        ),
        (
            Some("content_block_delta"),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}),
        ),
        (
            Some("content_block_stop"),
            json!({"type":"content_block_stop","index":0}),
        ),
        (
            Some("message_delta"),
            json!({"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"input_tokens":12,"cache_creation_input_tokens":300,"cache_read_input_tokens":4000,"output_tokens":57}}),
        ),
        (Some("message_stop"), json!({"type":"message_stop"})),
    ]);
    let r = tap_all(WireApi::AnthropicMessages, true, &body);
    let u = r.usage.as_ref().unwrap();
    assert_eq!(figures(u), [4312, 4000, 300, 57, 0, 4369]);
    assert_eq!(u.cache_creation_1h_input_tokens, 200);
    assert_eq!(u.context_tokens, Some(4369));
    assert!(!u.estimated && u.cost_usd.is_none());
    assert_eq!(
        (r.cache_write_5m_tokens, r.cache_write_1h_tokens),
        (Some(100), Some(200))
    );
    assert_eq!(r.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert!(r.complete && r.invalid.is_none() && r.api_error.is_none());
}

#[test]
fn anthropic_delta_with_zero_input_keeps_the_start_figures() {
    let body = sse(&[
        (
            Some("message_start"),
            json!({"type":"message_start","message":{"model":"m","usage":{"input_tokens":10,"cache_read_input_tokens":5,"output_tokens":1}}}),
        ),
        (
            Some("message_delta"),
            json!({"type":"message_delta","usage":{"output_tokens":9}}),
        ),
    ]);
    let r = tap_all(WireApi::AnthropicMessages, true, &body);
    assert_eq!(figures(r.usage.as_ref().unwrap()), [15, 5, 0, 9, 0, 24]);
    assert!(!r.complete, "no message_stop");
}

#[test]
fn anthropic_error_event_and_error_body() {
    let body = sse(&[
        (
            Some("message_start"),
            json!({"type":"message_start","message":{"model":"m","usage":{"input_tokens":3,"output_tokens":1}}}),
        ),
        (
            Some("error"),
            json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
        ),
    ]);
    let r = tap_all(WireApi::AnthropicMessages, true, &body);
    assert_eq!(r.api_error.as_deref(), Some("overloaded_error: Overloaded"));
    assert!(!r.complete);
    let body = br#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_1"}"#;
    let r = tap_all(WireApi::AnthropicMessages, false, body);
    assert_eq!(
        r.api_error.as_deref(),
        Some("authentication_error: invalid x-api-key")
    );
    assert_eq!(r.usage, None);
}

#[test]
fn responses_completed_failed_and_incomplete() {
    let usage = json!({"input_tokens":1200,"input_tokens_details":{"cached_tokens":1000},"output_tokens":300,"output_tokens_details":{"reasoning_tokens":250},"total_tokens":1500});
    let body = sse(&[
        (
            Some("response.created"),
            json!({"type":"response.created","sequence_number":0,"response":{"model":"gpt-5-codex","usage":null}}),
        ),
        (
            Some("response.output_text.delta"),
            json!({"type":"response.output_text.delta","delta":"hi"}),
        ),
        (
            Some("response.completed"),
            json!({"type":"response.completed","response":{"object":"response","status":"completed","model":"gpt-5-codex","usage":usage,"error":null}}),
        ),
    ]);
    let r = tap_all(WireApi::OpenaiResponses, true, &body);
    assert_eq!(
        figures(r.usage.as_ref().unwrap()),
        [1200, 1000, 0, 300, 250, 1500]
    );
    assert_eq!(r.model.as_deref(), Some("gpt-5-codex"));
    assert!(r.complete && r.api_error.is_none());

    let body = sse(&[(
        Some("response.failed"),
        json!({"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"boom"},"usage":null}}),
    )]);
    let r = tap_all(WireApi::OpenaiResponses, true, &body);
    assert_eq!(r.api_error.as_deref(), Some("server_error: boom"));

    let body = sse(&[(
        Some("response.incomplete"),
        json!({"type":"response.incomplete","response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"usage":usage}}),
    )]);
    let r = tap_all(WireApi::OpenaiResponses, true, &body);
    assert_eq!(
        r.api_error.as_deref(),
        Some("incomplete: max_output_tokens")
    );
    assert_eq!(r.usage.unwrap().output_tokens, 300);

    let body = sse(&[(
        Some("error"),
        json!({"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}),
    )]);
    let r = tap_all(WireApi::OpenaiResponses, true, &body);
    assert_eq!(
        r.api_error.as_deref(),
        Some("rate_limit_exceeded: slow down")
    );
    assert!(!r.complete);
}

#[test]
fn chat_usage_chunk_done_and_error_chunk() {
    let mut body = sse(&[
        (
            None,
            json!({"id":"c","object":"chat.completion.chunk","model":"qwen3-coder-plus","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":null}),
        ),
        (
            None,
            json!({"id":"c","object":"chat.completion.chunk","model":"qwen3-coder-plus","choices":[],"usage":{"prompt_tokens":90,"completion_tokens":20,"total_tokens":110,"prompt_tokens_details":{"cached_tokens":40},"completion_tokens_details":{"reasoning_tokens":6}}}),
        ),
    ]);
    body.extend_from_slice(b"data: [DONE]\n\n");
    let r = tap_all(WireApi::OpenaiChat, true, &body);
    assert_eq!(figures(r.usage.as_ref().unwrap()), [90, 40, 0, 20, 6, 110]);
    assert_eq!(r.model.as_deref(), Some("qwen3-coder-plus"));
    assert!(r.complete);

    let body = sse(&[(
        None,
        json!({"error":{"message":"overloaded","type":"server_error","param":null,"code":null}}),
    )]);
    let r = tap_all(WireApi::OpenaiChat, true, &body);
    assert_eq!(r.api_error.as_deref(), Some("server_error: overloaded"));
    assert!(!r.complete);
}

#[test]
fn gemini_sse_array_and_error_with_retry_delay() {
    let chunk = |finish: bool, usage: serde_json::Value| {
        let mut cand = json!({"content":{"role":"model","parts":[{"text":"x"}]},"index":0});
        if finish {
            cand["finishReason"] = json!("STOP");
        }
        json!({"candidates":[cand],"usageMetadata":usage,"modelVersion":"gemini-2.5-pro"})
    };
    let last = json!({"promptTokenCount":500,"cachedContentTokenCount":200,"candidatesTokenCount":30,"thoughtsTokenCount":12,"toolUsePromptTokenCount":7,"totalTokenCount":549});
    let chunks = [
        chunk(false, json!({"promptTokenCount":500,"totalTokenCount":500})),
        chunk(true, last),
    ];
    let body = sse(&[(None, chunks[0].clone()), (None, chunks[1].clone())]);
    let r = tap_all(WireApi::Gemini, true, &body);
    assert_eq!(
        figures(r.usage.as_ref().unwrap()),
        [507, 200, 0, 42, 12, 549]
    );
    assert_eq!(r.model.as_deref(), Some("gemini-2.5-pro"));
    assert!(r.complete);

    // streamGenerateContent without alt=sse: a JSON array of the chunks.
    let array = serde_json::to_vec_pretty(&json!(chunks)).unwrap();
    let r2 = tap_all(WireApi::Gemini, false, &array);
    assert_eq!(r2.usage, r.usage);
    assert!(r2.complete && r2.invalid.is_none());

    let body = br#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"30s"}]}}"#;
    let r = tap_all(WireApi::Gemini, false, body);
    assert_eq!(
        r.api_error.as_deref(),
        Some("RESOURCE_EXHAUSTED: Resource has been exhausted (e.g. check quota).")
    );
    assert_eq!(r.retry_after_s, Some(30));
    let array = format!("[{}]", String::from_utf8_lossy(body));
    let r = tap_all(WireApi::Gemini, false, array.as_bytes());
    assert_eq!(r.retry_after_s, Some(30));
}

#[test]
fn usage_so_far_follows_the_stream() {
    let mut t = ResponseTap::new(WireApi::AnthropicMessages, true);
    assert_eq!(t.usage_so_far(), None);
    t.push(&sse(&[(
        Some("message_start"),
        json!({"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}),
    )]));
    assert_eq!(t.usage_so_far().map(|u| u.output_tokens), Some(1));
    t.push(&sse(&[(
        Some("message_delta"),
        json!({"type":"message_delta","usage":{"output_tokens":40}}),
    )]));
    assert_eq!(
        t.usage_so_far().map(|u| (u.input_tokens, u.output_tokens)),
        Some((10, 40))
    );
}

#[test]
fn an_sse_body_announced_as_json_is_read_as_sse() {
    let mut body = sse(&[(
        None,
        json!({"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}),
    )]);
    body.extend_from_slice(b"data: [DONE]\n\n");
    let mut t = ResponseTap::new(WireApi::OpenaiChat, false);
    t.push(b"\n");
    for c in body.chunks(5) {
        t.push(c);
    }
    assert!(t.is_event_stream());
    let r = t.finish();
    assert_eq!(r.usage.map(|u| u.total_tokens), Some(5));
    assert!(r.complete);
}

#[test]
fn invalid_and_truncated_bodies_are_said_and_never_panic() {
    // An event that is not JSON.
    let r = tap_all(
        WireApi::OpenaiChat,
        true,
        b"data: {not json\n\ndata: [DONE]\n\n",
    );
    assert!(
        r.invalid.as_deref().is_some_and(|w| w.contains("not JSON")),
        "{r:?}"
    );
    assert!(r.complete);
    // A stream cut in the middle of an event.
    let body = sse(&[(
        Some("message_start"),
        json!({"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}),
    )]);
    let mut cut = body.clone();
    cut.extend_from_slice(b"event: message_delta\ndata: {\"type\":\"message_de");
    let r = tap_all(WireApi::AnthropicMessages, true, &cut);
    assert!(!r.complete);
    assert_eq!(r.invalid, None, "a cut last line is the cut, not bad SSE");
    assert_eq!(r.usage.map(|u| u.input_tokens), Some(10));
    // A JSON body that is not JSON, and an empty one.
    let r = tap_all(
        WireApi::OpenaiResponses,
        false,
        b"<html>502 Bad Gateway</html>",
    );
    assert!(r.invalid.is_some() && !r.complete);
    let r = ResponseTap::new(WireApi::Gemini, false).finish();
    assert!(r.invalid.is_some() && !r.complete);
    // Bytes of every kind, in every API and mode: no panic.
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut junk = Vec::with_capacity(4096);
    for _ in 0..4096 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        junk.push(b"data: {}[]\"\n\r:event 0x"[(seed % 22) as usize]);
    }
    for api in [
        WireApi::AnthropicMessages,
        WireApi::OpenaiResponses,
        WireApi::OpenaiChat,
        WireApi::Gemini,
    ] {
        for es in [true, false] {
            let _ = tap(api, es, &junk, 7);
        }
    }
}

#[test]
fn a_huge_line_or_body_is_invalid_and_memory_stays_bounded() {
    let mut t = ResponseTap::new(WireApi::OpenaiChat, true);
    t.push(b"data: {\"x\":\"");
    let block = vec![b'a'; 1 << 20];
    for _ in 0..20 {
        t.push(&block);
    }
    t.push(b"\"}\n\ndata: [DONE]\n\n");
    let r = t.finish();
    assert!(
        r.invalid.as_deref().is_some_and(|w| w.contains("16 MiB")),
        "{r:?}"
    );
    assert!(!r.complete, "parsing stopped at the long line");

    let mut t = ResponseTap::new(WireApi::AnthropicMessages, false);
    t.push(b"{\"type\":\"message\",\"pad\":\"");
    for _ in 0..33 {
        t.push(&block);
    }
    assert!(matches!(t.mode, Mode::Json(None)), "the buffer is dropped");
    let r = t.finish();
    assert!(
        r.invalid
            .as_deref()
            .is_some_and(|w| w.contains("could not be read")),
        "{r:?}"
    );
    assert_eq!(r.usage, None);
}

#[test]
fn a_json_error_under_an_event_stream_type_is_read_as_json() {
    let body = br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let mut t = ResponseTap::new(WireApi::AnthropicMessages, true);
    assert!(t.is_event_stream());
    t.push(b"  ");
    t.push(body);
    assert!(!t.is_event_stream());
    let r = t.finish();
    assert_eq!(r.api_error.as_deref(), Some("overloaded_error: Overloaded"));
    assert_eq!(r.invalid, None);
}

#[test]
fn code_assist_chunks_are_read_inside_their_envelope() {
    let usage = json!({"promptTokenCount":40,"cachedContentTokenCount":8,"candidatesTokenCount":5,"thoughtsTokenCount":2,"totalTokenCount":47});
    let body = sse(&[
        (
            None,
            json!({"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"h"}]}}],"usageMetadata":{"promptTokenCount":40},"modelVersion":"gemini-2.5-pro"},"traceId":"t"}),
        ),
        (
            None,
            json!({"response":{"candidates":[{"content":{"role":"model","parts":[{"text":"i"}]},"finishReason":"STOP"}],"usageMetadata":usage,"modelVersion":"gemini-2.5-pro"},"traceId":"t"}),
        ),
    ]);
    let r = tap_all(WireApi::Gemini, true, &body);
    assert_eq!(figures(r.usage.as_ref().unwrap()), [40, 8, 0, 7, 2, 47]);
    assert_eq!(r.model.as_deref(), Some("gemini-2.5-pro"));
    assert!(r.complete);
}
