//! `api_of` and `request_facts` on the requests the real CLIs sent (the
//! captured bodies kept as fixtures: Claude Code's here, Codex's, Gemini
//! CLI's, Qwen Code's and opencode's in `agentgate-fakellm`'s fixtures).
#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

use std::path::Path;

use agentgate_gateway::wire::{RequestFacts, api_of, request_facts};
use agentgate_protocol::WireApi;
use serde_json::Value;

fn fixture(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The path without its query, as the proxy hands it over.
fn bare(path: &str) -> &str {
    path.split('?').next().unwrap()
}

#[test]
fn the_real_clis_requests_read_as_they_were_sent() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fakellm = here.join("../agentgate-fakellm/tests/fixtures");
    // (fixture, default path when the fixture has none, api, model, stream)
    let cases = [
        (
            here.join("tests/fixtures/claude_messages_request.json"),
            "",
            WireApi::AnthropicMessages,
            "claude-opus-4-8",
            true,
        ),
        (
            fakellm.join("responses/codex_first_turn.json"),
            "/v1/responses",
            WireApi::OpenaiResponses,
            "gpt-5.5",
            true,
        ),
        (
            fakellm.join("chat/qwen_tool_result.json"),
            "/v1/chat/completions",
            WireApi::OpenaiChat,
            "qwen3-coder-plus",
            true,
        ),
        (
            fakellm.join("chat/opencode_title.json"),
            "/v1/chat/completions",
            WireApi::OpenaiChat,
            "fake-model",
            true,
        ),
        (
            fakellm.join("gemini/router_text_json.json"),
            "",
            WireApi::Gemini,
            "gemini-3.5-flash-lite",
            false,
        ),
        (
            fakellm.join("gemini/stream_tool_result.json"),
            "",
            WireApi::Gemini,
            "gemini-3.8-flash",
            true,
        ),
    ];
    for (file, default_path, api, model, stream) in cases {
        let v = fixture(&file);
        let (path, body) = match v.get("path").and_then(Value::as_str) {
            Some(p) => (p.to_owned(), v["body"].clone()),
            None => (default_path.to_owned(), v),
        };
        let what = file.display().to_string();
        assert_eq!(api_of(bare(&path)), Some(api), "{what}");
        let bytes = serde_json::to_vec(&body).unwrap();
        assert_eq!(
            request_facts(api, bare(&path), &bytes),
            RequestFacts {
                model: Some(model.to_owned()),
                stream,
            },
            "{what}"
        );
        // A body cut anywhere gives defaults (or the path's facts), no panic.
        for cut in [0, 1, bytes.len() / 2, bytes.len().saturating_sub(1)] {
            let facts = request_facts(api, bare(&path), &bytes[..cut]);
            if api != WireApi::Gemini {
                assert_eq!(facts, RequestFacts::default(), "{what} cut at {cut}");
            }
        }
    }
}
