use std::path::Path;

use super::*;
use crate::manifest::Manifest;

fn manifest(extra: &str) -> Manifest {
    Manifest::parse(
        &format!("name: lint-rust\nversion: '1'\nentry: run.sh\n{extra}"),
        Path::new("tool.yaml"),
        None,
    )
    .unwrap()
}

fn policy(text: &str) -> Policy {
    Policy::parse(&format!("version: 1\n{text}"), Path::new("policy.yaml")).unwrap()
}

/// The rule and value of a refusal that must happen.
fn refusal(p: &Policy, m: &Manifest) -> (&'static str, String, String) {
    match p.check_manifest(m) {
        Ok(l) => panic!("admitted with {l:?}"),
        Err(r) => (r.rule, r.value.clone(), r.to_string()),
    }
}

#[test]
fn the_default_policy_refuses_wildcard_egress_and_admits_the_rest() {
    let p = Policy::default();
    let wild = manifest("permissions:\n  network:\n    egress_allow: ['*']\n");
    let (rule, value, text) = refusal(&p, &wild);
    assert_eq!((rule, value.as_str()), ("refuse_wildcard_egress", "*"));
    assert!(text.contains("the default policy"), "{text}");
    let limits = p
        .check_manifest(&manifest(
            "permissions:\n  network:\n    egress_allow: ['a.example.com:443']\n",
        ))
        .unwrap();
    assert_eq!(
        limits,
        EffectiveLimits {
            cpu_seconds: None,
            memory_mb: None,
            max_output_mb: None,
            run_s: DEFAULT_RUN_S,
            heartbeat_s: DEFAULT_HEARTBEAT_S,
        }
    );
    // A file that turns the rule off admits it.
    assert!(
        policy("refuse_wildcard_egress: false\n")
            .check_manifest(&wild)
            .is_ok()
    );
}

#[test]
fn denied_names_are_refused_even_when_allowed() {
    let p = policy("allow_tools: ['*']\ndeny_tools: ['lint-*']\n");
    let (rule, value, text) = refusal(&p, &manifest(""));
    assert_eq!((rule, value.as_str()), ("deny_tools", "lint-rust"));
    assert!(
        text.contains("policy.yaml") && text.contains("`lint-rust` matches `lint-*`"),
        "{text}"
    );
}

#[test]
fn only_allowed_names_run_when_a_list_is_given() {
    let p = policy("allow_tools: [fmt, 'check-*']\n");
    let (rule, value, _) = refusal(&p, &manifest(""));
    assert_eq!((rule, value.as_str()), ("allow_tools", "lint-rust"));
    assert!(
        policy("allow_tools: ['lint-*']\n")
            .check_manifest(&manifest(""))
            .is_ok()
    );
}

#[test]
fn egress_entries_must_match_the_allowlist() {
    let p = policy("egress_allow: ['*.example.com:443']\n");
    let m = manifest(
        "permissions:\n  network:\n    egress_allow: ['api.example.com:443', 'evil.com:443']\n",
    );
    let (rule, value, _) = refusal(&p, &m);
    assert_eq!((rule, value.as_str()), ("egress_allow", "evil.com:443"));
    let ok = manifest("permissions:\n  network:\n    egress_allow: ['api.example.com:443']\n");
    assert!(p.check_manifest(&ok).is_ok());
}

#[test]
fn required_limits_must_be_in_the_manifest() {
    let p = policy("require_limits: true\n");
    let (rule, value, _) = refusal(&p, &manifest("resources: {cpu_seconds: 5}\n"));
    assert_eq!(
        (rule, value.as_str()),
        ("require_limits", "resources.memory_mb")
    );
    let (rule, value, _) = refusal(&p, &manifest("resources: {memory_mb: 5}\n"));
    assert_eq!(
        (rule, value.as_str()),
        ("require_limits", "resources.cpu_seconds")
    );
    assert!(
        p.check_manifest(&manifest("resources: {cpu_seconds: 5, memory_mb: 5}\n"))
            .is_ok()
    );
}

