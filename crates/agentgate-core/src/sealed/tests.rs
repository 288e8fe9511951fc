use serde_json::{Value, json};

use super::*;

fn ring(byte: u8) -> KeyRing {
    KeyRing::of(vec![SealKey::new([byte; 32])])
}

fn request() -> Map<String, Value> {
    json!({
        "prompt": "p",
        "env": {"EXTRA_API_KEY": "sk-live-0123456789", "DB": "postgres://u:pw@h/db"},
        "extra_args": ["--api-key", "flag-secret-0123", "--verbose"],
    })
    .as_object()
    .cloned()
    .unwrap()
}

#[test]
fn every_env_value_and_a_secret_flag_are_sealed_and_open_again() {
    let keys = ring(1);
    let mut sealed = request();
    seal_request(&mut sealed, &keys, "job_1").unwrap();
    let text = serde_json::to_string(&sealed).unwrap();
    for secret in [
        "sk-live-0123456789",
        "postgres://u:pw@h/db",
        "flag-secret-0123",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert_eq!(
        sealed["env"],
        json!({"EXTRA_API_KEY": "[sealed]", "DB": "[sealed]"})
    );
    assert_eq!(
        sealed["extra_args"],
        json!(["--api-key", "[redacted:--api-key]", "--verbose"])
    );
    assert_eq!(
        sealed_with(&sealed),
        Some(keys.sealing().unwrap().id()),
        "the key is named"
    );
    let mut opened = sealed.clone();
    open_request(&mut opened, &keys, "job_1").unwrap();
    assert_eq!(opened, request());
}

#[test]
fn nothing_to_seal_leaves_the_request_as_it_is_even_without_a_key() {
    let mut plain = json!({"prompt": "p", "extra_args": ["--verbose"]})
        .as_object()
        .cloned()
        .unwrap();
    let before = plain.clone();
    seal_request(&mut plain, &KeyRing::default(), "job_1").unwrap();
    assert_eq!(plain, before);
    open_request(&mut plain, &KeyRing::default(), "job_1").unwrap();
    assert_eq!(plain, before, "an unsealed request opens as it is");
    let mut secret = request();
    assert_eq!(
        seal_request(&mut secret, &KeyRing::default(), "job_1"),
        Err(SealError::NoKey)
    );
}

#[test]
fn another_key_is_missing_and_another_job_or_an_edit_is_corrupt() {
    let mut sealed = request();
    seal_request(&mut sealed, &ring(1), "job_1").unwrap();
    let missing = open_request(&mut sealed.clone(), &ring(2), "job_1").unwrap_err();
    assert!(
        matches!(&missing, SealError::MissingKey { key_id, .. } if key_id == ring(1).sealing().unwrap().id()),
        "{missing:?}"
    );
    assert!(missing.to_string().contains("AGENTGATE_QUEUE_KEY_FILE"));
    let moved = open_request(&mut sealed.clone(), &ring(1), "job_2").unwrap_err();
    assert!(matches!(moved, SealError::Corrupt(_)), "{moved:?}");
    let mut edited = sealed.clone();
    let data = edited["sealed"]["data"].as_str().unwrap().to_owned();
    let flipped = format!(
        "{}{}",
        if data.starts_with('0') { "1" } else { "0" },
        &data[1..]
    );
    edited["sealed"]["data"] = json!(flipped);
    assert!(matches!(
        open_request(&mut edited, &ring(1), "job_1"),
        Err(SealError::Corrupt(_))
    ));
    // The old key still opens once a new one seals.
    let rotated = KeyRing::of(vec![SealKey::new([9; 32]), SealKey::new([1; 32])]);
    let mut opened = sealed.clone();
    open_request(&mut opened, &rotated, "job_1").unwrap();
    assert_eq!(opened, request());
}

#[test]
fn each_agent_of_a_workflow_is_sealed_in_steps_groups_and_decisions() {
    let agent = Value::Object(request());
    let mut def = json!({
        "version": 1, "name": "w",
        "steps": [
            {"id": "a", "agent": agent},
            {"id": "g", "parallel": {"steps": [{"id": "b", "agent": agent}]}},
            {"id": "d", "decision": {"for": "a", "agent": agent, "choices": ["x"]}},
            {"id": "t", "tool": "lookup", "args": ["--env", "x"]},
        ]
    });
    let original = def.clone();
    seal_workflow(&mut def, &ring(3), "job_w").unwrap();
    let text = def.to_string();
    assert!(!text.contains("sk-live-0123456789"), "{text}");
    assert_eq!(text.matches("\"sealed\":{").count(), 3, "{text}");
    assert_eq!(
        def["steps"][3], original["steps"][3],
        "a tool step is untouched"
    );
    open_workflow(&mut def, &ring(3), "job_w").unwrap();
    assert_eq!(def, original);
}
