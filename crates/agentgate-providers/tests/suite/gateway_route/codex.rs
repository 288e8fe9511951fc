use agentgate_protocol::WireApi;

use super::*;
use agentgate_providers::codex::CODEX;

const CORP: &str = "model = \"gpt-5.5\"\nmodel_provider = \"corp\"\n\n[model_providers.corp]\nname = \"corp\"\nbase_url = \"https://llm.corp.example/openai/v1/\"\nenv_key = \"CORP_KEY\"\nwire_api = \"chat\"\n";

#[test]
fn the_builtin_provider_goes_to_the_openai_api_with_codex_api_key_or_openai_api_key() {
    let home = tempfile::tempdir().unwrap();
    let p = plan("codex", &[("CODEX_API_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(p.api, WireApi::OpenaiResponses);
    assert_eq!(p.upstream, "https://api.openai.com/v1");
    assert_eq!(api_key(&p), (REAL, "CODEX_API_KEY"));
    assert_eq!(
        p.pointing,
        Pointing::Codex {
            provider: "openai".into(),
            key_var: "CODEX_API_KEY".into()
        }
    );
    let p = plan("codex", &[("OPENAI_API_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(api_key(&p), (REAL, "OPENAI_API_KEY"));
    assert!(
        p.notes.iter().any(|n| n.contains("CODEX_API_KEY")),
        "{:?}",
        p.notes
    );

    // `openai_base_url` moves it (in CODEX_HOME when set).
    let codex_home = tempfile::tempdir().unwrap();
    write(
        codex_home.path(),
        "config.toml",
        "openai_base_url = \"https://proxy.corp.example/v1/\"\n",
    );
    let dir = codex_home.path().to_str().unwrap();
    let p = plan(
        "codex",
        &[("CODEX_HOME", dir), ("CODEX_API_KEY", REAL)],
        home.path(),
        None,
    )
    .unwrap();
    assert_eq!(p.upstream, "https://proxy.corp.example/v1");
}

#[test]
fn a_chatgpt_login_passes_through_to_the_chatgpt_backend() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".codex/auth.json",
        "{\"auth_mode\": \"chatgpt\", \"OPENAI_API_KEY\": null, \"tokens\": {\"access_token\": \"t\"}}",
    );
    let p = plan("codex", &[], home.path(), None).unwrap();
    assert_eq!(p.upstream, "https://chatgpt.com/backend-api/codex");
    assert_eq!(login(&p), "ChatGPT login (Codex's auth.json)");
    assert_eq!(p.api, WireApi::OpenaiResponses);
    // OPENAI_API_KEY, which Codex does not read, does not take the login's
    // place (it would bill another account).
    let p = plan("codex", &[("OPENAI_API_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(login(&p), "ChatGPT login (Codex's auth.json)");
    // CODEX_API_KEY, which it reads first, does.
    let p = plan("codex", &[("CODEX_API_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(api_key(&p), (REAL, "CODEX_API_KEY"));
    assert_eq!(p.upstream, "https://api.openai.com/v1");

    // An API key saved by `codex login --with-api-key` passes through too,
    // and the plan says it stays readable.
    write(
        home.path(),
        ".codex/auth.json",
        &format!("{{\"OPENAI_API_KEY\": \"{REAL}\"}}"),
    );
    let p = plan("codex", &[], home.path(), None).unwrap();
    assert_eq!(p.upstream, "https://api.openai.com/v1");
    assert!(login(&p).contains("API-key login"));
    assert!(
        p.notes.iter().any(|n| n.contains("auth.json")),
        "{:?}",
        p.notes
    );
    assert!(!format!("{p:?}").contains(REAL));
}

#[test]
fn a_custom_provider_gives_its_base_url_wire_api_and_key_variable() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".codex/config.toml", CORP);
    let p = plan("codex", &[("CORP_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(p.upstream, "https://llm.corp.example/openai/v1");
    assert_eq!(p.api, WireApi::OpenaiChat);
    assert_eq!(api_key(&p), (REAL, "CORP_KEY"));
    assert_eq!(
        p.pointing,
        Pointing::Codex {
            provider: "corp".into(),
            key_var: "CORP_KEY".into()
        }
    );

    // A profile's model_provider wins over the top level's.
    write(
        home.path(),
        ".codex/config.toml",
        &format!(
            "profile = \"local\"\n{CORP}\n[model_providers.lab]\nbase_url = \"http://10.0.0.5:8000/v1\"\n\n[profiles.local]\nmodel_provider = \"lab\"\n"
        ),
    );
    let p = plan("codex", &[], home.path(), None).unwrap();
    assert_eq!(p.upstream, "http://10.0.0.5:8000/v1");
    assert_eq!(p.api, WireApi::OpenaiResponses);
    assert_eq!(login(&p), "none: model provider lab names no key");
}

#[test]
fn a_missing_key_an_unknown_provider_no_login_and_a_broken_config_are_errors() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".codex/config.toml", CORP);
    let text = error_text(plan("codex", &[], home.path(), None).unwrap_err());
    assert!(text.contains("CORP_KEY"), "{text}");

    write(
        home.path(),
        ".codex/config.toml",
        "model_provider = \"ollama\"\n",
    );
    let text = error_text(plan("codex", &[], home.path(), None).unwrap_err());
    assert!(text.contains("ollama"), "{text}");

    let empty = tempfile::tempdir().unwrap();
    let text = error_text(plan("codex", &[], empty.path(), None).unwrap_err());
    assert!(
        text.contains("not supported") && text.contains("CODEX_API_KEY"),
        "{text}"
    );

    write(
        home.path(),
        ".codex/config.toml",
        &format!("[model_providers.corp]\nexperimental_bearer_token = \"{REAL}\" oops\n"),
    );
    let text = error_text(plan("codex", &[], home.path(), None).unwrap_err());
    assert!(text.contains("config.toml"), "{text}");
}

#[test]
fn the_builtin_provider_is_pointed_with_openai_base_url_and_the_stub_in_codex_api_key() {
    let home = tempfile::tempdir().unwrap();
    let p = plan("codex", &[("OPENAI_API_KEY", REAL)], home.path(), None).unwrap();
    let req = request(p, &["OPENAI_API_KEY", "CODEX_API_KEY"]);
    let pointed = point(&CODEX, &req, &[("OPENAI_API_KEY", REAL)]);
    let args = pointed.args().join(" ");
    assert!(
        args.contains(&format!("-c openai_base_url=\"{GATEWAY}\"")),
        "{args}"
    );
    assert_eq!(pointed.var("CODEX_API_KEY"), Some(STUB));
    assert_eq!(pointed.var("OPENAI_API_KEY"), None);
    pointed.assert_no_real_key();
    // Before the prompt's `-`, which must stay last.
    assert_eq!(pointed.args().last().map(String::as_str), Some("-"));

    let warm = point_warm(&CODEX, &req);
    assert!(
        warm.display_args()
            .contains(&format!("openai_base_url=\"{GATEWAY}\""))
    );
}

#[test]
fn a_custom_provider_is_pointed_with_its_base_url_and_the_stub_in_its_env_key() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".codex/config.toml", CORP);
    let p = plan("codex", &[("CORP_KEY", REAL)], home.path(), None).unwrap();
    let pointed = point(&CODEX, &request(p, &["CORP_KEY"]), &[("CORP_KEY", REAL)]);
    let args = pointed.args().join(" ");
    assert!(
        args.contains(&format!("-c model_providers.corp.base_url=\"{GATEWAY}\"")),
        "{args}"
    );
    assert!(!args.contains("env_key"), "{args}");
    assert_eq!(pointed.var("CORP_KEY"), Some(STUB));
    assert!(pointed.removes("CORP_KEY"));
    pointed.assert_no_real_key();
}

#[test]
fn a_provider_without_env_key_gets_one_for_the_stub_when_the_config_names_the_key() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".codex/config.toml",
        "model_provider = \"lab\"\n[model_providers.lab]\nbase_url = \"http://10.0.0.5:8000/v1\"\n",
    );
    let overrides = UpstreamOverrides {
        key_env: Some("LAB_KEY".into()),
        ..UpstreamOverrides::default()
    };
    let p = plan_upstream(
        "codex",
        &env(&[("LAB_KEY", REAL)]),
        Some(home.path()),
        None,
        &overrides,
    )
    .unwrap();
    let pointed = point(&CODEX, &request(p, &["LAB_KEY"]), &[]);
    let args = pointed.args().join(" ");
    assert!(
        args.contains("-c model_providers.lab.env_key=\"CODEX_GATEWAY_KEY\""),
        "{args}"
    );
    assert_eq!(pointed.var("CODEX_GATEWAY_KEY"), Some(STUB));
    assert_eq!(
        pointed.var("LAB_KEY"),
        None,
        "the config's key variable is removed"
    );
    pointed.assert_no_real_key();
}

#[test]
fn a_chatgpt_login_changes_only_the_base_url() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".codex/auth.json",
        "{\"tokens\": {\"access_token\": \"t\"}}",
    );
    let p = plan("codex", &[], home.path(), None).unwrap();
    let pointed = point(&CODEX, &request(p, &[]), &[]);
    assert!(
        pointed
            .args()
            .contains(&format!("openai_base_url=\"{GATEWAY}\""))
    );
    assert_eq!(pointed.var("CODEX_API_KEY"), None);
    assert!(!pointed.child.values().any(|v| v == STUB));
}
