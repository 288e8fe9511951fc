//! Who a request is ([`Caller`]) and what each route needs
//! ([`required_scope`]).
//!
//! The gate resolves the bearer token to a [`Caller`] (the server's own
//! token is [`Caller::server`]: an admin without a team; a store token
//! carries its name, team and scopes) and puts it in the request's
//! extensions; then, still before the body is read, it asks
//! [`required_scope`] what the route needs, from its method and path
//! alone ([`ROUTE_SCOPES`]), and answers 403 when the caller's scopes do
//! not grant it. A path that is in no entry needs `admin` (a route added
//! without a scope is closed, never open).
//!
//! Teams: a caller with a team and without `read:all` (nor `admin`) sees
//! only the runs its team's tokens submitted ([`Caller::team_only`]); the
//! run routes answer 404 for the others, as for a run that does not exist.

use agentgate_store::{ApiTokenRecord, Scope};
use serde::Serialize;

pub use agentgate_store::SERVER_TOKEN_NAME;

/// What a route needs: a scope, or only a valid token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Any valid token (`GET /v1/whoami`).
    AnyToken,
    /// This scope (or one that grants it).
    Scope(Scope),
}

/// Every route behind the token: method, path (`{x}` is one segment) and
/// what it needs. `HEAD` is `GET`.
pub const ROUTE_SCOPES: &[(&str, &str, Need)] = &[
    ("GET", "/metrics", Need::Scope(Scope::Read)),
    ("GET", "/v1/health", Need::Scope(Scope::Read)),
    ("GET", "/v1/runs", Need::Scope(Scope::Read)),
    ("POST", "/v1/runs", Need::Scope(Scope::Submit)),
    ("POST", "/v1/runs/cancel", Need::Scope(Scope::Cancel)),
    ("POST", "/v1/runs/{id}/cancel", Need::Scope(Scope::Cancel)),
    ("GET", "/v1/runs/{id}/approvals", Need::Scope(Scope::Read)),
    (
        "POST",
        "/v1/runs/{id}/approvals/{request_id}",
        Need::Scope(Scope::Approve),
    ),
    ("GET", "/v1/runs/{id}", Need::Scope(Scope::Read)),
    ("GET", "/v1/runs/{id}/events", Need::Scope(Scope::Read)),
    ("POST", "/v1/workflows", Need::Scope(Scope::Submit)),
    ("GET", "/v1/queue", Need::Scope(Scope::Read)),
    ("GET", "/v1/sessions", Need::Scope(Scope::Read)),
    ("DELETE", "/v1/sessions/{name}", Need::Scope(Scope::Admin)),
    ("GET", "/v1/quota", Need::Scope(Scope::Read)),
    ("GET", "/v1/providers", Need::Scope(Scope::Read)),
    ("GET", "/v1/skills", Need::Scope(Scope::Read)),
    ("GET", "/v1/models", Need::Scope(Scope::Read)),
    ("GET", "/v1/workers", Need::Scope(Scope::Admin)),
    ("GET", "/v1/usage", Need::Scope(Scope::Read)),
    // Deliveries carry every team's runs and the operator's URLs.
    ("GET", "/v1/webhooks/deliveries", Need::Scope(Scope::Admin)),
    ("GET", "/v1/openapi.json", Need::Scope(Scope::Read)),
    ("GET", "/v1/whoami", Need::AnyToken),
    ("GET", "/v1/tokens", Need::Scope(Scope::Admin)),
    ("POST", "/v1/tokens", Need::Scope(Scope::Admin)),
    ("DELETE", "/v1/tokens/{name}", Need::Scope(Scope::Admin)),
];

/// What `method` on `path` needs: its [`ROUTE_SCOPES`] entry, else
/// `admin`.
pub fn required_scope(method: &str, path: &str) -> Need {
    let method = if method == "HEAD" { "GET" } else { method };
    ROUTE_SCOPES
        .iter()
        .find(|(m, template, _)| *m == method && path_matches(template, path))
        .map_or(Need::Scope(Scope::Admin), |(_, _, need)| *need)
}

