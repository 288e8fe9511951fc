//! A step's sandbox level by precedence, what the config adds, `strict`
//! turning the gateway on, and the config's `sandbox.require`.

use std::path::PathBuf;

use agentgate_protocol::SandboxLevel;

use crate::config::{Config, ConfigSource};
use crate::plan::{Plan, PlanError, plan};
use crate::request::RunRequest;

/// `request` (JSON fields after `prompt` and `cwd`) planned with `config`
/// (YAML after `version: 1`).
fn planned(request: &str, config: &str) -> Result<Plan, PlanError> {
    let cfg = Config::parse(
        &format!("version: 1\n{config}"),
        ConfigSource::Flag(PathBuf::from("/cfg/agentgate.yaml")),
    )
    .unwrap();
    let dir = std::env::temp_dir();
    let body = format!(
        r#"{{"prompt": "p", "cwd": "{}", "skip_context_file": true, {request}}}"#,
        dir.display()
    );
    let (flags, task) = RunRequest::from_json(&body).unwrap().to_flags().unwrap();
    plan(&cfg, &flags, task)
}

fn level_of(request: &str, config: &str) -> Option<SandboxLevel> {
    planned(request, config).unwrap().steps[0]
        .sandbox
        .as_ref()
        .map(|s| s.level)
}

const LAYERED: &str = "sandbox:\n  level: workspace\n  container: {image: \"localhost/agents:1\"}\n  providers:\n    codex: {level: strict}\nagents:\n  boxed: {provider: codex, sandbox: container}\n  open: {provider: claude, sandbox: off}\n  plain: {provider: claude}\n";

