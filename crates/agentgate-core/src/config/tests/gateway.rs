use std::path::PathBuf;
use std::time::Duration;

use super::super::*;
use super::{invalid, parse};

#[test]
fn the_gateway_section_loads_with_its_limits_and_providers() {
    let c = parse(
        "version: 1\ngateway:\n  enabled: false\n  record_model_calls: true\n  ca_file: certs/ca.pem\n  response_timeout: 2m\n  quota_hold_above: 0.95\n  limits: {max_model_calls: 5, max_input_tokens: 1000, max_output_tokens: 200, max_model_time: 30s}\n  providers:\n    Claude: {enabled: true, upstream: \"https://proxy.internal/\", key_env: TEAM_KEY}\n    codex: {key_file: keys/openai}\n",
    )
    .unwrap();
    let g = &c.gateway;
    assert!(!g.enabled && g.record_model_calls);
    assert_eq!(g.ca_file, Some(PathBuf::from("/cfg/certs/ca.pem")));
    assert_eq!(g.response_timeout, Some(Duration::from_secs(120)));
    assert_eq!(g.quota_hold_above, Some(0.95));
    assert_eq!(
        g.limits,
        GatewayLimits {
            max_model_calls: Some(5),
            max_input_tokens: Some(1000),
            max_output_tokens: Some(200),
            max_model_time: Some(Duration::from_secs(30)),
        }
    );
    let claude = g.provider("claude").unwrap();
    assert_eq!(claude.upstream.as_deref(), Some("https://proxy.internal"));
    assert_eq!(claude.key_env.as_deref(), Some("TEAM_KEY"));
    assert_eq!(
        g.provider("codex").unwrap().key_file,
        Some(PathBuf::from("/cfg/keys/openai"))
    );
    assert!(g.enabled_for("claude"), "the provider's `enabled` wins");
    assert!(!g.enabled_for("codex"), "else the section's");
    assert!(!parse("version: 1\n").unwrap().gateway.enabled_for("claude"));
}

#[test]
fn gateway_mistakes_name_the_key_and_the_line() {
    let cases = [
        (
            "gateway:\n  quota_hold_above: 1.5\n",
            2,
            "quota_hold_above: 1.5",
        ),
        (
            "gateway:\n  limits: {max_model_calls: 0}\n",
            2,
            "max_model_calls: it must be at least 1",
        ),
        (
            "gateway:\n  providers:\n    nosuch: {}\n",
            3,
            "`nosuch` is not a built-in provider",
        ),
        (
            "gateway:\n  providers:\n    claude: {upstream: ftp://x}\n",
            3,
            "is not an http(s) URL",
        ),
        (
            "gateway:\n  providers:\n    claude: {key_env: A, key_file: b}\n",
            3,
            "not both",
        ),
        ("gateway:\n  response_timeout: 0s\n", 2, "must be above 0"),
        ("gateway:\n  enable: true\n", 2, "enable"),
    ];
    for (section, line, words) in cases {
        let (at, message) = invalid(&format!("version: 1\n{section}"));
        assert_eq!(at, Some(line + 1), "{section}: {message}");
        assert!(message.contains(words), "{section}: {message}");
    }
}
