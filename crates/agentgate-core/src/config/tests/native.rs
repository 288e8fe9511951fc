//! Provider defaults, agents, chains and retry_on in the native format.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_protocol::{ErrorInfo, ErrorKind, ErrorSource};

use super::super::*;
use super::{invalid, parse};
use crate::settings::{PermissionMode, WorkspaceMode};

const FULL: &str = r#"version: 1
providers:
  claude:
    binary: bin/claude
    extra_args: [--verbose, 3]
    env: {CLAUDE_X: "1", N: 2}
    models:
      sonnet: claude-sonnet-4-5
      opus: claude-opus-4-1
    default_model: sonnet
    max_provider_retries: 2
    timeout: 10m
    idle_timeout: 90
  mycli:
    command: [mycli, "{prompt}"]
    models: {fast: my-fast-1}
    timeout: 1h30m
agents:
  reviewer:
    provider: Claude
    model: opus
    model_fast: haiku
    mode: classify
    permission_mode: plan
    system: be brief
    agent_file: agents/AGENTS.md
    persona: Reviewer
    cwd: ../repo
    timeout: 90s
    idle_timeout: 1500ms
    env: {A: b}
    extra_args: [--x]
    binary: /opt/claude
    retry_on: [quota, rate_limited, {pattern: "(?i)try again"}]
    max_provider_retries: 1
    output_schema: schema.json
  fixer:
    provider: mycli
    model_thinking: deep-1
    mode: edit
    allow: [src, /abs/docs]
  writer:
    provider: codex
    mode: edit
    workspace: worktree
    tools: [lookup, word_count]
chains:
  main:
    agents: [reviewer, fixer, writer]
    retry_on: [quota, overloaded]
    on_dirty: stash
    handoff: summary
  solo:
    agents: [writer]
"#;

#[test]
fn every_key_loads() {
    let cfg = parse(FULL).unwrap();
    assert_eq!(cfg.format, ConfigFormat::Native);
    assert!(cfg.warnings.is_empty(), "{:?}", cfg.warnings);
    let c = cfg.provider_defaults("CLAUDE").unwrap();
    assert!(c.builtin);
    assert_eq!(
        c.settings.binary.as_deref(),
        Some(Path::new("/cfg/bin/claude"))
    );
    assert_eq!(c.settings.extra_args, ["--verbose", "3"]);
    assert_eq!(
        c.settings.env,
        [("CLAUDE_X".into(), "1".into()), ("N".into(), "2".into())]
    );
    assert_eq!(c.alias("sonnet"), Some("claude-sonnet-4-5"));
    assert_eq!(c.default_model.as_deref(), Some("sonnet"));
    assert_eq!(c.settings.max_provider_retries, Some(2));
    assert_eq!(c.settings.timeout, Some(Duration::from_secs(600)));
    assert_eq!(c.settings.idle_timeout, Some(Duration::from_secs(90)));
    assert_eq!(c.origins.line(), Some(3));
    assert_eq!(c.origins.key("default_model"), Some(10));
    assert_eq!(c.origins.key("models.opus"), Some(9));
    assert_eq!(c.origins.key("binary"), Some(4));
    // A described CLI carries defaults too, and is still a custom provider.
    let m = cfg.provider_defaults("mycli").unwrap();
    assert!(!m.builtin);
    assert_eq!(m.settings.timeout, Some(Duration::from_secs(5400)));
    assert_eq!(m.alias("fast"), Some("my-fast-1"));
    assert!(cfg.provider("mycli").is_some());
    assert!(cfg.provider_defaults("codex").is_none());

    let r = cfg.agent("reviewer").unwrap();
    assert_eq!(r.provider, "claude");
    assert_eq!(r.model.as_deref(), Some("opus"));
    assert_eq!(r.model_for_tier(true), Some("haiku"));
    assert_eq!(r.mode, Some(AgentMode::Classify));
    assert_eq!(r.settings.permission_mode, Some(PermissionMode::Plan));
    assert_eq!(r.settings.system.as_deref(), Some("be brief"));
    assert_eq!(
        r.agent_file.as_deref(),
        Some(Path::new("/cfg/agents/AGENTS.md"))
    );
    assert_eq!(r.persona.as_deref(), Some("Reviewer"));
    assert_eq!(r.settings.cwd.as_deref(), Some(Path::new("/cfg/../repo")));
    assert_eq!(r.settings.timeout, Some(Duration::from_secs(90)));
    assert_eq!(r.settings.idle_timeout, Some(Duration::from_millis(1500)));
    assert_eq!(r.settings.env, [("A".into(), "b".into())]);
    assert_eq!(r.settings.extra_args, ["--x"]);
    assert_eq!(r.settings.binary.as_deref(), Some(Path::new("/opt/claude")));
    let retry = r.settings.retry_on.as_ref().unwrap();
    assert_eq!(retry.kinds, [ErrorKind::Quota, ErrorKind::RateLimit]);
    assert_eq!(
        retry.describe(),
        ["quota", "rate_limit", "pattern: \"(?i)try again\""]
    );
    assert_eq!(r.settings.max_provider_retries, Some(1));
    assert_eq!(
        r.settings.output_schema.as_deref(),
        Some(Path::new("/cfg/schema.json"))
    );
    assert_eq!(r.origins.key("retry_on"), Some(34));

    let f = cfg.agent("fixer").unwrap();
    assert_eq!(f.provider, "mycli");
    // The default tier is thinking.
    assert_eq!(f.model.as_deref(), Some("deep-1"));
    assert_eq!(
        f.mode,
        Some(AgentMode::Edit {
            allow: vec![PathBuf::from("src"), PathBuf::from("/abs/docs")]
        })
    );
    // Edit without allow: the whole working directory.
    assert_eq!(
        cfg.agent("writer").unwrap().mode,
        Some(AgentMode::Edit {
            allow: vec![PathBuf::from(".")]
        })
    );
    let w = cfg.agent("writer").unwrap();
    assert_eq!(w.settings.workspace, Some(WorkspaceMode::Worktree));
    assert_eq!(w.origins.key("workspace"), Some(45));
    assert_eq!(r.settings.workspace, None);
    assert_eq!(w.tools, ["lookup", "word_count"]);
    assert_eq!(w.origins.key("tools"), Some(46));
    assert!(r.tools.is_empty());

    let main = cfg.chain("main").unwrap();
    assert_eq!(main.agents, ["reviewer", "fixer", "writer"]);
    assert_eq!(main.on_dirty, OnDirty::Stash);
    assert_eq!(main.handoff, Handoff::Summary);
    // The agent's own retry_on wins for its failures.
    assert_eq!(
        main.retry_on_for(r).unwrap().kinds,
        [ErrorKind::Quota, ErrorKind::RateLimit]
    );
    assert_eq!(
        main.retry_on_for(f).unwrap().kinds,
        [ErrorKind::Quota, ErrorKind::Overloaded]
    );
    let solo = cfg.chain("solo").unwrap();
    assert_eq!(solo.on_dirty, OnDirty::Stop);
    assert_eq!(solo.handoff, Handoff::None);
    assert!(solo.retry_on.is_none());
    assert_eq!(solo.origins.key("on_dirty"), None);
}

