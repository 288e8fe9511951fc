//! API tokens: the many named keys of `agentgate serve`, each with scopes,
//! an optional team, an optional expiry and limits (`agentgate token
//! create`, `GET/POST /v1/tokens`).
//!
//! A token is `agt_` and 64 hex digits: 32 bytes from the OS random source
//! (nothing of its name in it). The store keeps only its SHA-256
//! ([`hash_token`]), never the token: a fast hash is the right one for a
//! 256-bit random secret (there is no dictionary to try; a slow password
//! hash only guards low-entropy secrets). A token is shown once, when it
//! is made ([`generate_token`]).
//!
//! Who submitted a run is kept with its job as two reserved labels,
//! [`SUBMITTER_TOKEN_LABEL`] and [`SUBMITTER_TEAM_LABEL`] (the `labels`
//! side table both backends have, written with the job in its insert):
//! a team's list is then the label filter it already has.
//! [`TokenStore::submitters`] reads them back for a page of jobs.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::StoreError;

/// What every API token starts with.
pub const TOKEN_PREFIX: &str = "agt_";

/// The label key naming the token that submitted a job.
pub const SUBMITTER_TOKEN_LABEL: &str = "agentgate.token";

/// The label key naming the team of the token that submitted a job.
pub const SUBMITTER_TEAM_LABEL: &str = "agentgate.team";

/// Label keys starting with this are agentgate's own: a caller cannot set
/// them.
pub const RESERVED_LABEL_PREFIX: &str = "agentgate.";

/// What a token may do. `admin` implies every other scope; `read:all`
/// implies `read`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Scope {
    /// Read runs, jobs, events and the server's views (a team's token: its
    /// team's runs only).
    #[serde(rename = "read")]
    Read,
    /// Read every team's runs.
    #[serde(rename = "read:all")]
    ReadAll,
    /// Submit runs and workflows.
    #[serde(rename = "submit")]
    Submit,
    /// Cancel runs (one, or by label).
    #[serde(rename = "cancel")]
    Cancel,
    /// Answer a run's approval requests.
    #[serde(rename = "approve")]
    Approve,
    /// Everything, and the operator's routes (tokens, workers, sessions).
    #[serde(rename = "admin")]
    Admin,
}

impl Scope {
    /// Every scope, in order.
    pub const ALL: [Scope; 6] = [
        Scope::Read,
        Scope::ReadAll,
        Scope::Submit,
        Scope::Cancel,
        Scope::Approve,
        Scope::Admin,
    ];

