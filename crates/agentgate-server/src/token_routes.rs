//! `GET /v1/whoami` (any token: its name, team and scopes, for the
//! dashboard) and the admin routes of the API tokens: `GET /v1/tokens`,
//! `POST /v1/tokens` (the token is in the answer, once), `DELETE
//! /v1/tokens/{name}` (revoked at once: its next request is 401). They
//! call the library functions `agentgate token` calls
//! ([`agentgate_store::create_api_token`], [`agentgate_store::TokenStore`]).

use std::sync::Arc;

use agentgate_store::{
    ApiTokenRecord, CreateTokenError, NewApiToken, Scope, SpendLimits, TokenBudget, TokenLimits,
};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::access::Caller;
use crate::error::ApiError;
use crate::state::AppState;

/// A stored token, as the API shows it (never the token).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TokenView {
    /// Its unique name.
    pub name: String,
    /// Its team.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Its scopes.
    pub scopes: Vec<String>,
    /// The most of its jobs queued or running at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_running: Option<u32>,
    /// What the runs it submits may spend per UTC day and month.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<TokenBudgetBody>,
    /// `active`, `expired` or `revoked`.
    pub state: String,
    /// When it was made.
    pub created_at: Timestamp,
    /// When it stops working.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<Timestamp>,
    /// When it was last used (to the minute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_used_at: Option<Timestamp>,
    /// When it was revoked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<Timestamp>,
}

impl TokenView {
    fn of(record: ApiTokenRecord, now: Timestamp) -> TokenView {
        let state = if record.revoked_at.is_some() {
            "revoked"
        } else if record.refused_at(now) {
            "expired"
        } else {
            "active"
        };
        TokenView {
            state: state.to_owned(),
            scopes: record.scopes.iter().map(|s| s.name().to_owned()).collect(),
            max_running: record.limits.max_running,
            budget: (!record.limits.budget.is_empty())
                .then(|| TokenBudgetBody::from(record.limits.budget)),
            name: record.name,
            team: record.team,
            created_at: record.created_at,
            expires_at: record.expires_at,
            last_used_at: record.last_used_at,
            revoked_at: record.revoked_at,
        }
    }
}

/// The answer to `GET /v1/tokens`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TokenList {
    /// Every token, by name (revoked and expired ones too).
    pub tokens: Vec<TokenView>,
}

/// The body of `POST /v1/tokens`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    /// Its unique name (letters, digits, `.`, `_`, `-`).
    pub name: String,
    /// Its scopes: `read`, `read:all`, `submit`, `cancel`, `approve`, `admin`.
    pub scopes: Vec<String>,
    /// Its team: then `read` sees only the team's runs.
    #[serde(default)]
    pub team: Option<String>,
    /// When it stops working: a duration (`30d`, `12h`, `90m`) or an RFC
    /// 3339 time.
    #[serde(default)]
    pub expires: Option<String>,
    /// The most of its jobs queued or running at once.
    #[serde(default)]
    pub max_running: Option<u32>,
    /// What the runs it submits may spend per UTC day and month,
    /// together (past a limit a run is stopped with `budget`, or its job
    /// waits under `budgets.when_over: wait`).
    #[serde(default, deserialize_with = "object_only")]
    pub budget: Option<TokenBudgetBody>,
}

/// A token's budget: limits per UTC day and per calendar month.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenBudgetBody {
    /// Per UTC day.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "object_only"
    )]
    pub day: Option<SpendLimitsBody>,
    /// Per calendar month (UTC).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "object_only"
    )]
    pub month: Option<SpendLimitsBody>,
}

/// A limit in USD and one in tokens (`input + output`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SpendLimitsBody {
    /// The most USD, 0 or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 0)]
    pub max_cost_usd: Option<f64>,
    /// The most tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
}

/// An optional field read from a JSON object only: a derived struct also
/// takes an array of its fields (`"budget": [null, null]`), which the API
/// document does not allow.
fn object_only<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    match Option::<serde_json::Map<String, serde_json::Value>>::deserialize(deserializer)? {
        None => Ok(None),
        Some(object) => serde_json::from_value(serde_json::Value::Object(object))
            .map(Some)
            .map_err(serde::de::Error::custom),
    }
}

impl From<TokenBudget> for TokenBudgetBody {
    fn from(b: TokenBudget) -> Self {
        let side = |l: SpendLimits| {
            (!l.is_empty()).then_some(SpendLimitsBody {
                max_cost_usd: l.max_cost_usd,
                max_tokens: l.max_tokens,
            })
        };
        TokenBudgetBody {
            day: side(b.day),
            month: side(b.month),
        }
    }
}

impl From<TokenBudgetBody> for TokenBudget {
    fn from(b: TokenBudgetBody) -> Self {
        let side = |l: Option<SpendLimitsBody>| {
            l.map(|l| SpendLimits {
                max_cost_usd: l.max_cost_usd,
                max_tokens: l.max_tokens,
            })
            .unwrap_or_default()
        };
        TokenBudget {
            day: side(b.day),
            month: side(b.month),
        }
    }
}

/// The answer to `POST /v1/tokens`: the token, shown this once.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TokenCreated {
    /// The token (`agt_...`): keep it, it is not shown again.
    pub token: String,
    /// What was stored.
    #[serde(flatten)]
    pub view: TokenView,
}

