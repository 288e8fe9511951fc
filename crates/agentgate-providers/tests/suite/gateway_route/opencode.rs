use agentgate_protocol::WireApi;
use serde_json::Value;

use super::*;
use agentgate_providers::opencode::OPENCODE;

const CORP: &str = r#"{
  // opencode's config may carry comments
  "model": "corp/coder",
  "provider": {"corp": {
    "npm": "@ai-sdk/openai-compatible",
    "options": {"baseURL": "https://llm.corp.example/v1/", "apiKey": "{env:CORP_KEY}"},
    "models": {"coder": {}}
  }}
}"#;

#[test]
fn the_builtin_anthropic_and_openai_providers_go_to_their_apis_with_their_variables() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(
        "opencode",
        &[("ANTHROPIC_API_KEY", REAL)],
        home.path(),
        Some("anthropic/claude-sonnet-4-5"),
    )
    .unwrap();
    assert_eq!(p.api, WireApi::AnthropicMessages);
    assert_eq!(p.upstream, "https://api.anthropic.com/v1");
    assert_eq!(api_key(&p), (REAL, "ANTHROPIC_API_KEY"));
    assert_eq!(
        p.pointing,
        Pointing::Opencode {
            provider: "anthropic".into()
        }
    );
    let p = plan(
        "opencode",
        &[("OPENAI_API_KEY", REAL)],
        home.path(),
        Some("openai/gpt-5"),
    )
    .unwrap();
    assert_eq!(p.api, WireApi::OpenaiResponses);
    assert_eq!(p.upstream, "https://api.openai.com/v1");
    assert_eq!(api_key(&p), (REAL, "OPENAI_API_KEY"));
}

#[test]
fn a_configured_provider_gives_its_base_url_and_its_env_key() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".config/opencode/opencode.json", CORP);
    // The model comes from the config when the run names none.
    let p = plan("opencode", &[("CORP_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(p.api, WireApi::OpenaiChat);
    assert_eq!(p.upstream, "https://llm.corp.example/v1");
    assert_eq!(api_key(&p), (REAL, "CORP_KEY"));
    assert_eq!(
        p.pointing,
        Pointing::Opencode {
            provider: "corp".into()
        }
    );

    // OPENCODE_CONFIG_CONTENT wins over the files, and a key given there
    // is the environment's (the pointing replaces it).
    let content = format!(
        "{{\"provider\": {{\"corp\": {{\"options\": {{\"baseURL\": \"https://other.example/v1\", \"apiKey\": \"{REAL}\"}}}}}}}}"
    );
    let p = plan(
        "opencode",
        &[("OPENCODE_CONFIG_CONTENT", &content)],
        home.path(),
        None,
    )
    .unwrap();
    assert_eq!(p.upstream, "https://other.example/v1");
    assert_eq!(api_key(&p), (REAL, "OPENCODE_CONFIG_CONTENT"));
}

#[test]
fn a_key_in_a_file_or_a_saved_login_passes_through() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".config/opencode/opencode.json",
        &format!(
            "{{\"provider\": {{\"anthropic\": {{\"options\": {{\"apiKey\": \"{REAL}\"}}}}}}}}"
        ),
    );
    let p = plan(
        "opencode",
        &[],
        home.path(),
        Some("anthropic/claude-sonnet-4-5"),
    )
    .unwrap();
    assert!(login(&p).contains("apiKey"));
    assert!(
        p.notes.iter().any(|n| n.contains("{env:VAR}")),
        "{:?}",
        p.notes
    );
    assert!(!format!("{p:?}").contains(REAL));

    let other = tempfile::tempdir().unwrap();
    write(
        other.path(),
        ".local/share/opencode/auth.json",
        "{\"anthropic\": {\"type\": \"oauth\", \"refresh\": \"r\", \"access\": \"a\"}}",
    );
    let p = plan(
        "opencode",
        &[("ANTHROPIC_API_KEY", REAL)],
        other.path(),
        Some("anthropic/claude-sonnet-4-5"),
    )
    .unwrap();
    assert_eq!(login(&p), "opencode's OAuth login for anthropic");
}

