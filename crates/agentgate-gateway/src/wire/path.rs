//! Which API a request path belongs to, and what the request says of
//! itself (model, stream flag): from the path's suffix and the JSON body.

use agentgate_protocol::WireApi;
use serde_json::Value;

/// The API a request path belongs to (the path after the gateway's secret
/// prefix, without the query): `…/messages` (not `…/messages/count_tokens`),
/// `…/responses`, `…/chat/completions`, `…:generateContent`,
/// `…:streamGenerateContent`. Other paths (model lists, token counts) are
/// not model calls: `None`.
pub fn api_of(path: &str) -> Option<WireApi> {
    // A query the caller left on is not part of the path.
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let path = path.trim_end_matches('/');
    if path.ends_with("/messages") {
        return Some(WireApi::AnthropicMessages);
    }
    if path.ends_with("/responses") {
        return Some(WireApi::OpenaiResponses);
    }
    if path.ends_with("/chat/completions") {
        return Some(WireApi::OpenaiChat);
    }
    // `/v1beta/models/<m>:…`, Vertex's `…/publishers/google/models/<m>:…`,
    // and Code Assist's `/v1internal:…` (Gemini CLI's Google login, the
    // model in the body).
    let (before, action) = path.rsplit_once(':')?;
    let names_a_model = before
        .rsplit_once("/models/")
        .is_some_and(|(_, m)| !m.is_empty() && !m.contains('/'));
    let code_assist = before.ends_with("/v1internal");
    match action {
        "generateContent" | "streamGenerateContent" if names_a_model || code_assist => {
            Some(WireApi::Gemini)
        }
        _ => None,
    }
}

/// What a request says of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestFacts {
    /// The model named (Gemini: from the path `models/<m>:…`).
    pub model: Option<String>,
    /// Whether a stream was asked for (`"stream": true`; Gemini:
    /// `:streamGenerateContent`).
    pub stream: bool,
}

/// Read the facts of a request to `api` at `path` with `body`.
pub fn request_facts(api: WireApi, path: &str, body: &[u8]) -> RequestFacts {
    if api == WireApi::Gemini {
        let mut facts = gemini_facts(path);
        if facts.model.is_none() {
            // Code Assist names the model in the body.
            facts.model = body_model(body).map(|m| m.trim_start_matches("models/").to_owned());
        }
        return facts;
    }
    // A body that is not a JSON object gives the defaults.
    let head = body_head(body).unwrap_or_default();
    RequestFacts {
        model: head.model,
        stream: head.stream.unwrap_or(false),
    }
}

/// The two fields of a request body the gateway reads. Deserialized
/// straight from the bytes: the rest of the body (the conversation, up to
/// the request bound) is skipped, never built into a tree, before the
/// request goes upstream.
#[derive(Default, serde::Deserialize)]
struct Head {
    #[serde(default, deserialize_with = "model_name")]
    model: Option<String>,
    #[serde(default, deserialize_with = "flag")]
    stream: Option<bool>,
}

/// A `model` that is a non-empty string; anything else is none.
fn model_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(
        match <Option<serde_json::Value> as serde::Deserialize>::deserialize(d)? {
            Some(Value::String(m)) if !m.is_empty() => Some(m),
            _ => None,
        },
    )
}

/// A `stream` that is a boolean; anything else is none.
fn flag<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(
        match <Option<serde_json::Value> as serde::Deserialize>::deserialize(d)? {
            Some(Value::Bool(b)) => Some(b),
            _ => None,
        },
    )
}

/// The body's `model` and `stream`, when it is a JSON object.
fn body_head(body: &[u8]) -> Option<Head> {
    serde_json::from_slice::<Head>(body).ok()
}

/// The body's `model`, when it is a JSON object naming one.
fn body_model(body: &[u8]) -> Option<String> {
    body_head(body)?.model
}

