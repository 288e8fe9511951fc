use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use agentgate_protocol::{Envelope, ErrorKind, schemas};
use serde_json::{Value, json};

use super::samples;

const BLESS_HINT: &str = "The files in schemas/ are generated from the Rust types. If the type \
     change is intended, regenerate them with\n\n    AGENTGATE_BLESS=1 cargo test -p \
     agentgate-protocol\n\nthen review and commit the diff.";

fn schema_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schemas")
}

fn blessing() -> bool {
    std::env::var("AGENTGATE_BLESS").is_ok_and(|value| value == "1")
}

fn schema(name: &str) -> Option<Value> {
    schemas()
        .into_iter()
        .find(|(file, _)| *file == name)
        .map(|(_, schema)| schema)
}

/// Fails when a checked-in schema differs from the types; with
/// `AGENTGATE_BLESS=1` rewrites the files instead.
#[test]
fn checked_in_schemas_match_the_types() {
    let dir = schema_dir();
    if blessing() {
        fs::create_dir_all(&dir).unwrap();
    }
    let mut drifted = Vec::new();
    for (name, schema) in schemas() {
        let path = dir.join(name);
        if blessing() {
            let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
            fs::write(&path, text).unwrap();
            continue;
        }
        // Compared as JSON values, not text: key order may differ with
        // serde_json's `preserve_order` feature.
        let on_disk = fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok());
        if on_disk.as_ref() != Some(&schema) {
            drifted.push(path.display().to_string());
        }
    }
    assert!(
        drifted.is_empty(),
        "JSON Schemas out of date or missing:\n  {}\n\n{BLESS_HINT}",
        drifted.join("\n  ")
    );
}

#[test]
fn schema_dir_holds_no_stale_files() {
    if blessing() {
        return;
    }
    let expected: BTreeSet<String> = schemas()
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .collect();
    let found: BTreeSet<String> = fs::read_dir(schema_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        found, expected,
        "unexpected files in schemas/; {BLESS_HINT}"
    );
}

/// What is wrong with `instance` according to the schema `schema_name`; an
/// `Err` when the schema itself cannot be used.
pub(super) fn violations(schema_name: &str, instance: &Value) -> Result<Vec<String>, String> {
    let schema = schema(schema_name).ok_or_else(|| format!("no schema named {schema_name}"))?;
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .map_err(|error| format!("{schema_name} is not a usable schema: {error}"))?;
    Ok(validator
        .iter_errors(instance)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect())
}

#[track_caller]
pub(super) fn assert_valid(schema_name: &str, instance: &Value) {
    // A schema that cannot be used shows up as one more violation.
    let errors = violations(schema_name, instance).unwrap_or_else(|error| vec![error]);
    assert!(
        errors.is_empty(),
        "{instance}\ndoes not match {schema_name}:\n{}",
        errors.join("\n")
    );
}

#[track_caller]
fn assert_invalid(schema_name: &str, instance: &Value) {
    let result = violations(schema_name, instance);
    assert!(
        matches!(&result, Ok(errors) if !errors.is_empty()),
        "{instance} should not match {schema_name}: {result:?}"
    );
}

#[test]
fn every_sample_event_matches_the_event_schema() {
    for event in samples::events() {
        assert_valid("event.schema.json", &serde_json::to_value(&event).unwrap());
    }
}

#[test]
fn envelopes_match_the_envelope_schema() {
    for envelope in [
        samples::success_envelope(),
        samples::failure_envelope(),
        Envelope::new("r"),
    ] {
        assert_valid(
            "envelope.schema.json",
            &serde_json::to_value(&envelope).unwrap(),
        );
    }
}

#[test]
fn errors_and_usage_match_their_schemas() {
    assert_valid(
        "error.schema.json",
        &serde_json::to_value(samples::quota_error()).unwrap(),
    );
    assert_valid(
        "usage.schema.json",
        &serde_json::to_value(samples::usage()).unwrap(),
    );
}

#[test]
fn schemas_reject_what_agentgate_never_writes() {
    let text_delta = json!({
        "v": 1, "ts": "2026-05-01T12:00:00Z", "run_id": "r", "seq": 0,
        "type": "text_delta", "text": "a",
    });
    assert_valid("event.schema.json", &text_delta);

    let mut no_text = text_delta.clone();
    no_text.as_object_mut().unwrap().remove("text");
    assert_invalid("event.schema.json", &no_text);

    let mut bad_ts = text_delta.clone();
    bad_ts["ts"] = json!("yesterday");
    assert_invalid("event.schema.json", &bad_ts);

    let mut future_type = text_delta.clone();
    future_type["type"] = json!("hologram");
    assert_invalid("event.schema.json", &future_type);

    let mut v2 = text_delta;
    v2["v"] = json!(2);
    assert_invalid("event.schema.json", &v2);

    let mut envelope = serde_json::to_value(samples::success_envelope()).unwrap();
    envelope.as_object_mut().unwrap().remove("session_id");
    assert_invalid("envelope.schema.json", &envelope);

    let mut error = serde_json::to_value(samples::quota_error()).unwrap();
    error["kind"] = json!("quota_exceeded");
    assert_invalid("error.schema.json", &error);
}

#[test]
fn error_schema_lists_exactly_the_taxonomy() {
    let schema = schema("error.schema.json").unwrap();
    let kinds = &schema["$defs"]["ErrorKind"]["oneOf"];
    let listed: BTreeSet<String> = kinds
        .as_array()
        .unwrap()
        .iter()
        .map(|variant| variant["const"].as_str().unwrap().to_owned())
        .collect();
    let expected: BTreeSet<String> = ErrorKind::ALL
        .iter()
        .map(|k| k.as_str().to_owned())
        .collect();
    assert_eq!(listed, expected);
}
