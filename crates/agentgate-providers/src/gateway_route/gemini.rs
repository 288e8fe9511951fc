//! Gemini CLI: with an API key (`security.auth.selectedType` of its
//! settings `gemini-api-key`, or none selected and `GEMINI_API_KEY` or
//! `GOOGLE_GEMINI_BASE_URL` set, 0.61's `gateway` type) its calls go to
//! `GOOGLE_GEMINI_BASE_URL`, else `https://generativelanguage.googleapis.com`
//! (it appends `/v1beta/models/M:streamGenerateContent`), with
//! `GEMINI_API_KEY` as `x-goog-api-key`. Its Google login (OAuth) calls
//! the Code Assist API instead, and Vertex AI its own: neither is routed.
//! Pointed with `GOOGLE_GEMINI_BASE_URL` and `GEMINI_API_KEY` (read off
//! the real CLI, 0.61: it keeps a path prefix of the base URL).

use std::path::PathBuf;

use agentgate_protocol::WireApi;

use super::keys::{self, base};
use super::{
    PlanInput, Pointing, RouteError, UpstreamKey, UpstreamPlan, remove_key_vars, set_var, target,
    wrong_pointing,
};
use crate::argv::Context;
use crate::provider::{CliCommand, CommandError};

const API_KEY: &str = "GEMINI_API_KEY";
const GOOGLE_API_KEY: &str = "GOOGLE_API_KEY";
const BASE_URL: &str = "GOOGLE_GEMINI_BASE_URL";
const DEFAULT_UPSTREAM: &str = "https://generativelanguage.googleapis.com";

pub(super) fn plan(input: &PlanInput<'_>) -> Result<UpstreamPlan, RouteError> {
    let env = input.env;
    let settings_file = input.home.map(|h| h.join(".gemini/settings.json"));
    let selected = match &settings_file {
        Some(f) => keys::read_json(input.provider, f)?.and_then(|s| {
            keys::str_at(&s, &["security", "auth", "selectedType"])
                .or_else(|| keys::str_at(&s, &["selectedAuthType"]))
                .map(str::to_owned)
        }),
        None => None,
    };
    let auth = selected.clone().or_else(|| auth_from_env(input));
    match auth.as_deref() {
        Some("gemini-api-key" | "gateway") | None => {}
        Some("oauth-personal") => {
            return Err(RouteError::unsupported(
                input.provider,
                "its Google login (OAuth) calls the Code Assist API (cloudcode-pa.googleapis.com), not the Gemini API the gateway speaks: use GEMINI_API_KEY",
            ));
        }
        Some("vertex-ai") => {
            return Err(RouteError::unsupported(
                input.provider,
                "Vertex AI has an API of its own that the gateway does not speak: use GEMINI_API_KEY",
            ));
        }
        Some(other) => {
            return Err(RouteError::unsupported(
                input.provider,
                format!("its auth type {other:?} is not an API key: use GEMINI_API_KEY"),
            ));
        }
    }
    let mut notes = Vec::new();
    if let (Some(s), Some(f)) = (&selected, &settings_file) {
        notes.push(format!("auth type {s} of {}", f.display()));
    }
    let key = match keys::from_overrides(input)?.or_else(|| keys::from_env(env, &[API_KEY])) {
        Some(key) => key,
        // The `gateway` auth type sends an empty key when none is set.
        None if auth.as_deref() == Some("gateway") => UpstreamKey::Passthrough {
            login: "none: no key is set".into(),
        },
        None => {
            return Err(RouteError::unsupported(
                input.provider,
                format!(
                    "no {API_KEY} is set (a key saved with /auth in its keychain is not read here: set {API_KEY}, or name the key in the config)"
                ),
            ));
        }
    };
    if env.get(BASE_URL).is_some() {
        notes.push(format!("upstream from {BASE_URL}"));
    }
    Ok(UpstreamPlan {
        api: WireApi::Gemini,
        upstream: env.get(BASE_URL).map_or(DEFAULT_UPSTREAM.to_owned(), base),
        key,
        notes,
        pointing: Pointing::Gemini,
    })
}

/// The auth type Gemini CLI takes from its environment when its settings
/// select none.
fn auth_from_env(input: &PlanInput<'_>) -> Option<String> {
    let env = input.env;
    let on = |v: &str| env.get(v) == Some("true");
    let auth = if on("GOOGLE_GENAI_USE_GCA") {
        "oauth-personal"
    } else if on("GOOGLE_GENAI_USE_VERTEXAI") {
        "vertex-ai"
    } else if env.get(BASE_URL).is_some() {
        "gateway"
    } else if env.get(API_KEY).is_some() {
        "gemini-api-key"
    } else {
        // Without a key it would ask for a Google login.
        return gemini_oauth_file(input).map(|_| "oauth-personal".to_owned());
    };
    Some(auth.to_owned())
}

fn gemini_oauth_file(input: &PlanInput<'_>) -> Option<PathBuf> {
    input
        .home
        .map(|h| h.join(".gemini/oauth_creds.json"))
        .filter(|f| f.is_file())
}

/// Points Gemini CLI at the request's gateway, if it has one.
pub(crate) fn point(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let Some((target, stub)) = target(ctx)? else {
        return Ok(());
    };
    let Pointing::Gemini = &target.plan.pointing else {
        return Err(wrong_pointing(ctx));
    };
    set_var(cmd, BASE_URL, &target.base_url);
    remove_key_vars(cmd, &target.plan, &[API_KEY, GOOGLE_API_KEY]);
    if let Some(stub) = stub {
        set_var(cmd, API_KEY, stub);
    }
    Ok(())
}
