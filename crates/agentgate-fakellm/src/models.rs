//! `GET /v1/models` in each API's format: OpenAI's, Anthropic's,
//! Gemini's, and Codex's own catalog (what a provider's
//! `model_catalog_url` must answer). A script's `models:` replaces the
//! built-in list.

use serde_json::{Value, json};

/// Which format a listing is asked in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ModelsFlavor {
    /// Codex's catalog (`model_catalog_url`): it asks with
    /// `?client_version=`, which no other CLI sends.
    Codex,
    /// OpenAI's `{object: list, data}`.
    OpenAi,
    /// Anthropic's, with `has_more`.
    Anthropic,
    /// Gemini's `{models: [{name: models/...}]}`.
    Gemini,
}

/// The listing of the built-in models, or of `scripted`, in `flavor`.
pub(crate) fn models_listing(flavor: ModelsFlavor, scripted: Option<&[String]>) -> Value {
    const BUILT_IN: &[&str] = &[
        "claude-sonnet-4-5",
        "claude-opus-4-8",
        "gpt-5.5",
        "gemini-2.5-flash",
        "gemini-2.5-pro",
        "qwen3-coder-plus",
        "fake-model",
    ];
    let owned: Vec<&str>;
    let models: &[&str] = match scripted {
        Some(list) => {
            owned = list.iter().map(String::as_str).collect();
            &owned
        }
        None => BUILT_IN,
    };
    match flavor {
        ModelsFlavor::Codex => codex_catalog(models),
        ModelsFlavor::OpenAi => json!({
            "object": "list",
            "data": models.iter().map(|m| json!({"id": m, "object": "model", "created": 1_700_000_000, "owned_by": "agentgate-fakellm"})).collect::<Vec<_>>(),
        }),
        ModelsFlavor::Anthropic => json!({
            "data": models.iter().map(|m| json!({"type": "model", "id": m, "display_name": m, "created_at": "2025-01-01T00:00:00Z"})).collect::<Vec<_>>(),
            "has_more": false,
            "first_id": models.first(),
            "last_id": models.last(),
        }),
        ModelsFlavor::Gemini => json!({
            "models": models.iter().map(|m| json!({
                "name": format!("models/{m}"),
                "displayName": m,
                "supportedGenerationMethods": ["generateContent", "streamGenerateContent", "countTokens"],
            })).collect::<Vec<_>>(),
        }),
    }
}

/// Codex's catalog format (what its `model_catalog_url` must answer; the
/// fields it will not do without). Each model offers `low`, `medium` and
/// `high`, `gpt-5.5` `xhigh` too; the first listed has the highest
/// priority, which Codex takes for its default.
fn codex_catalog(models: &[&str]) -> Value {
    json!({"models": models.iter().enumerate().map(|(i, m)| {
        let mut levels = vec![
            json!({"effort": "low", "description": "low"}),
            json!({"effort": "medium", "description": "medium"}),
            json!({"effort": "high", "description": "high"}),
        ];
        if *m == "gpt-5.5" {
            levels.push(json!({"effort": "xhigh", "description": "xhigh"}));
        }
        json!({
            "slug": m,
            "display_name": m,
            "base_instructions": "You are a scripted model.",
            "supported_reasoning_levels": levels,
            "default_reasoning_level": "medium",
            "shell_type": "shell_command",
            "visibility": "list",
            "supported_in_api": true,
            "priority": i + 1,
            "support_verbosity": false,
            "truncation_policy": {"mode": "tokens", "limit": 10000},
            "experimental_supported_tools": [],
        })
    }).collect::<Vec<_>>()})
}
