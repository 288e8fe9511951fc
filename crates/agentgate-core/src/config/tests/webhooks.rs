use std::path::PathBuf;

use super::super::*;
use super::{invalid, parse};
use crate::RunRequest;

#[test]
fn the_webhooks_section_loads_as_the_issue_gives_it() {
    let c = parse(
        "version: 1\nwebhooks:\n  secret_file: whsec\n  allow_private: false\n  subscriptions:\n    - {url: \"https://hooks.example.com/agentgate\", events: [run.ended]}\n    - {url: \"http://10.0.0.5:8080/h\", events: [job.waiting, approval.requested, budget.warning, job.waiting]}\n",
    )
    .unwrap();
    let w = &c.webhooks;
    assert_eq!(
        w.secret,
        Some(WebhookSecretSource::File(PathBuf::from("/cfg/whsec")))
    );
    assert!(!w.allow_private);
    assert_eq!(w.subscriptions.len(), 2);
    assert_eq!(
        w.subscriptions[1].events,
        [
            WebhookEvent::JobWaiting,
            WebhookEvent::ApprovalRequested,
            WebhookEvent::BudgetWarning
        ],
        "a repeated event counts once"
    );
    let ended: Vec<&str> = w.urls_for(WebhookEvent::RunEnded).collect();
    assert_eq!(ended, ["https://hooks.example.com/agentgate"]);
    let env = parse("version: 1\nwebhooks:\n  secret_env: WHSEC\n  allow_private: true\n").unwrap();
    assert_eq!(
        env.webhooks.secret,
        Some(WebhookSecretSource::Env("WHSEC".to_owned()))
    );
    assert!(env.webhooks.allow_private);
    assert_eq!(
        parse("version: 1\n").unwrap().webhooks,
        WebhooksSpec::default()
    );
}

#[test]
fn webhooks_mistakes_name_the_key_and_the_line() {
    let cases = [
        (
            "webhooks:\n  secret_file: a\n  secret_env: B\n",
            3,
            "not both",
        ),
        (
            "webhooks:\n  secret_env: B\n  subscriptions:\n    - {url: \"ftp://x/\", events: [run.ended]}\n",
            4,
            "not an http:// or https:// URL",
        ),
        (
            "webhooks:\n  secret_env: B\n  subscriptions:\n    - {url: \"https://x/\", events: [run.done]}\n",
            4,
            "unknown event `run.done`",
        ),
        (
            "webhooks:\n  secret_env: B\n  subscriptions:\n    - {url: \"https://x/\", events: []}\n",
            4,
            "name at least one event",
        ),
        (
            "webhooks:\n  subscriptions:\n    - {url: \"https://x/\", events: [run.ended]}\n",
            3,
            "need a secret",
        ),
        ("webhooks:\n  secret: whsec_x\n", 2, "secret"),
    ];
    for (section, line, words) in cases {
        let (at, message) = invalid(&format!("version: 1\n{section}"));
        assert_eq!(at, Some(line + 1), "{section}: {message}");
        assert!(message.contains(words), "{section}: {message}");
    }
}

#[test]
fn a_requests_callback_url_is_checked() {
    let request = |url: &str| RunRequest {
        prompt: Some("hi".to_owned()),
        callback_url: Some(url.to_owned()),
        ..RunRequest::default()
    };
    assert!(request("https://hooks.example.com/run").to_flags().is_ok());
    let e = request("gopher://x/").to_flags().unwrap_err();
    assert_eq!(e.field, "callback_url");
}