#[test]
fn no_model_an_unknown_sdk_and_no_key_are_not_supported() {
    let home = tempfile::tempdir().unwrap();
    let text = error_text(plan("opencode", &[], home.path(), None).unwrap_err());
    assert!(text.contains("provider/model"), "{text}");
    write(
        home.path(),
        ".config/opencode/opencode.json",
        "{\"provider\": {\"bedrock\": {\"npm\": \"@ai-sdk/amazon-bedrock\"}}}",
    );
    let text = error_text(plan("opencode", &[], home.path(), Some("bedrock/claude")).unwrap_err());
    assert!(text.contains("@ai-sdk/amazon-bedrock"), "{text}");
    let text = error_text(plan("opencode", &[], home.path(), Some("openai/gpt-5")).unwrap_err());
    assert!(text.contains("OPENAI_API_KEY"), "{text}");
}

fn config_content(pointed: &Pointed) -> Value {
    serde_json::from_str(pointed.var("OPENCODE_CONFIG_CONTENT").unwrap()).unwrap()
}

#[test]
fn the_command_points_the_provider_at_the_gateway_in_its_config_content() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(
        "opencode",
        &[("ANTHROPIC_API_KEY", REAL)],
        home.path(),
        Some("anthropic/claude-sonnet-4-5"),
    )
    .unwrap();
    let mut req = request(p, &["ANTHROPIC_API_KEY"]);
    req.model = Some("anthropic/claude-sonnet-4-5".into());
    // The run's own entries (the system instructions) stay.
    req.system = Some("be brief".into());
    let pointed = point(&OPENCODE, &req, &[("ANTHROPIC_API_KEY", REAL)]);
    let config = config_content(&pointed);
    assert_eq!(
        config["provider"]["anthropic"]["options"]["baseURL"],
        GATEWAY
    );
    assert_eq!(config["provider"]["anthropic"]["options"]["apiKey"], STUB);
    assert!(config["instructions"].is_array(), "{config}");
    assert_eq!(pointed.var("ANTHROPIC_API_KEY"), None);
    pointed.assert_no_real_key();

    let warm = point_warm(&OPENCODE, &req);
    assert!(
        warm.env
            .iter()
            .any(|(k, v)| k == "OPENCODE_CONFIG_CONTENT" && v.to_string_lossy().contains(GATEWAY))
    );
}

#[test]
fn a_key_given_in_the_requests_config_content_is_replaced_by_the_stub() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".config/opencode/opencode.json", CORP);
    let content = format!(
        "{{\"share\": \"disabled\", \"provider\": {{\"corp\": {{\"options\": {{\"apiKey\": \"{REAL}\"}}}}}}}}"
    );
    let p = plan(
        "opencode",
        &[("OPENCODE_CONFIG_CONTENT", &content)],
        home.path(),
        None,
    )
    .unwrap();
    let mut req = request(p, &[]);
    req.env.push(("OPENCODE_CONFIG_CONTENT".into(), content));
    let pointed = point(&OPENCODE, &req, &[]);
    let config = config_content(&pointed);
    assert_eq!(config["provider"]["corp"]["options"]["apiKey"], STUB);
    assert_eq!(config["provider"]["corp"]["options"]["baseURL"], GATEWAY);
    assert_eq!(
        config["share"], "disabled",
        "the request's other entries stay"
    );
    pointed.assert_no_real_key();
}

#[test]
fn a_passthrough_login_changes_only_the_base_url() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".local/share/opencode/auth.json",
        "{\"anthropic\": {\"type\": \"oauth\"}}",
    );
    let p = plan(
        "opencode",
        &[],
        home.path(),
        Some("anthropic/claude-sonnet-4-5"),
    )
    .unwrap();
    let pointed = point(&OPENCODE, &request(p, &[]), &[]);
    let options = &config_content(&pointed)["provider"]["anthropic"]["options"];
    assert_eq!(options["baseURL"], GATEWAY);
    assert!(options.get("apiKey").is_none(), "{options}");
}
