//! A provider described only by data: the `Description` below is written in
//! this file, with no code of its own (it speaks Claude Code's stream-json,
//! so it borrows that decoder), and it gets health (its login facts and
//! version probe), planning (its argv table, in the dry-run report and in
//! the run) and classification (its error table) from the same readers as
//! the built-in providers. Its CLI is a shell script that fails the way the
//! table describes.
#![expect(
    clippy::unwrap_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentgate_core::PermissionMode;
use agentgate_core::health;
use agentgate_core::{NullSink, RunOptions};
use agentgate_core::{Plan, RunFlags, Step};
use agentgate_protocol::ErrorKind;
use agentgate_providers::argv::{Modes, Part, Parts, PromptInput, Words};
use agentgate_providers::claude::ClaudeDecoder;
use agentgate_providers::decode::ProviderError;
use agentgate_providers::{ClassifyInput, NoticePattern, ProviderTable, Rule, classify_explained};
use agentgate_providers::{CliRequest, Description, Features, Provider, Verification};
use agentgate_providers::{LoginFacts, LoginProbe, LoginState};

/// The CLI's own words for a spent budget, which no common row knows.
static ERRORS: ProviderTable = ProviderTable {
    name: "acme",
    rules: &[Rule::text(
        "acme.budget",
        ErrorKind::Quota,
        r"daily budget (is )?spent",
    )],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[NoticePattern::Text(
        r"^acme: retrying \((?P<attempt>\d+)/(?P<max>\d+)\)",
    )],
    noise: &[],
};

/// `acme`'s argv table.
static ARGV: &[Part] = &[
    Part::Args(Words::Static(&["chat", "--format", "stream-json"])),
    Part::Mode(Modes {
        default: Some(Parts::Static(&[])),
        plan: Some(Parts::Static(&[Part::Args(Words::Static(&[
            "--read-only",
        ]))])),
        accept_edits: None,
        bypass: Some(Parts::Static(&[Part::Args(Words::Static(&[
            "--trust-all",
        ]))])),
    }),
    Part::Optional(Words::Static(&["--model", "{model}"])),
    Part::EachDir(Words::Static(&["--with-dir={dir}"])),
    Part::Optional(Words::Static(&["--continue", "{session}"])),
    Part::Extra,
];

fn describe(binary: &'static str) -> Description {
    Description {
        name: "acme",
        binary,
        verification: Verification::Config,
        features: Features {
            streaming: true,
            resume: true,
            ..Features::default()
        },
        exposes_reasoning: false,
        prompt: PromptInput::Stdin,
        argv: ARGV,
        decoder: || Box::new(ClaudeDecoder::new()),
        post_run: None,
        thread_history: None,
        errors: &ERRORS,
        final_record: Some("its closing `result` record"),
        warm: None,
        skills: None,
        catalog: None,
        permissions: agentgate_providers::permissions::PermissionsWay::None,
        sandbox: agentgate_providers::SandboxFacts {
            env_allow: &["ACME_*"],
            state: &[agentgate_providers::StatePath::Var {
                var: "ACME_HOME",
                default: ".acme",
            }],
        },
        login: LoginFacts {
            probes: &[
                LoginProbe::Credentials {
                    dir_var: Some("ACME_HOME"),
                    dir: ".acme",
                    file: "token.json",
                },
                LoginProbe::ApiKey("ACME_API_KEY"),
            ],
            otherwise: LoginState::NoneFound,
        },
    }
}

/// A CLI that prints its version, and otherwise fails as a Claude-shaped
/// stream whose result says the daily budget is spent.
fn script(dir: &Path) -> PathBuf {
    let path = dir.join("acme");
    std::fs::write(
        &path,
        r#"#!/bin/sh
if [ "$1" = "--version" ]; then echo "acme 4.2.0"; exit 0; fi
cat > /dev/null
echo "args: $*" >&2
echo '{"type":"system","subtype":"init","session_id":"acme-s1","model":"acme-large"}'
echo '{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"acme-s1","result":"Your daily budget is spent; it renews at midnight."}'
exit 1
"#,
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn health_reads_its_login_facts_and_probes_its_version() {
    let dir = tempfile::tempdir().unwrap();
    let bin: &'static str = Box::leak(script(dir.path()).display().to_string().into_boxed_str());
    let acme = describe(bin);
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".acme")).unwrap();
    let vars: HashMap<&str, &str> = HashMap::from([("ACME_API_KEY", "sk-secret")]);
    let env = |k: &str| vars.get(k).map(|v| (*v).to_owned());
    let h = health::check(&acme, Some(&home), &env, Duration::from_secs(10));
    assert!(h.installed && h.usable, "{h:?}");
    assert_eq!(h.version.as_deref(), Some("4.2.0"));
    assert!(h.sessions);
    assert_eq!(h.login.state, LoginState::ApiKeyEnv);
    assert_eq!(h.login.evidence, ["ACME_API_KEY is set"]);
    assert!(!format!("{h:?}").contains("sk-secret"));
    // Its credentials file, where its facts say.
    std::fs::write(home.join(".acme/token.json"), "{}").unwrap();
    let h = health::check(&acme, Some(&home), &|_| None, Duration::from_secs(10));
    assert_eq!(h.login.state, LoginState::CredentialsFile, "{:?}", h.login);
    let none = health::check(
        &acme,
        Some(&dir.path().join("nobody")),
        &|_| None,
        Duration::from_secs(10),
    );
    assert_eq!(none.login.state, LoginState::NoneFound);
}