fn path_matches(template: &str, path: &str) -> bool {
    let mut given = path.split('/');
    for want in template.split('/') {
        match given.next() {
            Some(seg) if want.starts_with('{') => {
                if seg.is_empty() {
                    return false;
                }
            }
            Some(seg) if seg == want => {}
            _ => return false,
        }
    }
    given.next().is_none()
}

/// The token a request came with, once the gate accepted it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
pub struct Caller {
    /// The token's name (`serve` for the server's own token).
    pub name: String,
    /// Its team, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Its scopes (`read`, `read:all`, `submit`, `cancel`, `approve`,
    /// `admin`).
    #[schema(value_type = Vec<String>)]
    pub scopes: Vec<Scope>,
    /// The most of its jobs queued or running at once, if limited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_running: Option<u32>,
}

impl Caller {
    /// The server's own token: admin, no team.
    pub fn server() -> Caller {
        Caller {
            name: SERVER_TOKEN_NAME.to_owned(),
            team: None,
            scopes: vec![Scope::Admin],
            max_running: None,
        }
    }

    /// The caller a stored token makes.
    pub fn of(record: &ApiTokenRecord) -> Caller {
        Caller {
            name: record.name.clone(),
            team: record.team.clone(),
            scopes: record.scopes.clone(),
            max_running: record.limits.max_running,
        }
    }

    /// Whether it may use a route that needs `need`.
    pub fn allows(&self, need: Need) -> bool {
        match need {
            Need::AnyToken => true,
            Need::Scope(needed) => self.scopes.iter().any(|s| s.grants(needed)),
        }
    }

    /// The team whose runs alone it sees: its team, unless it has
    /// `read:all` (or `admin`).
    pub fn team_only(&self) -> Option<&str> {
        if self.allows(Need::Scope(Scope::ReadAll)) {
            return None;
        }
        self.team.as_deref()
    }

    /// Whether it sees a run that `submitter` submitted (`None`: no token
    /// recorded, e.g. a run queued by a schedule).
    pub fn sees(&self, submitter: Option<&agentgate_store::Submitter>) -> bool {
        match self.team_only() {
            None => true,
            Some(team) => submitter.and_then(|s| s.team.as_deref()) == Some(team),
        }
    }

    /// The labels that record it on a job it submits.
    pub fn submitter(&self) -> agentgate_store::Submitter {
        agentgate_store::Submitter {
            token: self.name.clone(),
            team: self.team.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_one_segment_per_parameter() {
        assert_eq!(
            required_scope("GET", "/v1/runs/abc"),
            Need::Scope(Scope::Read)
        );
        assert_eq!(
            required_scope("HEAD", "/v1/runs/abc/events"),
            Need::Scope(Scope::Read)
        );
        assert_eq!(
            required_scope("POST", "/v1/runs/abc/approvals/r1"),
            Need::Scope(Scope::Approve)
        );
        assert_eq!(
            required_scope("POST", "/v1/runs/cancel"),
            Need::Scope(Scope::Cancel)
        );
        // Unknown paths and methods need admin.
        for (m, p) in [
            ("GET", "/v1/runs/abc/def"),
            ("GET", "/v1/nope"),
            ("PUT", "/v1/runs"),
            ("GET", "/v1/runs//events"),
        ] {
            assert_eq!(required_scope(m, p), Need::Scope(Scope::Admin), "{m} {p}");
        }
        assert_eq!(required_scope("GET", "/v1/whoami"), Need::AnyToken);
    }

    #[test]
    fn a_team_reader_sees_its_team_only() {
        let reader = Caller {
            name: "r".into(),
            team: Some("a".into()),
            scopes: vec![Scope::Read],
            max_running: None,
        };
        let of = |team: Option<&str>| agentgate_store::Submitter {
            token: "t".into(),
            team: team.map(str::to_owned),
        };
        assert!(reader.sees(Some(&of(Some("a")))));
        assert!(!reader.sees(Some(&of(Some("b")))));
        assert!(!reader.sees(Some(&of(None))));
        assert!(!reader.sees(None));
        let all = Caller {
            scopes: vec![Scope::ReadAll],
            ..reader.clone()
        };
        assert!(all.sees(Some(&of(Some("b")))) && all.sees(None));
        assert!(Caller::server().sees(None));
    }
}
