//! The checked-in `docs/openapi.json` is the generated document.
//! `AGENTGATE_BLESS=1 cargo test -p agentgate-server --test all -- suite::openapi`
//! rewrites it after an intended change of the API.

use std::path::PathBuf;

fn checked_in() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json")
}

#[test]
fn the_checked_in_document_is_the_generated_one() {
    let generated = agentgate_server::openapi_json();
    let path = checked_in();
    if std::env::var("AGENTGATE_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "{} is not the document the code generates. If the API change is intended, \
         regenerate it:\n\n    AGENTGATE_BLESS=1 cargo test -p agentgate-server --test all -- suite::openapi\n",
        path.display()
    );
}

#[test]
fn the_document_is_openapi_3_1_with_bearer_auth_and_every_route() {
    let doc: serde_json::Value = serde_json::from_str(&agentgate_server::openapi_json()).unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(
        doc["components"]["securitySchemes"]["bearer"]["scheme"],
        "bearer"
    );
    assert_eq!(doc["security"][0]["bearer"], serde_json::json!([]));
    let paths = doc["paths"].as_object().unwrap();
    for path in [
        "/healthz",
        "/v1/health",
        "/v1/runs",
        "/v1/runs/{id}",
        "/v1/runs/{id}/events",
        "/v1/queue",
        "/v1/sessions",
        "/v1/sessions/{name}",
        "/v1/quota",
        "/v1/providers",
        "/v1/openapi.json",
    ] {
        assert!(paths.contains_key(path), "{path} is missing");
    }
    // /healthz is open: its operation overrides the document's security.
    assert_eq!(
        doc["paths"]["/healthz"]["get"]["security"],
        serde_json::json!([{}])
    );
    // The protocol's schemas, their references resolvable in the document.
    let envelope = &doc["components"]["schemas"]["RunView"]["properties"]["envelope"];
    assert_eq!(
        envelope["oneOf"][1]["$ref"], "#/components/schemas/Envelope",
        "{envelope}"
    );
    let text = doc.to_string();
    for (at, _) in text.match_indices("\"$ref\":\"") {
        let target = text[at + 8..].split('"').next().unwrap();
        let pointer = target.strip_prefix('#').unwrap();
        assert!(
            doc.pointer(pointer).is_some(),
            "a dangling reference: {target}"
        );
    }
    for schema in [
        "ErrorBody",
        "RunView",
        "RunPage",
        "StreamEnd",
        "QueueView",
        "HealthReport",
        "Envelope",
        "Event",
    ] {
        assert!(
            doc["components"]["schemas"].get(schema).is_some(),
            "{schema} is missing"
        );
    }
}