#[test]
fn the_level_is_the_flags_else_the_agents_else_the_providers_else_the_configs() {
    let config = LAYERED;
    use SandboxLevel::*;
    // The flag wins over everything, `off` included.
    assert_eq!(
        level_of(r#""agents": ["boxed"], "sandbox": "workspace""#, config),
        Some(Workspace)
    );
    assert_eq!(
        level_of(r#""providers": ["codex"], "sandbox": "off""#, config),
        None
    );
    // Then the agent's.
    assert_eq!(level_of(r#""agents": ["boxed"]"#, config), Some(Container));
    assert_eq!(level_of(r#""agents": ["open"]"#, config), None);
    // Then the provider's.
    assert_eq!(level_of(r#""providers": ["codex"]"#, config), Some(Strict));
    // Then the section's.
    assert_eq!(level_of(r#""agents": ["plain"]"#, config), Some(Workspace));
    assert_eq!(
        level_of(r#""providers": ["claude"]"#, config),
        Some(Workspace)
    );
    // Else off.
    assert_eq!(level_of(r#""providers": ["claude"]"#, ""), None);
}

#[test]
fn a_step_gets_the_configs_lists_and_its_providers_variables() {
    let config = "sandbox:\n  level: strict\n  env_allow: [CORP_CA, \"MYTOOL_*\"]\n  hide: [secrets]\n  read_allow: [/opt/sdk]\n  write_allow: [/var/cache/pip]\n  egress_allow: [github.com:443]\n  providers:\n    codex: {env_allow: [CODEX_EXTRA, CORP_CA]}\n";
    let p = planned(r#""providers": ["codex"]"#, config).unwrap();
    let s = p.steps[0].sandbox.clone().unwrap();
    assert_eq!(s.level, SandboxLevel::Strict);
    assert_eq!(s.env_allow, ["CORP_CA", "MYTOOL_*", "CODEX_EXTRA"]);
    assert_eq!(s.hide, [PathBuf::from("/cfg/secrets")]);
    assert_eq!(s.read_allow, [PathBuf::from("/opt/sdk")]);
    assert_eq!(s.write_allow, [PathBuf::from("/var/cache/pip")]);
    assert_eq!(s.egress_allow, ["github.com:443"]);
    assert_eq!(s.container, None);
    // Another provider: the section's variables only; `workspace` has no
    // egress list (its network is not restricted).
    let p = planned(r#""providers": ["claude"], "sandbox": "workspace""#, config).unwrap();
    let s = p.steps[0].sandbox.clone().unwrap();
    assert_eq!(s.env_allow, ["CORP_CA", "MYTOOL_*"]);
    assert!(s.egress_allow.is_empty());
}

#[test]
fn strict_turns_the_gateway_on_and_workspace_leaves_it_off() {
    let p = planned(r#""providers": ["claude"], "sandbox": "strict""#, "").unwrap();
    assert!(p.steps[0].gateway.is_some(), "strict needs the gateway");
    let p = planned(r#""providers": ["claude"], "sandbox": "workspace""#, "").unwrap();
    assert!(p.steps[0].gateway.is_none());
    // Over an agent's `gateway: false`, with the config's limits.
    let config = "gateway:\n  limits: {max_model_calls: 7}\nagents:\n  quiet: {provider: codex, gateway: false, sandbox: strict}\n";
    let p = planned(r#""agents": ["quiet"]"#, config).unwrap();
    let g = p.steps[0].gateway.as_ref().expect("on for strict");
    assert_eq!(g.limits.max_model_calls, Some(7));
    // A limit on model use needs no --gateway then.
    assert!(
        planned(
            r#""providers": ["claude"], "sandbox": "strict", "max_model_calls": 3"#,
            ""
        )
        .is_ok()
    );
    // An explicit --no-gateway contradicts it.
    let e = planned(
        r#""providers": ["claude"], "sandbox": "strict", "gateway": false"#,
        "",
    )
    .unwrap_err();
    assert!(matches!(e, PlanError::SandboxGatewayOff), "{e}");
    assert_eq!(e.field(), "gateway");
}

#[test]
fn strict_refuses_a_provider_the_gateway_cannot_front_naming_it() {
    for provider in ["cursor", "agy"] {
        let e = planned(
            &format!(r#""providers": ["{provider}"], "sandbox": "strict""#),
            "",
        )
        .unwrap_err();
        assert!(
            matches!(&e, PlanError::SandboxNeedsRoute { provider: p, .. } if p == provider),
            "{e:?}"
        );
        assert_eq!(e.field(), "sandbox");
        let message = e.to_string();
        assert!(
            message.contains(provider) && message.contains("strict"),
            "{message}"
        );
    }
    // A described CLI, from the config's level.
    let config =
        "providers:\n  mycli:\n    command: [mycli, \"{prompt}\"]\nsandbox:\n  level: strict\n";
    let e = planned(r#""providers": ["mycli"]"#, config).unwrap_err();
    assert!(e.to_string().contains("mycli cannot run behind one"), "{e}");
    // The same CLI in workspace plans.
    assert!(planned(r#""providers": ["mycli"], "sandbox": "workspace""#, config).is_ok());
}

#[test]
fn container_needs_the_configs_container() {
    let e = planned(r#""providers": ["claude"], "sandbox": "container""#, "").unwrap_err();
    assert!(matches!(e, PlanError::SandboxNoContainer), "{e}");
    assert_eq!(e.field(), "sandbox");
    let config =
        "sandbox:\n  container: {engine: podman, name: agents, args: [--user, \"1000\"]}\n";
    let p = planned(r#""providers": ["claude"], "sandbox": "container""#, config).unwrap();
    let c = p.steps[0]
        .sandbox
        .as_ref()
        .unwrap()
        .container
        .clone()
        .unwrap();
    assert_eq!(c.name.as_deref(), Some("agents"));
    assert_eq!(c.args, ["--user", "1000"]);
    assert!(
        p.steps[0].gateway.is_none(),
        "a container's network is the engine's"
    );
}

#[test]
fn a_level_below_the_required_one_is_refused_saying_how_to_ask() {
    let config = "sandbox:\n  require: workspace\n";
    // No level anywhere: off, below workspace.
    let e = planned(r#""providers": ["claude"]"#, config).unwrap_err();
    assert!(
        matches!(
            &e,
            PlanError::SandboxBelowRequired {
                level: SandboxLevel::Off,
                required: SandboxLevel::Workspace,
                ..
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.field(), "sandbox");
    let message = e.to_string();
    for words in [
        "invalid_input",
        "`off`",
        "requires `workspace`",
        "--sandbox workspace",
        "\"sandbox\": \"workspace\"",
        "workspace, strict or container",
    ] {
        assert!(message.contains(words), "{words}: {message}");
    }
    let e = planned(r#""providers": ["claude"], "sandbox": "off""#, config).unwrap_err();
    assert!(e.to_string().contains("asked with --sandbox"), "{e}");
    // Workspace and above meet it.
    for level in ["workspace", "strict"] {
        assert!(
            planned(
                &format!(r#""providers": ["claude"], "sandbox": "{level}""#),
                config
            )
            .is_ok(),
            "{level}"
        );
    }
    // `strict` is met by strict only; the config's level counts.
    let config = "sandbox:\n  require: strict\n  level: workspace\n  container: {image: img}\nagents:\n  a: {provider: claude, sandbox: container}\n";
    let e = planned(r#""providers": ["claude"]"#, config).unwrap_err();
    assert!(e.to_string().contains("`sandbox.level`"), "{e}");
    let e = planned(r#""agents": ["a"]"#, config).unwrap_err();
    assert!(e.to_string().contains("agent `a`"), "{e}");
    assert!(planned(r#""providers": ["claude"], "sandbox": "strict""#, config).is_ok());
    // Any step of a chain below it refuses the run.
    let config = "sandbox:\n  require: workspace\n  providers:\n    claude: {level: workspace}\n";
    assert!(planned(r#""providers": ["claude"]"#, config).is_ok());
    let e = planned(r#""providers": ["claude", "codex"]"#, config).unwrap_err();
    assert!(e.to_string().starts_with("invalid_input: codex"), "{e}");
}

#[test]
fn a_bad_level_in_a_request_is_refused_on_its_field() {
    let e = RunRequest::from_json(r#"{"prompt": "p", "sandbox": "tight"}"#)
        .unwrap()
        .to_flags()
        .unwrap_err();
    assert_eq!(e.field, "sandbox");
    assert!(e.message.contains("unknown sandbox level `tight`"), "{e}");
    let (flags, _) = RunRequest::from_json(r#"{"prompt": "p", "sandbox": "strict"}"#)
        .unwrap()
        .to_flags()
        .unwrap();
    assert_eq!(flags.sandbox, Some(SandboxLevel::Strict));
}

#[test]
fn the_dry_run_shows_each_steps_level_and_what_the_config_adds() {
    let config = "sandbox:\n  env_allow: [CORP_CA]\n  write_allow: [/var/cache/pip]\n";
    let cfg = Config::parse(
        &format!("version: 1\n{config}"),
        ConfigSource::Flag(PathBuf::from("/cfg/agentgate.yaml")),
    )
    .unwrap();
    let body = format!(
        r#"{{"prompt": "p", "cwd": "{}", "skip_context_file": true, "providers": ["claude", "codex"], "sandbox": "workspace"}}"#,
        std::env::temp_dir().display()
    );
    let (flags, task) = RunRequest::from_json(&body).unwrap().to_flags().unwrap();
    let p = plan(&cfg, &flags, task).unwrap();
    let report = crate::plan::report::report(Ok(&p), &flags, None);
    for step in report["steps"].as_array().unwrap() {
        assert_eq!(step["sandbox"]["level"], "workspace", "{step}");
        assert_eq!(step["sandbox"]["env_allow"], serde_json::json!(["CORP_CA"]));
        assert_eq!(
            step["sandbox"]["write_allow"],
            serde_json::json!(["/var/cache/pip"])
        );
    }
    assert_eq!(
        report["sandbox"]["level"], "workspace",
        "the first step's at the top"
    );
    let (flags, task) = RunRequest::from_json(&body.replace("workspace", "off"))
        .unwrap()
        .to_flags()
        .unwrap();
    let p = plan(&cfg, &flags, task).unwrap();
    let report = crate::plan::report::report(Ok(&p), &flags, None);
    assert_eq!(
        report["steps"][0]["sandbox"],
        serde_json::json!({"level": "off"})
    );
}

#[test]
fn the_policy_alone_checks_every_member_and_leaves_other_faults_to_planning() {
    let cfg = Config::parse(
        "version: 1\nsandbox:\n  require: workspace\nagents:\n  a: {provider: claude}\n  b: {provider: codex, sandbox: strict}\n",
        ConfigSource::Default,
    )
    .unwrap();
    let check = |body: &str| {
        let (flags, _) = RunRequest::from_json(body).unwrap().to_flags().unwrap();
        crate::plan::check_sandbox_policy(&cfg, &flags)
    };
    let e = check(r#"{"prompt": "p", "agents": ["b", "a"]}"#).unwrap_err();
    assert_eq!(e.field(), "sandbox");
    assert!(e.to_string().contains("agent `a`"), "{e}");
    assert!(check(r#"{"prompt": "p", "agents": ["b"]}"#).is_ok());
    assert!(check(r#"{"prompt": "p", "agents": ["a"], "sandbox": "workspace"}"#).is_ok());
    // An unknown agent, or no member at all: planning says what is wrong.
    assert!(check(r#"{"prompt": "p", "agents": ["nope"]}"#).is_ok());
    assert!(check(r#"{"prompt": "p"}"#).is_ok());
}
