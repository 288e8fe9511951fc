//! What a request path asks for: a model call of one of the wire APIs, a
//! token count, a model listing, the root (liveness), or nothing.

use axum::http::{HeaderMap, Method};

use crate::api::PathInfo;
use crate::models::ModelsFlavor;
use crate::request::Api;

/// What a request path asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Route {
    Root,
    Model(Api, PathInfo),
    AnthropicCount,
    GeminiCount(String),
    Models(ModelsFlavor),
    NotFound,
}

pub(super) fn route(
    method: &Method,
    path: &str,
    query: Option<&str>,
    headers: &HeaderMap,
) -> Route {
    let path = path.trim_end_matches('/');
    if path.is_empty() && (method == Method::HEAD || method == Method::GET) {
        return Route::Root;
    }
    if method == Method::GET {
        if path.ends_with("/models") {
            let codex =
                query.is_some_and(|q| q.split('&').any(|kv| kv.starts_with("client_version=")));
            if codex || path.ends_with("/codex/models") {
                return Route::Models(ModelsFlavor::Codex);
            }
            if path.contains("v1beta") || path.contains("/v1alpha") {
                return Route::Models(ModelsFlavor::Gemini);
            }
            if headers.contains_key("anthropic-version") {
                return Route::Models(ModelsFlavor::Anthropic);
            }
            return Route::Models(ModelsFlavor::OpenAi);
        }
        return Route::NotFound;
    }
    if method != Method::POST {
        return Route::NotFound;
    }
    if path.ends_with("/messages/count_tokens") {
        return Route::AnthropicCount;
    }
    if path.ends_with("/messages") {
        return Route::Model(Api::Anthropic, PathInfo::default());
    }
    if path.ends_with("/responses") {
        return Route::Model(Api::Responses, PathInfo::default());
    }
    if path.ends_with("/chat/completions") {
        return Route::Model(Api::Chat, PathInfo::default());
    }
    if let Some((before, action)) = path.rsplit_once(':') {
        let model = before
            .rsplit_once("/models/")
            .map(|(_, m)| m.to_owned())
            .unwrap_or_default();
        return match action {
            "generateContent" => Route::Model(
                Api::Gemini,
                PathInfo {
                    model: Some(model),
                    stream: Some(false),
                },
            ),
            "streamGenerateContent" => Route::Model(
                Api::Gemini,
                PathInfo {
                    model: Some(model),
                    stream: Some(true),
                },
            ),
            "countTokens" => Route::GeminiCount(model),
            _ => Route::NotFound,
        };
    }
    Route::NotFound
}
