use agentgate_protocol::WireApi;

use super::*;
use agentgate_providers::claude::CLAUDE;

#[test]
fn an_api_key_goes_to_the_anthropic_api_unless_a_base_url_is_set() {
    let home = tempfile::tempdir().unwrap();
    let p = plan("claude", &[("ANTHROPIC_API_KEY", REAL)], home.path(), None).unwrap();
    assert_eq!(p.api, WireApi::AnthropicMessages);
    assert_eq!(p.upstream, "https://api.anthropic.com");
    assert_eq!(api_key(&p), (REAL, "ANTHROPIC_API_KEY"));
    assert_eq!(
        p.pointing,
        Pointing::Claude {
            key_var: "ANTHROPIC_API_KEY".into()
        }
    );

    let p = plan(
        "claude",
        &[
            (
                "ANTHROPIC_BASE_URL",
                "https://proxy.corp.example/anthropic/",
            ),
            ("ANTHROPIC_AUTH_TOKEN", REAL),
        ],
        home.path(),
        None,
    )
    .unwrap();
    assert_eq!(p.upstream, "https://proxy.corp.example/anthropic");
    assert_eq!(api_key(&p), (REAL, "ANTHROPIC_AUTH_TOKEN"));
    assert_eq!(
        p.pointing,
        Pointing::Claude {
            key_var: "ANTHROPIC_AUTH_TOKEN".into()
        }
    );
}

#[test]
fn without_a_key_the_subscription_login_passes_through() {
    let home = tempfile::tempdir().unwrap();
    write(
        home.path(),
        ".claude/.credentials.json",
        "{\"claudeAiOauth\":{}}",
    );
    let p = plan("claude", &[], home.path(), None).unwrap();
    assert_eq!(login(&p), "Claude subscription login");
    assert_eq!(p.upstream, "https://api.anthropic.com");

    // CLAUDE_CONFIG_DIR moves the login.
    let moved = tempfile::tempdir().unwrap();
    write(moved.path(), ".credentials.json", "{}");
    let elsewhere = tempfile::tempdir().unwrap();
    let dir = moved.path().to_str().unwrap();
    let p = plan(
        "claude",
        &[("CLAUDE_CONFIG_DIR", dir)],
        elsewhere.path(),
        None,
    )
    .unwrap();
    assert_eq!(login(&p), "Claude subscription login");
}

#[test]
fn no_credential_another_cloud_or_settings_that_override_the_pointing_are_not_supported() {
    let home = tempfile::tempdir().unwrap();
    let text = error_text(plan("claude", &[], home.path(), None).unwrap_err());
    assert!(
        text.contains("not supported") && text.contains("ANTHROPIC_API_KEY"),
        "{text}"
    );

    let text = error_text(
        plan(
            "claude",
            &[
                ("ANTHROPIC_API_KEY", REAL),
                ("CLAUDE_CODE_USE_BEDROCK", "1"),
            ],
            home.path(),
            None,
        )
        .unwrap_err(),
    );
    assert!(text.contains("Bedrock"), "{text}");

    write(
        home.path(),
        ".claude/settings.json",
        &format!("{{\"env\": {{\"ANTHROPIC_API_KEY\": \"{REAL}\"}}}}"),
    );
    let text = error_text(plan("claude", &[], home.path(), None).unwrap_err());
    assert!(
        text.contains("settings.json") && text.contains("ANTHROPIC_API_KEY"),
        "{text}"
    );

    write(
        home.path(),
        ".claude/settings.json",
        "{\"apiKeyHelper\": \"/bin/key\"}",
    );
    let text = error_text(plan("claude", &[], home.path(), None).unwrap_err());
    assert!(text.contains("apiKeyHelper"), "{text}");
}

#[test]
fn the_command_points_at_the_gateway_with_the_stub_and_drops_the_real_key() {
    let home = tempfile::tempdir().unwrap();
    let p = plan("claude", &[("ANTHROPIC_API_KEY", REAL)], home.path(), None).unwrap();
    // The real key in agentgate's environment and in the request's env,
    // under both of the names Claude Code reads.
    let req = request(p, &["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
    let inherited = [
        ("ANTHROPIC_API_KEY", REAL),
        ("ANTHROPIC_BASE_URL", "https://api.anthropic.com"),
        ("PATH", "/usr/bin"),
    ];
    let pointed = point(&CLAUDE, &req, &inherited);
    assert_eq!(pointed.var("ANTHROPIC_BASE_URL"), Some(GATEWAY));
    assert_eq!(pointed.var("ANTHROPIC_API_KEY"), Some(STUB));
    assert_eq!(pointed.var("ANTHROPIC_AUTH_TOKEN"), None);
    assert_eq!(pointed.var("PATH"), Some("/usr/bin"));
    assert!(pointed.removes("ANTHROPIC_API_KEY") && pointed.removes("ANTHROPIC_AUTH_TOKEN"));
    pointed.assert_no_real_key();

    // The long-lived mode is pointed the same way.
    let warm = point_warm(&CLAUDE, &req);
    assert!(
        warm.env
            .iter()
            .any(|(k, v)| k == "ANTHROPIC_BASE_URL" && v == GATEWAY)
    );
}

#[test]
fn the_stub_goes_where_the_real_key_was() {
    let home = tempfile::tempdir().unwrap();
    let p = plan(
        "claude",
        &[("ANTHROPIC_AUTH_TOKEN", REAL)],
        home.path(),
        None,
    )
    .unwrap();
    let pointed = point(&CLAUDE, &request(p, &["ANTHROPIC_AUTH_TOKEN"]), &[]);
    assert_eq!(pointed.var("ANTHROPIC_AUTH_TOKEN"), Some(STUB));
    assert_eq!(pointed.var("ANTHROPIC_API_KEY"), None);
    pointed.assert_no_real_key();
}

#[test]
fn a_passthrough_login_changes_only_the_base_url() {
    let home = tempfile::tempdir().unwrap();
    write(home.path(), ".claude/.credentials.json", "{}");
    let p = plan("claude", &[], home.path(), None).unwrap();
    let pointed = point(&CLAUDE, &request(p, &[]), &[("HOME", "/home/u")]);
    assert_eq!(pointed.var("ANTHROPIC_BASE_URL"), Some(GATEWAY));
    assert_eq!(pointed.var("ANTHROPIC_API_KEY"), None);
    assert_eq!(pointed.var("HOME"), Some("/home/u"));
    assert!(!pointed.child.values().any(|v| v == STUB));
}

#[test]
fn without_a_gateway_nothing_changes() {
    let req = plain_request();
    let cmd = CLAUDE
        .command(&req, Path::new("/bin/claude"), &Scratch::temporary())
        .unwrap();
    assert!(cmd.env_remove.is_empty());
    assert!(!cmd.env.iter().any(|(k, _)| k == "ANTHROPIC_BASE_URL"));
}
