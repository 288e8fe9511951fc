//! The formats users migrate from, told apart by content, and the example
//! files of `examples/`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_protocol::{ErrorInfo, ErrorKind, ErrorSource};

use super::super::*;
use super::{invalid, parse, parse_at};
use agentgate_providers::argv::PromptInput;
use agentgate_providers::custom::OutputFormat;
use agentgate_providers::{ArgTemplate, Placeholder};

#[test]
fn providers_yaml_loads_in_both_shapes() {
    let wrapped = "providers:\n  claude:\n    default_model: sonnet\n    models:\n      sonnet: claude-sonnet-4-5\n  Codex:\n    default_model: gpt-5\n";
    let top = "claude:\n  default_model: sonnet\n  models:\n    sonnet: claude-sonnet-4-5\ncodex:\n  default_model: gpt-5\n";
    for text in [wrapped, top] {
        let cfg = parse(text).unwrap();
        assert_eq!(cfg.format, ConfigFormat::ProvidersYaml);
        assert_eq!(cfg.defaults.len(), 2);
        let c = cfg.provider_defaults("claude").unwrap();
        assert_eq!(c.models, [("sonnet".into(), "claude-sonnet-4-5".into())]);
        assert!(cfg.agents.is_empty() && cfg.chains.is_empty());
        assert_eq!(
            cfg.resolve_model("claude", Some("sonnet"), None)
                .resolution
                .as_deref(),
            Some("claude model 'sonnet' -> 'claude-sonnet-4-5' (alias)")
        );
        assert_eq!(cfg.default_model("codex").as_deref(), Some("gpt-5"));
    }
    // Lines point into the file.
    let cfg = parse(wrapped).unwrap();
    let c = cfg.provider_defaults("claude").unwrap();
    assert_eq!(c.origins.line(), Some(2));
    assert_eq!(c.origins.key("models.sonnet"), Some(5));
    // A provider agentgate does not know is kept, with a warning.
    let cfg = parse("openrouter:\n  default_model: x\n").unwrap();
    assert_eq!(cfg.defaults[0].provider, "openrouter");
    assert!(!cfg.defaults[0].builtin);
    assert!(
        cfg.warnings[0].contains("not a built-in provider"),
        "{:?}",
        cfg.warnings
    );
}

#[test]
fn providers_yaml_is_strict() {
    let (line, e) = invalid("providers:\n  claude:\n    default_modle: x\n");
    assert_eq!(line, Some(3), "{e}");
    assert!(e.contains("unknown field `default_modle`"), "{e}");
    assert!(e.contains("providers.yaml"), "{e}");
    let (line, e) = invalid("providers:\n  claude: {}\nextra: 1\n");
    assert_eq!(line, Some(3), "{e}");
    assert!(e.contains("unknown field `extra`"), "{e}");
    let (line, e) = invalid("claude:\n  command: [claude]\n");
    assert_eq!(line, Some(2), "{e}");
    assert!(e.contains("native config"), "{e}");
}

const CLI_AGENTS: &str = r#"version: 1
agents:
  - name: main
    provider: claude
    mode: edit
    command: [claude, -p, "{{prompt}}", --model, "{{model}}"]
    model_thinking: claude-opus-4-1
    model_fast: claude-sonnet-4-5
    permissions_file: perms.json
    working_dir: work
    timeout_s: 1200
    env: {A: "1"}
    retry_on: [allowance_exceeded, rate_limited, "Server Busy"]
  - name: other
    provider: codex
    command: [/opt/bin/codex]
  - name: local
    provider: ollama
    mode: classify
    command: [ollama, run, --model, "{{ model }}", "--json={\"a\": 1}", "{{prompt}}"]
    model_thinking: qwen3
"#;

#[test]
fn cli_agents_yaml_loads() {
    let cfg = parse_at(CLI_AGENTS, "/cfg/cli_agents.yaml").unwrap();
    assert_eq!(cfg.format, ConfigFormat::CliAgents);
    assert_eq!(cfg.agents.len(), 3);
    let main = cfg.agent("main").unwrap();
    assert_eq!(main.provider, "claude");
    // The default tier is thinking.
    assert_eq!(main.model.as_deref(), Some("claude-opus-4-1"));
    assert_eq!(main.model_for_tier(true), Some("claude-sonnet-4-5"));
    assert_eq!(
        main.mode,
        Some(AgentMode::Edit {
            allow: vec![PathBuf::from(".")]
        })
    );
    // `claude` is the adapter's own binary: nothing to override.
    assert_eq!(main.settings.binary, None);
    assert_eq!(
        main.permissions_file.as_deref(),
        Some(Path::new("/cfg/perms.json"))
    );
    assert_eq!(main.settings.cwd.as_deref(), Some(Path::new("/cfg/work")));
    assert_eq!(main.settings.timeout, Some(Duration::from_secs(1200)));
    assert_eq!(main.settings.env, [("A".into(), "1".into())]);
    let retry = main.settings.retry_on.as_ref().unwrap();
    assert_eq!(retry.kinds, [ErrorKind::Quota, ErrorKind::RateLimit]);
    assert_eq!(retry.describe()[2], "substring: \"Server Busy\"");
    let busy = ErrorInfo::new(
        ErrorKind::ProviderError,
        ErrorSource::Pattern,
        "the server busy, retry",
    );
    assert!(retry.admits(&busy));
    assert_eq!(main.origins.key("timeout"), Some(11));
    // A path as the program overrides the adapter's binary.
    let other = cfg.agent("other").unwrap();
    assert_eq!(
        other.settings.binary.as_deref(),
        Some(Path::new("/opt/bin/codex"))
    );
    assert_eq!(other.model, None);
    // An unknown provider: the command becomes a described CLI named
    // after the agent.
    let local = cfg.agent("local").unwrap();
    assert_eq!(local.provider, "local");
    let spec = cfg.provider_spec("local").unwrap();
    assert_eq!(spec.program, "ollama");
    assert_eq!(spec.prompt, PromptInput::Argv);
    assert_eq!(spec.output.format, OutputFormat::Text);
    assert_eq!(spec.args.len(), 4);
    // `--model {model}` became an optional group.
    assert!(spec.args[1].is_group());
    assert_eq!(spec.args[1].placeholders(), [Placeholder::Model]);
    // Other braces are literal.
    assert!(matches!(&spec.args[2], ArgTemplate::Arg(t) if t.placeholders().next().is_none()));
    assert!(cfg.provider("local").is_some());
    // The chain `default`, in file order, each agent with its own retry_on.
    let chain = cfg.chain(DEFAULT_CHAIN).unwrap();
    assert_eq!(chain.agents, ["main", "other", "local"]);
    assert!(chain.retry_on.is_none());
    assert_eq!(chain.on_dirty, OnDirty::Stop);
    // Warnings: unused command arguments (the permissions file is applied
    // when a run is planned, so it is no warning of the config).
    let w = cfg.warnings.join("\n");
    assert!(
        w.contains("agent `main` (line 6): the command's arguments are not used")
            && w.contains("-p {{prompt}} --model {{model}}"),
        "{w}"
    );
    assert!(!w.contains("permissions_file"), "{w}");
    assert!(!w.contains("`other`"), "{w}");
}