#[test]
fn each_cap_refuses_more_and_stands_in_for_nothing() {
    let p = policy("caps: {cpu_seconds: 60, memory_mb: 512, max_output_mb: 8, run_s: 600}\n");
    for (extra, rule, value) in [
        ("resources: {cpu_seconds: 61}\n", "caps.cpu_seconds", "61"),
        ("resources: {memory_mb: 513}\n", "caps.memory_mb", "513"),
        ("resources: {max_output_mb: 9}\n", "caps.max_output_mb", "9"),
        ("timeouts: {run_s: 601}\n", "caps.run_s", "601"),
    ] {
        let (got_rule, got_value, text) = refusal(&p, &manifest(extra));
        assert_eq!((got_rule, got_value.as_str()), (rule, value), "{extra}");
        assert!(text.contains("more than the cap"), "{text}");
    }
    // Asking nothing gets the cap; asking less keeps what was asked.
    assert_eq!(
        p.check_manifest(&manifest(
            "resources: {memory_mb: 100}\ntimeouts: {run_s: 30, heartbeat_s: 5}\n"
        ))
        .unwrap(),
        EffectiveLimits {
            cpu_seconds: Some(60),
            memory_mb: Some(100),
            max_output_mb: Some(8),
            run_s: 30,
            heartbeat_s: 5,
        }
    );
    assert_eq!(p.check_manifest(&manifest("")).unwrap().run_s, 600);
    // A run cap above the default deadline leaves the default.
    let loose = policy("caps: {run_s: 7200}\n");
    assert_eq!(
        loose.check_manifest(&manifest("")).unwrap().run_s,
        DEFAULT_RUN_S
    );
}

#[test]
fn writes_outside_the_workspace_are_refused_unless_allowed() {
    let m = manifest(
        "permissions:\n  filesystem:\n    write: ['${WORKSPACE}/out/**', '/var/cache/**']\n",
    );
    for p in [Policy::default(), policy("")] {
        let (rule, value, _) = refusal(&p, &m);
        assert_eq!(
            (rule, value.as_str()),
            ("allow_write_outside_workspace", "/var/cache/**")
        );
    }
    assert!(
        policy("allow_write_outside_workspace: true\n")
            .check_manifest(&m)
            .is_ok()
    );
    // Reading outside is not a write.
    let read = manifest("permissions:\n  filesystem:\n    read: ['/usr/share/**']\n");
    assert!(Policy::default().check_manifest(&read).is_ok());
}

#[test]
fn forbidden_variables_may_not_be_required() {
    let p = policy("forbid_env: ['*_SECRET*', 'AWS_*']\n");
    let (rule, value, text) = refusal(&p, &manifest("env:\n  require: [LANG, DB_SECRET_KEY]\n"));
    assert_eq!((rule, value.as_str()), ("forbid_env", "DB_SECRET_KEY"));
    assert!(
        text.contains("`DB_SECRET_KEY` matches `*_SECRET*`"),
        "{text}"
    );
    assert!(
        p.check_manifest(&manifest("env:\n  require: [LANG]\n"))
            .is_ok()
    );
}

#[test]
fn bad_policy_files_are_refused_with_their_line() {
    for (text, line, says) in [
        ("version: 2\n", 1, "version 2 is not supported"),
        ("version: 1\ndeny: [x]\n", 2, "deny"),
        ("version: 1\ncaps:\n  memory: 5\n", 3, "memory"),
        ("version: 1\ncaps:\n  run_s: 0\n", 3, "caps.run_s: 0"),
        (
            "version: 1\nallow_tools: ['']\n",
            2,
            "allow_tools: an empty pattern",
        ),
        ("version: 1\nrequire_limits: yes\n", 2, ""),
    ] {
        let e = Policy::parse(text, Path::new("policy.yaml")).unwrap_err();
        assert_eq!(e.line, Some(line), "{text}: {e}");
        assert!(e.to_string().contains(says), "{text}: {e}");
    }
}
