//! Models over the HTTP API of a real `agentgate serve`: `GET /v1/models`
//! answers what `agentgate models --json` prints: a bundled table for
//! Gemini (`static`), a CLI's cached catalog from the data folder without
//! starting the CLI, and 400 for an unknown provider.

use serde_json::{Value, json};

use super::serve::{Home, assert_unauthorized};
use super::serve_api::start;
use super::serve_support::get;

const TOKEN: &str = "api-test-token-0123456789abcdef012";

#[test]
fn models_are_listed_from_tables_and_the_cache() {
    let home = Home::new("0");
    // cursor-agent is not installed here: only its cached catalog can
    // answer, and it is fresh (listed now, by no binary).
    let catalogs = home.path().join("data/catalogs");
    std::fs::create_dir_all(&catalogs).unwrap();
    let now = jiff::Timestamp::now().to_string();
    std::fs::write(
        catalogs.join("cursor.json"),
        json!({"provider": "cursor", "source": "cli", "fetched_at": now, "stale": false,
               "models": [{"id": "gpt-5.5-high", "default": true}, {"id": "sonnet-4.5"}]})
        .to_string(),
    )
    .unwrap();
    let serve = start(&home, &[]);
    let url = &serve.url;

    let r = get(url, "/v1/models?provider=gemini,cursor", Some(TOKEN));
    assert_eq!(r.status, 200, "{r:?}");
    let body: Value = r.json();
    let gemini = &body[0];
    assert_eq!(gemini["provider"], "gemini");
    assert_eq!(gemini["source"], "static");
    let ids: Vec<&str> = gemini["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&"gemini-2.5-flash"), "{ids:?}");
    let cursor = &body[1];
    assert_eq!(cursor["provider"], "cursor");
    assert_eq!(cursor["cached"], true, "{cursor:#}");
    assert_eq!(cursor["fetched_at"], now.as_str());
    assert_eq!(cursor["models"][0]["id"], "gpt-5.5-high");
    assert_eq!(cursor["models"][0]["default"], true);

    let bad = get(url, "/v1/models?provider=nope", Some(TOKEN));
    assert_eq!(bad.status, 400, "{bad:?}");
    assert_unauthorized(&get(url, "/v1/models", None));
}
