//! API tokens with scopes through a real `agentgate serve` over HTTP:
//! every route of the served OpenAPI document, asked with a token of each
//! scope, is allowed (not 401/403) exactly when the scope grants it and
//! refused with 403 otherwise. The routes come from the document, so a
//! route added without a scope in this table fails the test; the server
//! refuses a route missing from its own table to all but `admin`.
//!
//! Tokens are made with `agentgate token create` on the server's store,
//! as an operator does.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use super::serve_queue_support::{QueueHome, TOKEN};
use super::serve_support::{Response, Serve, request};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

/// `agentgate token ARGS` on the store of `home` (its `data` folder, or
/// `store` when given); its stdout, the command having succeeded.
pub fn token_cmd(home: &Path, store: Option<&str>, args: &[&str]) -> String {
    let mut cmd = Command::new(AGENTGATE);
    if let Some(store) = store {
        cmd.args(["--store", store]);
    }
    let out = cmd
        .arg("token")
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("AGENTGATE_HOME", home.join("data"))
        .env("AGENTGATE_CONFIG", home.join("agentgate.yaml"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "token {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A new token named `name` with `scopes` (and `extra` flags): the secret.
pub fn make_token(
    home: &Path,
    store: Option<&str>,
    name: &str,
    scopes: &[&str],
    extra: &[&str],
) -> String {
    let mut args = vec!["create", "--name", name];
    for s in scopes {
        args.extend(["--scope", s]);
    }
    args.extend(extra);
    let token = token_cmd(home, store, &args).trim().to_owned();
    assert!(token.starts_with("agt_") && token.len() == 68, "{token}");
    token
}

/// `method path` with the bearer `token` (and a JSON body for POST).
pub fn call(url: &str, method: &str, path: &str, token: &str, body: &str) -> Response {
    let mut headers = vec![format!("Authorization: Bearer {token}")];
    if method != "POST" {
        return request(url, method, path, &headers, b"");
    }
    headers.push("Content-Type: application/json".to_owned());
    headers.push(format!("Content-Length: {}", body.len()));
    request(url, method, path, &headers, body.as_bytes())
}

/// What each route of the API needs: `None` is any valid token. The
/// test's own table, compared with the server's behaviour.
const EXPECTED: &[(&str, &str, Option<&str>)] = &[
    ("GET", "/metrics", Some("read")),
    ("GET", "/v1/health", Some("read")),
    ("GET", "/v1/runs", Some("read")),
    ("POST", "/v1/runs", Some("submit")),
    ("POST", "/v1/runs/cancel", Some("cancel")),
    ("POST", "/v1/runs/{id}/cancel", Some("cancel")),
    ("GET", "/v1/runs/{id}/approvals", Some("read")),
    (
        "POST",
        "/v1/runs/{id}/approvals/{request_id}",
        Some("approve"),
    ),
    ("GET", "/v1/runs/{id}", Some("read")),
    ("GET", "/v1/runs/{id}/events", Some("read")),
    ("POST", "/v1/workflows", Some("submit")),
    ("GET", "/v1/queue", Some("read")),
    ("GET", "/v1/sessions", Some("read")),
    ("DELETE", "/v1/sessions/{name}", Some("admin")),
    ("GET", "/v1/quota", Some("read")),
    ("GET", "/v1/providers", Some("read")),
    ("GET", "/v1/skills", Some("read")),
    ("GET", "/v1/models", Some("read")),
    ("GET", "/v1/workers", Some("admin")),
    ("GET", "/v1/usage", Some("read")),
    ("GET", "/v1/webhooks/deliveries", Some("admin")),
    ("GET", "/v1/openapi.json", Some("read")),
    ("GET", "/v1/whoami", None),
    ("GET", "/v1/tokens", Some("admin")),
    ("POST", "/v1/tokens", Some("admin")),
    ("DELETE", "/v1/tokens/{name}", Some("admin")),
];

/// Whether holding `held` grants `needed` (admin grants all, read:all
/// grants read).
fn grants(held: &str, needed: Option<&str>) -> bool {
    match needed {
        None => true,
        Some(n) => held == n || held == "admin" || (held == "read:all" && n == "read"),
    }
}

/// Every (method, path) of the served document that needs a token.
fn document_routes(url: &str) -> Vec<(String, String)> {
    let doc = call(url, "GET", "/v1/openapi.json", TOKEN, "");
    assert_eq!(doc.status, 200, "{doc:?}");
    let doc = doc.json();
    let mut routes = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            // `/healthz` is open (its security is empty).
            let open = op["security"].as_array().is_some_and(|s| {
                s.iter()
                    .all(|r| r.as_object().is_some_and(|o| o.is_empty()))
            });
            if open {
                continue;
            }
            routes.push((method.to_ascii_uppercase(), path.clone()));
        }
    }
    routes
}

/// A concrete path for a template: unknown ids and names (the answer is
/// then 404 or a refused body, never a run streamed or a thing changed).
fn concrete(template: &str) -> String {
    template
        .replace("{id}", "no-such-run-1")
        .replace("{request_id}", "no-such-request")
        .replace("{name}", "no-such-name")
}

#[test]
fn each_scope_allows_exactly_its_routes() {
    let home = QueueHome::new("");
    let scopes = ["read", "read:all", "submit", "cancel", "approve", "admin"];
    let tokens: Vec<(&str, String)> = scopes
        .iter()
        .map(|s| {
            let name = format!("only-{}", s.replace(':', "-"));
            (*s, make_token(home.path(), None, &name, &[s], &[]))
        })
        .collect();
    let server: Serve = home.serve(false, &["--no-executor"]);
    let routes = document_routes(&server.url);
    assert!(routes.len() >= EXPECTED.len(), "{routes:?}");
    for (method, path) in &routes {
        let needed = EXPECTED
            .iter()
            .find(|(m, p, _)| m == method && p == path)
            .unwrap_or_else(|| {
                panic!("{method} {path} is in the document but has no scope in this test's table")
            })
            .2;
        let target = concrete(path);
        // The server's own token is an admin: every route is allowed.
        let mut askers: Vec<(&str, &str)> = vec![("admin", TOKEN)];
        askers.extend(tokens.iter().map(|(s, t)| (*s, t.as_str())));
        for (scope, token) in askers {
            let r = call(&server.url, method, &target, token, "{}");
            if grants(scope, needed) {
                assert!(
                    r.status != 401 && r.status != 403,
                    "{method} {path} with `{scope}` was refused: {r:?}"
                );
            } else {
                assert_eq!(r.status, 403, "{method} {path} with `{scope}`: {r:?}");
                let error = &r.json()["error"];
                assert_eq!(error["type"], "forbidden", "{r:?}");
                let message = error["message"].as_str().unwrap();
                assert!(
                    message.contains(&format!("`{}`", needed.unwrap())),
                    "{message}"
                );
                assert!(!message.contains(token), "{message}");
            }
        }
    }
    // Every route of the table is served (none dropped from the document).
    for (m, p, _) in EXPECTED {
        assert!(
            routes.iter().any(|(rm, rp)| rm == m && rp == p),
            "{m} {p} is not in the document"
        );
    }
    // An unknown path needs admin: a reader gets 403, an admin 404.
    let reader = &tokens[0].1;
    assert_eq!(call(&server.url, "GET", "/v1/nope", reader, "").status, 403);
    assert_eq!(call(&server.url, "GET", "/v1/nope", TOKEN, "").status, 404);
    // whoami names the token and its scopes.
    let me = call(&server.url, "GET", "/v1/whoami", reader, "").json();
    assert_eq!(me["name"], "only-read");
    assert_eq!(me["scopes"], serde_json::json!(["read"]));
    let me = call(&server.url, "GET", "/v1/whoami", TOKEN, "").json();
    assert_eq!(me["name"], "serve");
    assert_eq!(me["scopes"], serde_json::json!(["admin"]));
}

#[test]
fn admin_routes_make_list_and_revoke_tokens() {
    let home = QueueHome::new("");
    let server = home.serve(false, &["--no-executor"]);
    let made = call(
        &server.url,
        "POST",
        "/v1/tokens",
        TOKEN,
        r#"{"name": "bot", "scopes": ["submit", "read"], "team": "red", "expires": "30d"}"#,
    );
    assert_eq!(made.status, 201, "{made:?}");
    let made = made.json();
    let secret = made["token"].as_str().unwrap().to_owned();
    assert_eq!(made["scopes"], serde_json::json!(["read", "submit"]));
    assert_eq!(made["team"], "red");
    assert_eq!(made["state"], "active");
    let again = call(
        &server.url,
        "POST",
        "/v1/tokens",
        TOKEN,
        r#"{"name": "bot", "scopes": ["read"]}"#,
    );
    assert_eq!(again.status, 409, "{again:?}");
    let bad = call(
        &server.url,
        "POST",
        "/v1/tokens",
        TOKEN,
        r#"{"name": "x", "scopes": ["write"]}"#,
    );
    assert_eq!(bad.status, 422, "{bad:?}");
    assert_eq!(bad.json()["error"]["field"], "scopes");
    // The new token works, and a listing never shows a secret.
    let me = call(&server.url, "GET", "/v1/whoami", &secret, "").json();
    assert_eq!(me["name"], "bot");
    assert_eq!(me["team"], "red");
    let list = call(&server.url, "GET", "/v1/tokens", TOKEN, "");
    assert_eq!(list.status, 200);
    assert!(!list.body.contains(&secret) && !list.body.contains("hash"));
    assert_eq!(list.json()["tokens"][0]["name"], "bot");
    let cli_list = token_cmd(home.path(), None, &["list", "--json"]);
    assert!(cli_list.contains("\"bot\"") && !cli_list.contains(&secret));
    let gone = call(&server.url, "DELETE", "/v1/tokens/bot", TOKEN, "");
    assert_eq!(gone.status, 200, "{gone:?}");
    assert_eq!(gone.json()["state"], "revoked");
    let refused = call(&server.url, "GET", "/v1/whoami", &secret, "");
    assert_eq!(refused.status, 401, "{refused:?}");
    assert_eq!(
        call(&server.url, "DELETE", "/v1/tokens/bot", TOKEN, "").status,
        404
    );
}

/// Parsed, to keep `Value` in use for the helpers' callers.
pub fn runs_listed(r: &Response) -> Vec<String> {
    let v: Value = r.json();
    v["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["run_id"].as_str().unwrap().to_owned())
        .collect()
}