/// `GET /v1/whoami`: the token this request came with.
#[utoipa::path(
    get,
    path = "/v1/whoami",
    tag = "tokens",
    responses(
        (status = 200, description = "The token's name (`serve` for the server's own), team and scopes. Needs any valid token", body = Caller),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn whoami(Extension(caller): Extension<Caller>) -> Json<Caller> {
    Json(caller)
}

/// `GET /v1/tokens`: every stored token (never a secret). Scope `admin`.
#[utoipa::path(
    get,
    path = "/v1/tokens",
    tag = "tokens",
    responses(
        (status = 200, description = "The tokens. Needs `admin`", body = TokenList),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 403, description = "The token lacks `admin`", body = crate::error::ErrorBody),
    ),
)]
pub async fn list_tokens(State(state): State<Arc<AppState>>) -> Result<Json<TokenList>, ApiError> {
    let store = state.store.clone();
    let now = state.clock.now();
    let records = tokio::task::spawn_blocking(move || match store.token_store() {
        Some(tokens) => tokens.list_tokens().map(Some),
        None => Ok(None),
    })
    .await
    .map_err(|e| ApiError::internal(format!("listing the tokens failed: {e}")))?
    .map_err(|e| ApiError::store(&e))?
    .ok_or_else(no_token_store)?;
    Ok(Json(TokenList {
        tokens: records.into_iter().map(|r| TokenView::of(r, now)).collect(),
    }))
}

/// `POST /v1/tokens`: make a token. Scope `admin`.
#[utoipa::path(
    post,
    path = "/v1/tokens",
    tag = "tokens",
    request_body(content = TokenRequest, description = "The token's name, scopes, team, expiry and limit"),
    responses(
        (status = 201, description = "Made; `token` is shown this once. Needs `admin`", body = TokenCreated),
        (status = 400, description = "The body is not JSON", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 403, description = "The token lacks `admin`", body = crate::error::ErrorBody),
        (status = 409, description = "The name is taken", body = crate::error::ErrorBody),
        (status = 422, description = "A field is not valid (`field` names it)", body = crate::error::ErrorBody),
    ),
)]
pub async fn create_token(
    State(state): State<Arc<AppState>>,
    body: Bytes,
) -> Result<(StatusCode, Json<TokenCreated>), ApiError> {
    let request: TokenRequest = ApiError::strict_body(&body)?;
    let now = state.clock.now();
    let invalid = |field: &str, message: String| {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_request", message)
            .with_field(field)
    };
    let scopes = request
        .scopes
        .iter()
        .map(|s| s.parse::<Scope>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| invalid("scopes", e.to_string()))?;
    let expires_at = request
        .expires
        .as_deref()
        .map(|text| agentgate_store::parse_expiry(text, now))
        .transpose()
        .map_err(|m| invalid("expires", m))?;
    let new = NewApiToken {
        name: request.name,
        scopes,
        team: request.team,
        expires_at,
        limits: TokenLimits {
            max_running: request.max_running,
            budget: request.budget.map(TokenBudget::from).unwrap_or_default(),
        },
    };
    let store = state.store.clone();
    let made = tokio::task::spawn_blocking(move || {
        store
            .token_store()
            .map(|tokens| agentgate_store::create_api_token(tokens, new, now))
    })
    .await
    .map_err(|e| ApiError::internal(format!("making the token failed: {e}")))?
    .ok_or_else(no_token_store)?;
    match made {
        Ok((token, record)) => Ok((
            StatusCode::CREATED,
            Json(TokenCreated {
                token,
                view: TokenView::of(record, now),
            }),
        )),
        Err(CreateTokenError::Invalid { field, message }) => Err(invalid(field, message)),
        Err(e @ CreateTokenError::NameTaken(_)) => Err(ApiError::conflict(e.to_string())),
        Err(CreateTokenError::Store(e)) => Err(ApiError::store(&e)),
    }
}

/// `DELETE /v1/tokens/{name}`: revoke a token; its next request is 401.
/// Scope `admin`.
#[utoipa::path(
    delete,
    path = "/v1/tokens/{name}",
    tag = "tokens",
    params(("name" = String, Path, description = "The token's name")),
    responses(
        (status = 200, description = "Revoked. Needs `admin`", body = TokenView),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 403, description = "The token lacks `admin`", body = crate::error::ErrorBody),
        (status = 404, description = "No live token has this name", body = crate::error::ErrorBody),
    ),
)]
pub async fn revoke_token(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
) -> Result<Json<TokenView>, ApiError> {
    let store = state.store.clone();
    let now = state.clock.now();
    let wanted = name.clone();
    let revoked = tokio::task::spawn_blocking(move || {
        let Some(tokens) = store.token_store() else {
            return Ok(None);
        };
        if !tokens.revoke_token(&wanted, now)? {
            return Ok(Some(None));
        }
        let record = tokens.list_tokens()?.into_iter().find(|t| t.name == wanted);
        Ok::<_, agentgate_store::StoreError>(Some(record))
    })
    .await
    .map_err(|e| ApiError::internal(format!("revoking the token failed: {e}")))?
    .map_err(|e| ApiError::store(&e))?
    .ok_or_else(no_token_store)?;
    match revoked {
        Some(record) => Ok(Json(TokenView::of(record, now))),
        None => Err(ApiError::no_such(format!(
            "no live token is named `{name}`"
        ))),
    }
}

fn no_token_store() -> ApiError {
    ApiError::new(
        StatusCode::NOT_IMPLEMENTED,
        "not_implemented",
        "this server's store keeps no API tokens",
    )
}