/// Gemini names the model and the mode in the path:
/// `/v1beta/models/<model>:streamGenerateContent`.
fn gemini_facts(path: &str) -> RequestFacts {
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let Some((before, action)) = path.trim_end_matches('/').rsplit_once(':') else {
        return RequestFacts::default();
    };
    let model = before
        .rsplit_once("/models/")
        .map(|(_, m)| m)
        .filter(|m| !m.is_empty())
        .map(str::to_owned);
    RequestFacts {
        model,
        stream: action == "streamGenerateContent",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_name_their_api_and_other_paths_none() {
        let cases = [
            ("/v1/messages", Some(WireApi::AnthropicMessages)),
            ("/anthropic/v1/messages/", Some(WireApi::AnthropicMessages)),
            ("/v1/messages/count_tokens", None),
            ("/v1/responses", Some(WireApi::OpenaiResponses)),
            (
                "/backend-api/codex/responses",
                Some(WireApi::OpenaiResponses),
            ),
            ("/v1/chat/completions", Some(WireApi::OpenaiChat)),
            (
                "/compatible-mode/v1/chat/completions",
                Some(WireApi::OpenaiChat),
            ),
            (
                "/v1beta/models/gemini-2.5-pro:generateContent",
                Some(WireApi::Gemini),
            ),
            (
                "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
                Some(WireApi::Gemini),
            ),
            (
                "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
                Some(WireApi::Gemini),
            ),
            ("/v1beta/models/gemini-2.5-flash:countTokens", None),
            (
                "/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro:streamGenerateContent",
                Some(WireApi::Gemini),
            ),
            ("/v1internal:streamGenerateContent", Some(WireApi::Gemini)),
            ("/v1internal:generateContent", Some(WireApi::Gemini)),
            ("/v1internal:countTokens", None),
            ("/v1internal:loadCodeAssist", None),
            ("/v1beta/models", None),
            ("/v1/models", None),
            ("/", None),
            ("", None),
            (":generateContent", None),
        ];
        for (path, want) in cases {
            assert_eq!(api_of(path), want, "{path}");
        }
    }

    #[test]
    fn facts_come_from_the_body_or_the_gemini_path() {
        let body = br#"{"model":"claude-sonnet-4-5","stream":true,"messages":[]}"#;
        assert_eq!(
            request_facts(WireApi::AnthropicMessages, "/v1/messages", body),
            RequestFacts {
                model: Some("claude-sonnet-4-5".into()),
                stream: true
            }
        );
        let body = br#"{"model":"gpt-5","input":"hi"}"#;
        assert_eq!(
            request_facts(WireApi::OpenaiResponses, "/v1/responses", body),
            RequestFacts {
                model: Some("gpt-5".into()),
                stream: false
            }
        );
        assert_eq!(
            request_facts(
                WireApi::Gemini,
                "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
                b"{}"
            ),
            RequestFacts {
                model: Some("gemini-2.5-pro".into()),
                stream: true
            }
        );
        assert_eq!(
            request_facts(
                WireApi::Gemini,
                "/v1beta/models/gemini-2.5-pro:generateContent",
                b"not json"
            ),
            RequestFacts {
                model: Some("gemini-2.5-pro".into()),
                stream: false
            }
        );
    }

    #[test]
    fn code_assist_names_the_model_in_the_body() {
        let body = br#"{"model":"gemini-2.5-pro","project":"p","user_prompt_id":"u","request":{"contents":[]}}"#;
        assert_eq!(
            request_facts(WireApi::Gemini, "/v1internal:streamGenerateContent", body),
            RequestFacts {
                model: Some("gemini-2.5-pro".into()),
                stream: true
            }
        );
        assert_eq!(
            request_facts(WireApi::Gemini, "/v1internal:generateContent", b"{"),
            RequestFacts::default()
        );
    }

    #[test]
    fn bad_bodies_give_the_defaults() {
        for body in [
            &b"not json"[..],
            b"",
            b"[1,2]",
            b"{\"model\":7,\"stream\":\"yes\"}",
            b"{\"model\":\"",
            &[0xff, 0xfe, 0x00],
        ] {
            assert_eq!(
                request_facts(WireApi::OpenaiChat, "/v1/chat/completions", body),
                RequestFacts::default()
            );
        }
    }
}