    /// Its name, as written in flags, the API and the store.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::ReadAll => "read:all",
            Scope::Submit => "submit",
            Scope::Cancel => "cancel",
            Scope::Approve => "approve",
            Scope::Admin => "admin",
        }
    }

    /// Whether holding this scope grants `needed`.
    pub fn grants(self, needed: Scope) -> bool {
        self == needed || self == Scope::Admin || (self == Scope::ReadAll && needed == Scope::Read)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A scope name that is none of [`Scope::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope `{0}`: use read, read:all, submit, cancel, approve or admin")]
pub struct UnknownScope(pub String);

impl FromStr for Scope {
    type Err = UnknownScope;
    fn from_str(s: &str) -> Result<Scope, UnknownScope> {
        Scope::ALL
            .into_iter()
            .find(|scope| scope.name() == s)
            .ok_or_else(|| UnknownScope(s.to_owned()))
    }
}

/// A token's limits. Kept as JSON in the store, so that budgets can join
/// without a migration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TokenLimits {
    /// The most of its jobs queued or running at once; a submit past it
    /// is refused (429).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_running: Option<u32>,
    /// What the runs it submits may spend per UTC day and month, together
    /// (enforced like the config's `budgets:` windows).
    #[serde(default, skip_serializing_if = "TokenBudget::is_empty")]
    pub budget: TokenBudget,
}

/// A token's budget: its runs' spending per UTC day and per month.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenBudget {
    /// Per UTC day.
    #[serde(default, skip_serializing_if = "SpendLimits::is_empty")]
    pub day: SpendLimits,
    /// Per calendar month (UTC).
    #[serde(default, skip_serializing_if = "SpendLimits::is_empty")]
    pub month: SpendLimits,
}

impl TokenBudget {
    /// Whether neither window has a limit.
    pub fn is_empty(&self) -> bool {
        self.day.is_empty() && self.month.is_empty()
    }

    /// Refused when a cost is below 0 or not a number: the field and why.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        for (name, limits) in [("day", &self.day), ("month", &self.month)] {
            if let Some(usd) = limits.max_cost_usd
                && !(usd.is_finite() && usd >= 0.0)
            {
                return Err((
                    "budget",
                    format!(
                        "budget.{name}.max_cost_usd is {usd}; it is a number of USD, 0 or more"
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A limit in USD and one in tokens (`input + output`); either may be
/// absent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpendLimits {
    /// The most USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost_usd: Option<f64>,
    /// The most tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
}

impl SpendLimits {
    /// Whether neither limit is set.
    pub fn is_empty(&self) -> bool {
        self.max_cost_usd.is_none() && self.max_tokens.is_none()
    }
}

/// A token as stored: everything but the token.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ApiTokenRecord {
    /// Its unique name.
    pub name: String,
    /// Its team, if any: then its `read` sees its team's runs only.
    pub team: Option<String>,
    /// What it may do.
    pub scopes: Vec<Scope>,
    /// Its limits.
    pub limits: TokenLimits,
    /// When it was made.
    pub created_at: Timestamp,
    /// Refused from this time on.
    pub expires_at: Option<Timestamp>,
    /// When it last passed the gate (to the minute: see the server).
    pub last_used_at: Option<Timestamp>,
    /// When it was revoked; refused from then on.
    pub revoked_at: Option<Timestamp>,
    /// The SHA-256 of the token, hex (never serialised).
    #[serde(skip)]
    pub hash: String,
}

impl ApiTokenRecord {
    /// Whether it is refused at `now`: revoked, or past its expiry.
    pub fn refused_at(&self, now: Timestamp) -> bool {
        self.revoked_at.is_some() || self.expires_at.is_some_and(|at| at <= now)
    }
}

/// The SHA-256 of `token`, as 64 lowercase hex digits.
pub fn hash_token(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Whether two hashes are equal, compared in constant time.
pub fn hashes_equal(a: &str, b: &str) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a
        .bytes()
        .zip(b.bytes())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// A new token (`agt_` and 64 hex digits) and its hash.
pub fn generate_token() -> Result<(String, String), StoreError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Random {
        source: std::io::Error::from(e),
    })?;
    let token: String = std::iter::once(TOKEN_PREFIX.to_owned())
        .chain(bytes.iter().map(|b| format!("{b:02x}")))
        .collect();
    let hash = hash_token(&token);
    Ok((token, hash))
}

/// A token name or team: 1 to 64 ASCII letters, digits, `.`, `_`, `-`,
/// starting with a letter or digit.
pub fn check_token_name(what: &str, name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{what} `{}` is not valid: use 1 to 64 ASCII letters, digits, `.`, `_` and `-`, \
             starting with a letter or a digit",
            name.escape_debug()
        ))
    }
}

/// An expiry as given: a duration from `now` (`30d`, `12h`, `90m`) or an
/// RFC 3339 time. A time not after `now` is refused.
pub fn parse_expiry(text: &str, now: Timestamp) -> Result<Timestamp, String> {
    let text = text.trim();
    let relative = text
        .strip_suffix('d')
        .map(|n| (n, 86_400))
        .or_else(|| text.strip_suffix('h').map(|n| (n, 3_600)))
        .or_else(|| text.strip_suffix('m').map(|n| (n, 60)));
    let at = match relative.and_then(|(n, unit)| n.parse::<i64>().ok().map(|n| (n, unit))) {
        Some((n, unit)) if n > 0 && n <= 36_500 * 86_400 / unit => now
            .checked_add(SignedDuration::from_secs(n * unit))
            .map_err(|e| format!("the expiry `{text}` is out of range: {e}"))?,
        _ => text.parse::<Timestamp>().map_err(|_| {
            format!(
                "the expiry `{text}` is neither a duration (30d, 12h, 90m) nor an RFC 3339 time"
            )
        })?,
    };
    if at <= now {
        return Err(format!("the expiry `{text}` is not in the future"));
    }
    Ok(at)
}

/// The name the server's own token (`AGENTGATE_TOKEN`, the token file)
/// goes by in the API: no stored token may take it.
pub const SERVER_TOKEN_NAME: &str = "serve";

/// A token to make ([`create_api_token`]).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct NewApiToken {
    /// Its unique name.
    pub name: String,
    /// Its scopes (at least one).
    pub scopes: Vec<Scope>,
    /// Its team.
    #[serde(default)]
    pub team: Option<String>,
    /// When it stops working, if ever.
    #[serde(default)]
    pub expires_at: Option<Timestamp>,
    /// Its limits.
    #[serde(default)]
    pub limits: TokenLimits,
}

/// Why a token was not made.
#[derive(Debug, thiserror::Error)]
pub enum CreateTokenError {
    /// A field is not valid.
    #[error("{message}")]
    Invalid {
        /// The field (`name`, `team`, `scopes`, `expires_at`).
        field: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The name is taken (by a live or a revoked token).
    #[error("a token named `{0}` exists already (revoked names stay taken: their runs name them)")]
    NameTaken(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Makes the token `new` asks for at `now`: checks it, draws the secret,
/// stores its hash. Returns the token (to show once) and its record.
pub fn create_api_token(
    tokens: &dyn TokenStore,
    new: NewApiToken,
    now: Timestamp,
) -> Result<(String, ApiTokenRecord), CreateTokenError> {
    let invalid = |field, message| CreateTokenError::Invalid { field, message };
    check_token_name("token name", &new.name).map_err(|m| invalid("name", m))?;
    if new.name == SERVER_TOKEN_NAME {
        return Err(invalid(
            "name",
            format!("`{SERVER_TOKEN_NAME}` is the server's own token's name; choose another"),
        ));
    }
    if let Some(team) = &new.team {
        check_token_name("team", team).map_err(|m| invalid("team", m))?;
    }
    if new.scopes.is_empty() {
        return Err(invalid(
            "scopes",
            "a token needs at least one scope (read, read:all, submit, cancel, approve, admin)"
                .to_owned(),
        ));
    }
    if new.expires_at.is_some_and(|at| at <= now) {
        return Err(invalid(
            "expires_at",
            "the expiry is not in the future".to_owned(),
        ));
    }
    if new.limits.max_running == Some(0) {
        return Err(invalid(
            "max_running",
            "max_running must be at least 1 (leave it out for no limit)".to_owned(),
        ));
    }
    new.limits
        .budget
        .check()
        .map_err(|(field, m)| invalid(field, m))?;
    let mut scopes = new.scopes;
    scopes.sort();
    scopes.dedup();
    let (token, hash) = generate_token()?;
    let record = ApiTokenRecord {
        name: new.name,
        team: new.team,
        scopes,
        limits: new.limits,
        created_at: now,
        expires_at: new.expires_at,
        last_used_at: None,
        revoked_at: None,
        hash,
    };
    if !tokens.create_token(&record)? {
        return Err(CreateTokenError::NameTaken(record.name));
    }
    Ok((token, record))
}

/// Who submitted a job: the token's name and its team.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submitter {
    /// The token's name.
    pub token: String,
    /// Its team, if it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

impl Submitter {
    /// The reserved labels that record it on a job.
    pub fn labels(&self) -> agentgate_protocol::Labels {
        let mut labels = agentgate_protocol::Labels::new();
        labels.insert(SUBMITTER_TOKEN_LABEL.to_owned(), self.token.clone());
        if let Some(team) = &self.team {
            labels.insert(SUBMITTER_TEAM_LABEL.to_owned(), team.clone());
        }
        labels
    }
}

/// The stored API tokens, and who submitted which job.
pub trait TokenStore: Send + Sync {
    /// Stores a new token; false (nothing stored) when its name is taken,
    /// revoked or not.
    fn create_token(&self, token: &ApiTokenRecord) -> Result<bool, StoreError>;
    /// Every token, by name (revoked ones too).
    fn list_tokens(&self) -> Result<Vec<ApiTokenRecord>, StoreError>;
    /// The token whose hash is `hash`, if any.
    fn find_token(&self, hash: &str) -> Result<Option<ApiTokenRecord>, StoreError>;
    /// Revokes the token `name` at `now`; false when there is none (or it
    /// was revoked already).
    fn revoke_token(&self, name: &str, now: Timestamp) -> Result<bool, StoreError>;
    /// Notes that `name` was used at `now`.
    fn touch_token(&self, name: &str, now: Timestamp) -> Result<(), StoreError>;
    /// Who submitted each of these jobs (a job submitted before tokens, or
    /// by no token, is missing).
    fn submitters(&self, job_ids: &[String]) -> Result<HashMap<String, Submitter>, StoreError>;
}

/// [`Submitter`]s from `(id, key, value)` label rows.
pub(crate) fn submitters_from_rows(
    rows: impl IntoIterator<Item = (String, String, String)>,
) -> HashMap<String, Submitter> {
    let mut tokens: HashMap<String, String> = HashMap::new();
    let mut teams: HashMap<String, String> = HashMap::new();
    for (id, key, value) in rows {
        if key == SUBMITTER_TOKEN_LABEL {
            tokens.insert(id, value);
        } else if key == SUBMITTER_TEAM_LABEL {
            teams.insert(id, value);
        }
    }
    tokens
        .into_iter()
        .map(|(id, token)| {
            let team = teams.remove(&id);
            (id, Submitter { token, team })
        })
        .collect()
}

/// Scopes as stored: their names, space-separated.
pub(crate) fn scopes_to_text(scopes: &[Scope]) -> String {
    scopes
        .iter()
        .map(|s| s.name())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Scopes from their stored text (an unknown name is left out: a newer
/// agentgate's scope grants nothing here).
pub(crate) fn scopes_from_text(text: &str) -> Vec<Scope> {
    text.split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admin_grants_all_and_read_all_grants_read() {
        for s in Scope::ALL {
            assert!(Scope::Admin.grants(s));
            assert!(s.grants(s));
        }
        assert!(Scope::ReadAll.grants(Scope::Read));
        assert!(!Scope::Read.grants(Scope::ReadAll));
        assert!(!Scope::Submit.grants(Scope::Read));
        assert_eq!("read:all".parse::<Scope>().unwrap(), Scope::ReadAll);
        assert!("write".parse::<Scope>().is_err());
    }

    #[test]
    fn a_token_is_prefixed_random_and_hashed() {
        let (a, hash_a) = generate_token().unwrap();
        let (b, _) = generate_token().unwrap();
        assert!(a.starts_with(TOKEN_PREFIX) && a.len() == 68, "{a}");
        assert_ne!(a, b);
        assert_eq!(hash_a, hash_token(&a));
        assert!(!hash_a.contains(&a[4..]));
        assert!(hashes_equal(&hash_a, &hash_token(&a)));
        assert!(!hashes_equal(&hash_a, &hash_token(&b)));
    }

    #[test]
    fn expiry_is_a_duration_or_a_time_in_the_future() {
        let now: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        assert_eq!(
            parse_expiry("30d", now).unwrap(),
            "2026-01-31T00:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert_eq!(
            parse_expiry("2h", now).unwrap(),
            "2026-01-01T02:00:00Z".parse::<Timestamp>().unwrap()
        );
        assert!(parse_expiry("2027-01-01T00:00:00Z", now).is_ok());
        assert!(parse_expiry("2025-01-01T00:00:00Z", now).is_err());
        assert!(parse_expiry("0d", now).is_err());
        assert!(parse_expiry("soon", now).is_err());
    }
}