#[test]
fn errors_name_the_key_and_the_line() {
    for (yaml, want_line, want) in [
        (
            "providers:\n  claude:\n    defualt_model: x\n",
            4,
            "unknown field `defualt_model`",
        ),
        (
            "providers:\n  claude:\n    command: [claude]\n",
            3,
            "built-in adapter",
        ),
        (
            "providers:\n  claude:\n    output: json\n",
            4,
            "`output` describes a CLI run by `command:`",
        ),
        (
            "providers:\n  mine:\n    models: {a: b}\n",
            3,
            "needs `command:`",
        ),
        (
            "providers:\n  claude:\n    models:\n      sonnet: \"\"\n",
            5,
            "alias `sonnet` stands for an empty model id",
        ),
        (
            "providers:\n  claude:\n    timeout: 5 minutes\n",
            4,
            "unknown unit",
        ),
        ("providers:\n  claude:\n    timeout: -3\n", 4, "negative"),
        (
            "agents:\n  a:\n    model: x\n",
            4,
            "missing field `provider`",
        ),
        (
            "agents:\n  a:\n    provider: nope\n",
            4,
            "agent `a`: unknown provider `nope`",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    modle: x\n",
            5,
            "unknown field `modle`",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    mode: write\n",
            5,
            "unknown variant `write`",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    allow: [src]\n",
            5,
            "only",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    permission_mode: all\n",
            5,
            "unknown permission mode `all`",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    retry_on: [quota, auth]\n",
            5,
            "`auth` errors are not recoverable",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    retry_on:\n      - quota\n      - quotaa\n",
            7,
            "`retry_on: quotaa` is not an error type",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    retry_on: [{pattern: \"(\"}]\n",
            5,
            "not a regular expression",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    retry_on: [{patern: x}]\n",
            5,
            "unknown field `patern`",
        ),
        (
            "agents:\n  a:\n    provider: claude\nchains:\n  c:\n    agents: [a, b]\n",
            7,
            "chain `c`: unknown agent `b`",
        ),
        (
            "agents:\n  a:\n    provider: claude\nchains:\n  c:\n    agents: []\n",
            7,
            "`agents` is empty",
        ),
        (
            "agents:\n  a:\n    provider: claude\nchains:\n  c:\n    agents: [a]\n    on_dirty: ignore\n",
            8,
            "unknown variant `ignore`",
        ),
        (
            "agents:\n  a:\n    provider: claude\nchains:\n  c:\n    agents: [a]\n    retry_on: [invalid_input]\n",
            8,
            "not recoverable",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    workspace: clone\n",
            5,
            "unknown workspace `clone` (expected shared or worktree)",
        ),
        (
            "agents:\n  \"a b\":\n    provider: claude\n",
            3,
            "not a agent name",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    tools: [ok, \"no good\"]\n",
            5,
            "`no good` is not a tool name",
        ),
        (
            "agents:\n  a:\n    provider: claude\n    tools: [x, x]\n",
            5,
            "the tool `x` is listed twice",
        ),
    ] {
        let text = format!("version: 1\n{yaml}");
        let (line, e) = invalid(&text);
        assert_eq!(line, Some(want_line), "{yaml}: {e}");
        assert!(e.contains(want), "{yaml}: {e}");
        assert!(e.contains("/cfg/agentgate.yaml, line"), "{e}");
    }
}

fn error(kind: ErrorKind, message: &str) -> ErrorInfo {
    ErrorInfo::new(kind, ErrorSource::Structured, message)
}

#[test]
fn retry_on_admits_listed_recoverable_errors() {
    let cfg = parse(
        "version: 1\nagents:\n  a:\n    provider: claude\n    retry_on: [allowance_exceeded, Rate-Limited, {pattern: \"(?i)busy\"}]\n",
    )
    .unwrap();
    let r = cfg.agent("a").unwrap().settings.retry_on.as_ref().unwrap();
    assert_eq!(r.kinds, [ErrorKind::Quota, ErrorKind::RateLimit]);
    assert!(r.admits(&error(ErrorKind::Quota, "limit")));
    assert!(r.admits(&error(ErrorKind::RateLimit, "slow down")));
    assert!(!r.admits(&error(ErrorKind::Network, "unreachable")));
    // A pattern admits any recoverable kind whose message matches.
    assert!(r.admits(&error(ErrorKind::Network, "Server BUSY")));
    // Never a non-recoverable error, even if its message matches.
    assert!(!r.admits(&error(ErrorKind::Auth, "busy")));
    // Nor one whose provider said it is not recoverable.
    let mut quota = error(ErrorKind::Quota, "limit");
    quota.recoverable = false;
    assert!(!r.admits(&quota));
    // No retry_on: every recoverable error.
    assert!(retry_admits(None, &error(ErrorKind::Network, "x")));
    assert!(!retry_admits(None, &error(ErrorKind::Unknown, "x")));
    assert!(retry_admits(Some(r), &error(ErrorKind::Quota, "x")));
    // An empty list admits nothing.
    assert!(!retry_admits(
        Some(&RetryOn::default()),
        &error(ErrorKind::Quota, "x")
    ));
    assert_eq!(kind_named("insufficient_quota"), Some(ErrorKind::Quota));
    assert_eq!(kind_named("nonesuch"), None);
}

#[test]
fn models_resolve_through_flag_agent_alias_and_default() {
    let cfg = parse(FULL).unwrap();
    let alias = cfg.resolve_model("claude", Some("sonnet"), Some("opus"));
    assert_eq!(
        alias,
        ModelChoice {
            model: Some("claude-sonnet-4-5".into()),
            source: ModelSource::Alias,
            resolution: Some("claude model 'sonnet' -> 'claude-sonnet-4-5' (alias)".into()),
        }
    );
    let flag = cfg.resolve_model("claude", Some("claude-3-haiku"), Some("opus"));
    assert_eq!(flag.model.as_deref(), Some("claude-3-haiku"));
    assert_eq!(flag.source, ModelSource::Flag);
    assert_eq!(flag.resolution, None);
    let agent = cfg.resolve_model("claude", None, Some("opus"));
    assert_eq!(agent.model.as_deref(), Some("claude-opus-4-1"));
    assert_eq!(agent.source, ModelSource::Alias);
    let agent = cfg.resolve_model("claude", None, Some("my-model"));
    assert_eq!(agent.model.as_deref(), Some("my-model"));
    assert_eq!(agent.source, ModelSource::Agent);
    let default = cfg.resolve_model("claude", None, None);
    assert_eq!(default.model.as_deref(), Some("claude-sonnet-4-5"));
    assert_eq!(default.source, ModelSource::ProviderDefault);
    assert_eq!(
        default.resolution.as_deref(),
        Some("claude model (none requested) -> 'claude-sonnet-4-5' (default_model)")
    );
    let none = cfg.resolve_model("codex", None, None);
    assert_eq!(none.model, None);
    assert_eq!(none.source, ModelSource::CliDefault);
    assert_eq!(none.resolution, None);
    // Aliases are per provider.
    assert_eq!(
        cfg.resolve_model("codex", Some("sonnet"), None).source,
        ModelSource::Flag
    );
    assert_eq!(
        cfg.default_model("claude").as_deref(),
        Some("claude-sonnet-4-5")
    );
    assert_eq!(cfg.default_model("mycli"), None);
    assert_eq!(Config::default().default_model("claude"), None);
}

#[test]
fn redact_lists_values_and_refuses_short_ones() {
    let cfg =
        parse("version: 1\nredact: [\"db-pass-123456\", \"x\\\"quoted\\\"-value\"]\n").unwrap();
    assert_eq!(cfg.redact, ["db-pass-123456", "x\"quoted\"-value"]);
    assert!(parse("version: 1\n").unwrap().redact.is_empty());
    let (line, message) = invalid("version: 1\nredact:\n  - long-enough-value\n  - short\n");
    assert_eq!(line, Some(4), "{message}");
    assert!(message.contains("shorter than 8 bytes"), "{message}");
    let (line, message) = invalid("version: 1\nredact: secret-value-1\n");
    assert_eq!(line, Some(2), "{message}");
}

#[test]
fn timeout_warnings_and_extension_load_for_providers_and_agents() {
    let cfg = parse(
        "version: 1\nproviders:\n  claude:\n    timeout: 10m\n    timeout_warn: 80%\n    \
         extend_on_activity: 5m\n    max_timeout: 30m\nagents:\n  slow:\n    provider: claude\n    \
         timeout_warn: \"2m, 30s\"\n",
    )
    .unwrap();
    let c = cfg.provider_defaults("claude").unwrap();
    assert_eq!(
        c.settings.timeout_warn.as_deref(),
        Some(&[agentgate_supervise::WarnPoint::Permille(800)][..])
    );
    assert_eq!(
        c.settings.extend_on_activity,
        Some(Duration::from_secs(300))
    );
    assert_eq!(c.settings.max_timeout, Some(Duration::from_secs(1800)));
    let a = cfg.agent("slow").unwrap();
    assert_eq!(
        a.settings.timeout_warn.as_deref(),
        Some(
            &[
                agentgate_supervise::WarnPoint::Remaining(Duration::from_secs(120)),
                agentgate_supervise::WarnPoint::Remaining(Duration::from_secs(30)),
            ][..]
        )
    );
    // The agent's list wins over the provider's; the rest comes from it.
    let combined = a.settings.clone().combine(&c.settings);
    assert_eq!(combined.timeout_warn.map(|w| w.len()), Some(2));
    assert_eq!(combined.max_timeout, Some(Duration::from_secs(1800)));
    let (line, message) =
        invalid("version: 1\nagents:\n  a:\n    provider: claude\n    timeout_warn: 120%\n");
    assert_eq!(line, Some(5));
    assert!(message.contains("timeout_warn"), "{message}");
}

#[test]
fn provider_knobs_load_for_providers_and_agents() {
    let cfg = parse(
        "version: 1\nproviders:\n  claude:\n    env_remove: [CLAUDE_CONFIG_DIR]\n    \
         reasoning_effort: High\n    max_turns: 4\nagents:\n  r:\n    provider: claude\n    \
         env_remove: [CODEX_HOME]\n    thinking_budget: 5000\n    unsupported_effort: drop\n    \
         extra_args_mode: replace\n",
    )
    .unwrap();
    let c = cfg.provider_defaults("claude").unwrap();
    assert_eq!(c.settings.env_remove, ["CLAUDE_CONFIG_DIR"]);
    assert_eq!(c.settings.reasoning_effort.as_deref(), Some("high"));
    assert_eq!(c.settings.max_turns, Some(4));
    let a = cfg.agent("r").unwrap();
    assert_eq!(a.settings.thinking_budget, Some(5000));
    assert_eq!(
        a.settings.unsupported_effort,
        Some(crate::settings::UnsupportedEffort::Drop)
    );
    assert_eq!(
        a.settings.extra_args_mode,
        Some(crate::settings::ExtraArgsMode::Replace)
    );
    let combined = a.settings.clone().combine(&c.settings);
    assert_eq!(combined.env_remove, ["CLAUDE_CONFIG_DIR", "CODEX_HOME"]);
    for (bad, wanted) in [
        ("reasoning_effort: ultra", "not a reasoning effort"),
        ("max_turns: 0", "at least 1"),
        ("env_remove: [\"A=B\"]", "not an environment variable name"),
        ("extra_args_mode: swap", "expected append or replace"),
        ("unsupported_effort: maybe", "expected clamp or drop"),
    ] {
        let (line, message) = invalid(&format!(
            "version: 1\nagents:\n  r:\n    provider: claude\n    {bad}\n"
        ));
        assert_eq!(line, Some(5), "{message}");
        assert!(message.contains(wanted), "{bad}: {message}");
    }
}
