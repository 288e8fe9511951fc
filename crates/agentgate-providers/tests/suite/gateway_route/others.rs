use super::*;
use agentgate_providers::agy::AGY;
use agentgate_providers::cursor::CURSOR;

#[test]
fn cursor_antigravity_and_described_clis_are_not_supported_and_say_why() {
    let home = tempfile::tempdir().unwrap();
    for (provider, why) in [
        ("cursor", "base URL"),
        ("agy", "base URL"),
        ("mycli", "described in the config"),
    ] {
        let text = error_text(plan(provider, &[], home.path(), None).unwrap_err());
        assert!(
            text.contains("not supported") && text.contains(why),
            "{provider}: {text}"
        );
    }
}

#[test]
fn cursor_and_antigravity_refuse_a_request_with_a_gateway() {
    let home = tempfile::tempdir().unwrap();
    let p = plan("claude", &[("ANTHROPIC_API_KEY", REAL)], home.path(), None).unwrap();
    let req = request(p, &[]);
    for provider in [&CURSOR as &dyn Provider, &AGY] {
        let err = provider
            .command(&req, Path::new("/bin/cli"), &Scratch::temporary())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("gateway: not supported"),
            "{}: {err}",
            provider.name()
        );
    }
    // Without a gateway they still run.
    let plain = plain_request();
    for provider in [&CURSOR as &dyn Provider, &AGY] {
        assert!(
            provider
                .command(&plain, Path::new("/bin/cli"), &Scratch::temporary())
                .is_ok()
        );
    }
}
