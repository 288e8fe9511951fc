use agentgate_protocol::WireApi;
use serde_json::Value;

use super::*;
use agentgate_providers::qwen::QWEN;

/// A system settings path that does not exist, so that the machine's own
/// `/etc/qwen-code/settings.json` is not read.
fn no_system(home: &Path) -> String {
    home.join("no-system-settings.json").display().to_string()
}

const ENTRY: &str = r#"{"$version": 4, "security": {"auth": {"selectedType": "openai"}},
  "modelProviders": {"openai": [
    {"id": "other", "baseUrl": "https://other.example/v1"},
    {"id": "corp-coder", "envKey": "CORP_KEY", "baseUrl": "https://llm.corp.example/v1/", "wireApi": "responses"}
  ]}}"#;

#[test]
fn openai_base_url_and_key_are_read_and_the_default_is_the_openai_api() {
    let home = tempfile::tempdir().unwrap();
    let sys = no_system(home.path());
    let sys = ("QWEN_CODE_SYSTEM_SETTINGS_PATH", sys.as_str());
    let p = plan("qwen", &[sys, ("OPENAI_API_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(p.api, WireApi::OpenaiChat);
    assert_eq!(p.upstream, "https://api.openai.com/v1");
    assert_eq!(api_key(&p), (REAL, "OPENAI_API_KEY"));
    assert!(
        p.notes.iter().any(|n| n.contains("--auth-type openai")),
        "{:?}",
        p.notes
    );

    let p = plan(
        "qwen",
        &[
            sys,
            ("OPENAI_API_KEY", REAL),
            (
                "OPENAI_BASE_URL",
                "https://dashscope.example/compatible-mode/v1/",
            ),
        ],
        home.path(),
        None,
    )
    .unwrap();
    assert_eq!(p.upstream, "https://dashscope.example/compatible-mode/v1");
    assert_eq!(
        p.pointing,
        Pointing::Qwen {
            key_var: "OPENAI_API_KEY".into(),
            provider_entry: None
        }
    );
}

#[test]
fn the_models_provider_entry_outranks_the_variables() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".qwen/settings.json", ENTRY);
    let sys = no_system(home.path());
    let p = plan(
        "qwen",
        &[
            ("QWEN_CODE_SYSTEM_SETTINGS_PATH", &sys),
            ("OPENAI_BASE_URL", "https://ignored.example/v1"),
            ("CORP_KEY", REAL),
        ],
        home.path(),
        Some("corp-coder"),
    )
    .unwrap();
    assert_eq!(p.upstream, "https://llm.corp.example/v1");
    assert_eq!(p.api, WireApi::OpenaiResponses);
    assert_eq!(api_key(&p), (REAL, "CORP_KEY"));
    let Pointing::Qwen {
        key_var,
        provider_entry: Some(entry),
    } = &p.pointing
    else {
        panic!("{:?}", p.pointing);
    };
    assert_eq!(key_var, "CORP_KEY");
    assert_eq!(entry["id"], "corp-coder");
}

#[test]
fn qwen_oauth_another_auth_type_and_no_key_are_not_supported_and_a_key_in_settings_passes_through()
{
    let home = tempfile::tempdir().unwrap();
    let sys = no_system(home.path());
    let sys = ("QWEN_CODE_SYSTEM_SETTINGS_PATH", sys.as_str());
    write(
        home.path(),
        ".qwen/settings.json",
        "{\"security\": {\"auth\": {\"selectedType\": \"qwen-oauth\"}}}",
    );
    let text =
        error_text(plan("qwen", &[sys, ("OPENAI_API_KEY", REAL)], home.path(), None).unwrap_err());
    assert!(
        text.contains("not supported") && text.contains("Qwen OAuth"),
        "{text}"
    );

    write(
        home.path(),
        ".qwen/settings.json",
        "{\"security\": {\"auth\": {\"selectedType\": \"anthropic\"}}}",
    );
    let text = error_text(plan("qwen", &[sys], home.path(), None).unwrap_err());
    assert!(text.contains("anthropic"), "{text}");

    write(home.path(), ".qwen/settings.json", "{}");
    let text = error_text(plan("qwen", &[sys], home.path(), None).unwrap_err());
    assert!(text.contains("OPENAI_API_KEY"), "{text}");

    write(
        home.path(),
        ".qwen/settings.json",
        &format!(
            "// comments are allowed\n{{\"security\": {{\"auth\": {{\"selectedType\": \"openai\", \"apiKey\": \"{REAL}\", \"baseUrl\": \"https://s.example/v1\"}}}}}}"
        ),
    );
    let p = plan("qwen", &[sys], home.path(), None).unwrap();
    assert_eq!(p.upstream, "https://s.example/v1");
    assert!(login(&p).contains("security.auth.apiKey"));
    assert!(!format!("{p:?}").contains(REAL));
}

#[test]
fn the_command_points_at_the_gateway_with_the_stub() {
    let home = tempfile::tempdir().unwrap();
    let sys = no_system(home.path());
    let p = plan(
        "qwen",
        &[
            ("QWEN_CODE_SYSTEM_SETTINGS_PATH", &sys),
            ("OPENAI_API_KEY", REAL),
        ],
        home.path(),
        None,
    )
    .unwrap();
    let req = request(p, &["OPENAI_API_KEY"]);
    let pointed = point(&QWEN, &req, &[("OPENAI_API_KEY", REAL)]);
    assert_eq!(pointed.var("OPENAI_BASE_URL"), Some(GATEWAY));
    assert_eq!(pointed.var("OPENAI_API_KEY"), Some(STUB));
    assert!(
        pointed.cmd.files.is_empty(),
        "no settings copy without an entry"
    );
    pointed.assert_no_real_key();
    let warm = point_warm(&QWEN, &req);
    assert!(
        warm.env
            .iter()
            .any(|(k, v)| k == "OPENAI_BASE_URL" && v == GATEWAY)
    );
}

#[test]
fn a_provider_entry_is_pointed_in_the_system_settings_copy() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".qwen/settings.json", ENTRY);
    let sys = no_system(home.path());
    let p = plan(
        "qwen",
        &[("QWEN_CODE_SYSTEM_SETTINGS_PATH", &sys), ("CORP_KEY", REAL)],
        home.path(),
        Some("corp-coder"),
    )
    .unwrap();
    let pointed = point(&QWEN, &request(p, &["CORP_KEY"]), &[]);
    assert_eq!(pointed.var("CORP_KEY"), Some(STUB));
    assert_eq!(pointed.var("OPENAI_BASE_URL"), Some(GATEWAY));
    let copy = pointed.var("QWEN_CODE_SYSTEM_SETTINGS_PATH").unwrap();
    assert_ne!(copy, sys);
    let settings: Value = serde_json::from_str(&std::fs::read_to_string(copy).unwrap()).unwrap();
    let entry = &settings["modelProviders"]["openai"][0];
    assert_eq!(entry["id"], "corp-coder");
    assert_eq!(entry["baseUrl"], GATEWAY);
    assert_eq!(entry["envKey"], "CORP_KEY");
    pointed.assert_no_real_key();
}