#[test]
fn planning_reads_its_argv_table() {
    let dir = tempfile::tempdir().unwrap();
    let bin: &'static str = Box::leak(script(dir.path()).display().to_string().into_boxed_str());
    let acme = describe(bin);
    let request = CliRequest {
        prompt: "hello".into(),
        model: Some("acme-large".into()),
        permission_mode: PermissionMode::Bypass,
        add_dirs: vec![PathBuf::from("/data")],
        resume: Some("acme-s0".into()),
        extra_args: vec!["--quiet".into()],
        cwd: dir.path().to_path_buf(),
        ..CliRequest::default()
    };
    let step = Step::new(Arc::new(acme), request.clone());
    let plan = Plan::single(step);
    let report = agentgate_core::dry_run_report(Ok(&plan), &RunFlags::default(), None);
    assert!(report["error"].is_null(), "{report:#}");
    assert_eq!(report["provider"], "acme");
    assert_eq!(
        report["argv"],
        serde_json::json!([
            bin,
            "chat",
            "--format",
            "stream-json",
            "--trust-all",
            "--model",
            "acme-large",
            "--with-dir=/data",
            "--continue",
            "acme-s0",
            "--quiet"
        ])
    );
    assert_eq!(report["prompt_on_stdin"], true);
    // A mode its table has no arguments for is refused, with the reason.
    let edits = CliRequest {
        permission_mode: PermissionMode::AcceptEdits,
        ..request
    };
    let err = acme
        .command(&edits, Path::new(bin), &dir.path().into())
        .unwrap_err();
    assert!(
        err.to_string().contains("--permission-mode acceptEdits"),
        "{err}"
    );
}

#[test]
fn classification_reads_its_error_table_in_a_real_run() {
    let dir = tempfile::tempdir().unwrap();
    let bin: &'static str = Box::leak(script(dir.path()).display().to_string().into_boxed_str());
    let acme = describe(bin);
    // The table alone.
    let tz = jiff::tz::TimeZone::UTC;
    let errors = [ProviderError {
        message: "Your daily budget is spent; it renews at midnight.".into(),
        terminal: true,
        ..ProviderError::default()
    }];
    let input = ClassifyInput {
        errors: &errors,
        exit_code: Some(1),
        ..ClassifyInput::new(acme.errors(), jiff::Timestamp::now(), &tz)
    };
    let got = classify_explained(&input).unwrap();
    assert_eq!((got.rule, got.info.kind), ("acme.budget", ErrorKind::Quota));
    assert!(
        agentgate_providers::is_retry_notice(acme.errors(), "acme: retrying (2/5)")
            .is_some_and(|n| n.attempt == Some(2) && n.max == Some(5))
    );
    // A run of the script: the run's classifier reads the same table.
    let request = CliRequest {
        prompt: "hello".into(),
        cwd: dir.path().to_path_buf(),
        ..CliRequest::default()
    };
    let plan = Plan::single(Step::new(Arc::new(acme), request));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = rt.block_on(async {
        let (_tx, cancel) = tokio::sync::mpsc::channel(1);
        agentgate_core::run(&plan, &RunOptions::default(), None, &mut NullSink, cancel).await
    });
    let env = &outcome.envelope;
    assert_eq!(env.provider.as_deref(), Some("acme"));
    assert_eq!(env.error_type, Some(ErrorKind::Quota), "{env:#?}");
    assert_eq!(env.session_id.as_deref(), Some("acme-s1"));
    assert_eq!(outcome.exit_code, 75, "quota is recoverable");
    assert!(
        env.stderr_tail
            .as_deref()
            .is_some_and(|t| t.contains("args: chat --format stream-json"))
    );
}