#[test]
fn cli_agents_yaml_errors_are_located() {
    for (yaml, want_line, want) in [
        (
            "  - name: a\n    provider: claude\n    comand: [x]\n",
            5,
            "unknown field `comand`",
        ),
        ("  - name: a\n    provider: ollama\n", 4, "needs `command:`"),
        (
            "  - name: a\n    provider: claude\n    retry_on: [auth]\n",
            5,
            "not recoverable",
        ),
        (
            "  - name: a\n    provider: claude\n  - name: a\n    provider: codex\n",
            5,
            "given twice",
        ),
        (
            "  - name: a\n    provider: ollama\n    command: []\n",
            5,
            "`command` is empty",
        ),
        (
            "  - name: claude\n    provider: ollama\n    command: [x]\n",
            5,
            "built-in adapter",
        ),
    ] {
        let text = format!("version: 1\nagents:\n{yaml}");
        let (line, e) = invalid(&text);
        assert_eq!(line, Some(want_line), "{yaml}: {e}");
        assert!(e.contains(want), "{yaml}: {e}");
    }
    let (line, e) = invalid("version: 2\nagents:\n  - name: a\n    provider: claude\n");
    assert_eq!(line, Some(1));
    assert!(e.contains("unsupported config version 2"), "{e}");
}

/// `agentgate --config cli_agents.yaml`: the file's folder is the working
/// directory, so `working_dir: .` is that folder (it was the empty path,
/// which no run could enter), and native `cwd: .` too.
#[test]
fn a_file_named_without_a_folder_anchors_paths_in_the_working_directory() {
    let cwd = std::env::current_dir().unwrap();
    let text = CLI_AGENTS.replace("working_dir: work", "working_dir: .");
    let cfg = parse_at(&text, "cli_agents.yaml").unwrap();
    let main = cfg.agent("main").unwrap();
    assert_eq!(main.settings.cwd.as_deref(), Some(cwd.as_path()));
    assert_eq!(
        main.permissions_file.as_deref(),
        Some(cwd.join("perms.json").as_path())
    );
    let native = parse_at(
        "version: 1\nagents:\n  a:\n    provider: claude\n    cwd: .\n    agent_file: ./a.md\nstore: runs.db\n",
        "agentgate.yaml",
    )
    .unwrap();
    let a = native.agent("a").unwrap();
    assert_eq!(a.settings.cwd.as_deref(), Some(cwd.as_path()));
    assert_eq!(a.agent_file.as_deref(), Some(cwd.join("a.md").as_path()));
    assert_eq!(
        native.store,
        Some(agentgate_store::StoreLocation::Sqlite(cwd.join("runs.db")))
    );
}

#[test]
fn the_examples_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let load = |name: &str| Config::read(ConfigSource::Flag(root.join(name))).unwrap();
    let native = load("agentgate.yaml");
    assert_eq!(native.format, ConfigFormat::Native);
    assert!(native.warnings.is_empty(), "{:?}", native.warnings);
    assert_eq!(native.chain("fix").unwrap().agents.len(), 3);
    assert_eq!(
        native
            .resolve_model(
                "claude",
                None,
                native.agent("triage").unwrap().model.as_deref()
            )
            .model
            .as_deref(),
        Some("claude-haiku-4-5")
    );
    let providers = load("providers.yaml");
    assert_eq!(providers.format, ConfigFormat::ProvidersYaml);
    assert!(providers.warnings.is_empty(), "{:?}", providers.warnings);
    assert_eq!(
        providers.default_model("gemini").as_deref(),
        Some("gemini-2.5-pro")
    );
    let cli = load("cli_agents.yaml");
    assert_eq!(cli.format, ConfigFormat::CliAgents);
    assert_eq!(
        cli.chain(DEFAULT_CHAIN).unwrap().agents,
        ["claude-main", "codex-backup", "local-llm"]
    );
    assert!(cli.provider_spec("local-llm").is_some());
}
