//! From a provider and a request to a warm process's start: the provider's
//! long-lived command line ([`Provider::warm_command`]) and, by its wire,
//! the protocol (with the session to resume, the model and the approval
//! settings that wire takes over the wire) and the decoder of its output.

use std::path::Path;
use std::time::Duration;

use super::acp::AcpWarm;
use super::acp_decode::AcpDecoder;
use super::claude::ClaudeWarm;
use super::codex::{CodexThread, CodexWarm};
use super::codex_decode::CodexAppServerDecoder;
use super::process::WarmStart;
use super::protocol::WarmProtocol;
use crate::settings::PermissionMode;
use agentgate_providers::decode::Decoder;
use agentgate_providers::{
    CliRequest, CommandError, Provider, Scratch, WarmCommand, WarmWire, private_tmpdir,
};
use agentgate_supervise::{Invocation, SupervisorConfig};

/// How long a warm process may take to open its session.
pub const OPEN_TIMEOUT: Duration = Duration::from_secs(60);

/// A warm process ready to start, and what its turns need to know.
#[derive(Debug)]
pub struct WarmPlan {
    /// What [`super::process::WarmProcess::start`] takes.
    pub start: WarmStart,
    /// See [`WarmCommand::cumulative_usage`].
    pub cumulative_usage: bool,
    /// See [`WarmCommand::load_needs_a_later_minute`].
    pub load_needs_a_later_minute: bool,
    /// Files the command wrote for the CLI (its MCP configuration, a
    /// system prompt file): removed when the process ends.
    pub files: Vec<std::path::PathBuf>,
}

/// The warm process of `provider` for `req` (`req.resume`: the native
/// session to resume), under `supervisor`; `None` when the provider has no
/// long-lived mode.
pub fn warm_plan(
    provider: &dyn Provider,
    req: &CliRequest,
    program: &Path,
    scratch: &Scratch,
    supervisor: SupervisorConfig,
) -> Option<Result<WarmPlan, CommandError>> {
    let cmd = match provider.warm_command(req, program, scratch)? {
        Ok(c) => c,
        Err(e) => return Some(Err(e)),
    };
    let WarmCommand {
        command,
        wire,
        cumulative_usage,
        load_needs_a_later_minute,
    } = cmd;
    let (protocol, decoder) = wire_parts(wire, provider, req);
    let request_env: Vec<(std::ffi::OsString, std::ffi::OsString)> = command
        .request_env(&req.env)
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    let mut invocation = Invocation::new(command.program).args(command.args);
    invocation.env = command.env;
    invocation.env.extend(request_env);
    invocation.env_clear = req.env_clear;
    invocation.env_remove = req.env_remove.iter().map(Into::into).collect();
    invocation.env_remove.extend(command.env_remove);
    invocation.cwd = Some(command.cwd);
    let mut files = command.files;
    // A CLI that leaves files in its temp folder at every start gets one
    // of its own, removed with the process.
    match command.private_tmpdir.then(|| private_tmpdir(&req.env)) {
        Some(Ok(Some(dir))) => {
            let dir = dir.keep();
            invocation.env.push(("TMPDIR".into(), dir.clone().into()));
            files.push(dir);
        }
        Some(Err(why)) => tracing::warn!("{why}"),
        Some(Ok(None)) | None => {}
    }
    Some(Ok(WarmPlan {
        start: WarmStart {
            invocation,
            supervisor,
            protocol,
            decoder,
            open_timeout: OPEN_TIMEOUT,
        },
        cumulative_usage,
        load_needs_a_later_minute,
        files,
    }))
}

fn wire_parts(
    wire: WarmWire,
    provider: &dyn Provider,
    req: &CliRequest,
) -> (Box<dyn WarmProtocol>, Box<dyn Decoder>) {
    let cwd = req.cwd.display().to_string();
    let resume = req.resume.as_deref().filter(|s| !s.is_empty());
    match wire {
        // The session to resume is on the command line; the output is the
        // one-shot mode's.
        WarmWire::ClaudeStreamJson => (Box::new(ClaudeWarm::new()), provider.decoder()),
        WarmWire::CodexAppServer => (
            Box::new(CodexWarm::new(CodexThread {
                cwd,
                resume: resume.map(str::to_owned),
                model: req.model.clone(),
                ask: req.permission_mode == PermissionMode::Ask,
                // A permissions file that denies writes is stricter than
                // any mode (as on `codex exec`'s command line).
                sandbox: if req
                    .permissions
                    .as_ref()
                    .is_some_and(agentgate_providers::codex::denies_writes)
                {
                    "read-only".to_owned()
                } else {
                    codex_sandbox(req.permission_mode).to_owned()
                },
            })),
            Box::new(CodexAppServerDecoder::new()),
        ),
        WarmWire::Acp => (
            Box::new(AcpWarm::new(&cwd, resume)),
            Box::new(AcpDecoder::new(resume.map(str::to_owned))),
        ),
        // The model is in the config the command line gave it; the effort
        // variant is selected over the wire.
        WarmWire::OpencodeAcp => (
            Box::new(AcpWarm::opencode(
                &cwd,
                resume,
                req.model.as_deref(),
                req.reasoning_effort.as_deref(),
            )),
            Box::new(AcpDecoder::opencode(resume.map(str::to_owned))),
        ),
    }
}

/// The sandbox of an app-server thread, as `codex exec` gets it for the
/// same mode.
fn codex_sandbox(mode: PermissionMode) -> &'static str {
    match mode {
        PermissionMode::Plan => "read-only",
        PermissionMode::Bypass => "danger-full-access",
        PermissionMode::Default | PermissionMode::AcceptEdits | PermissionMode::Ask => {
            "workspace-write"
        }
    }
}

/// What a warm process was started for, as a hash (the request's
/// environment may hold secrets, which are not kept): a turn asking for
/// anything else (another model, mode, folder, system prompt, servers,
/// arguments, environment or permissions) gets a new one. The prompt and the session
/// to resume are not part of it; the sandbox it runs in is.
pub fn fingerprint(
    provider: &str,
    program: &std::path::Path,
    req: &agentgate_providers::CliRequest,
    sandbox: &dyn std::fmt::Debug,
) -> u64 {
    use std::hash::{Hash, Hasher};
    let knobs = (
        &req.env_remove,
        &req.reasoning_effort,
        req.thinking_budget,
        req.max_turns,
    );
    let settings = format!(
        "{:?}{knobs:?}",
        (
            provider,
            program,
            &req.model,
            req.permission_mode,
            &req.cwd,
            &req.system,
            &req.add_dirs,
            &req.mcp_servers,
            &req.extra_args,
            &req.env,
            req.env_clear,
            (req.max_provider_retries, &req.permissions, sandbox),
        )
    );
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    settings.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use agentgate_providers::builtin;

    fn request(mode: PermissionMode) -> CliRequest {
        CliRequest {
            prompt: "unused".into(),
            model: Some("m1".into()),
            permission_mode: mode,
            cwd: PathBuf::from("/work/here"),
            resume: Some("sess-1".into()),
            ..CliRequest::default()
        }
    }

    /// `name`'s warm plan for a request in `mode`.
    fn plan_of(name: &str, mode: PermissionMode) -> WarmPlan {
        let p = builtin(name).unwrap();
        let scratch = Scratch::temporary();
        warm_plan(
            p.as_ref(),
            &request(mode),
            Path::new("/bin/cli"),
            &scratch,
            SupervisorConfig::default(),
        )
        .unwrap()
        .unwrap()
    }

    fn argv(name: &str, mode: PermissionMode) -> Vec<String> {
        let plan = plan_of(name, mode);
        assert!(plan.start.invocation.stdin.is_none(), "turns go on stdin");
        plan.start
            .invocation
            .args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn claude_asks_on_stdio_only_in_ask_mode_and_resumes_on_its_command_line() {
        let ask = argv("claude", PermissionMode::Ask).join(" ");
        assert!(
            ask.starts_with("-p --input-format stream-json --output-format stream-json --verbose"),
            "{ask}"
        );
        assert!(ask.contains("--permission-mode default"), "{ask}");
        assert!(ask.contains("--permission-prompt-tool stdio"), "{ask}");
        assert!(ask.contains("--resume sess-1"), "{ask}");
        assert!(ask.contains("--model m1"), "{ask}");
        let bypass = argv("claude", PermissionMode::Bypass).join(" ");
        assert!(
            bypass.contains("--permission-mode bypassPermissions"),
            "{bypass}"
        );
        assert!(!bypass.contains("--permission-prompt-tool"), "{bypass}");
    }

    #[test]
    fn codex_gemini_and_qwen_take_their_sessions_over_the_wire() {
        assert_eq!(argv("codex", PermissionMode::Ask), ["app-server"]);
        let gemini = argv("gemini", PermissionMode::Ask).join(" ");
        assert_eq!(gemini, "--acp --approval-mode default -m m1");
        let qwen = argv("qwen", PermissionMode::Bypass).join(" ");
        assert_eq!(qwen, "--acp --approval-mode yolo -m m1");
    }

    fn warm(p: &dyn Provider) -> bool {
        let scratch = Scratch::temporary();
        p.warm_command(
            &request(PermissionMode::Ask),
            Path::new("/bin/cli"),
            &scratch,
        )
        .is_some()
    }

    #[test]
    fn opencode_takes_its_model_and_mode_through_its_config() {
        let env = |mode: PermissionMode, key: &str| -> serde_json::Value {
            let value = plan_of("opencode", mode)
                .start
                .invocation
                .env
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.to_string_lossy().into_owned())
                .unwrap_or_else(|| panic!("no {key}"));
            serde_json::from_str(&value).unwrap()
        };
        assert_eq!(
            argv("opencode", PermissionMode::Ask).join(" "),
            "acp --print-logs --log-level ERROR"
        );
        let config = env(PermissionMode::Ask, "OPENCODE_CONFIG_CONTENT");
        assert_eq!(config["model"], "m1");
        assert_eq!(config["agent"]["title"]["disable"], true);
        assert!(config.get("default_agent").is_none(), "{config}");
        assert_eq!(
            env(PermissionMode::Plan, "OPENCODE_CONFIG_CONTENT")["default_agent"],
            "plan"
        );
        // What asks is asked over the wire; a bypass, with no --auto,
        // allows by rule.
        let ask = env(PermissionMode::Ask, "OPENCODE_PERMISSION");
        assert_eq!((&ask["edit"], &ask["bash"]), (&"ask".into(), &"ask".into()));
        let bypass = env(PermissionMode::Bypass, "OPENCODE_PERMISSION");
        for tool in ["edit", "bash", "webfetch", "external_directory"] {
            assert_eq!(bypass[tool], "allow", "{bypass}");
        }
    }

    #[test]
    fn opencode_gets_a_temp_folder_of_its_own_removed_with_the_process() {
        let plan = plan_of("opencode", PermissionMode::Ask);
        let tmp = plan
            .start
            .invocation
            .env
            .iter()
            .find(|(k, _)| k == "TMPDIR")
            .map(|(_, v)| PathBuf::from(v))
            .expect("a TMPDIR");
        assert!(tmp.is_dir(), "{}", tmp.display());
        assert!(plan.files.contains(&tmp));
        drop(agentgate_providers::RemovedOnDrop(plan.files));
        assert!(!tmp.exists(), "removed with the process's files");
    }

    #[test]
    fn a_cli_without_a_long_lived_mode_has_none() {
        for name in ["cursor", "agy"] {
            let p = builtin(name).unwrap();
            assert!(!warm(p.as_ref()), "{name}");
        }
        for name in ["claude", "codex", "gemini", "qwen", "opencode"] {
            let p = builtin(name).unwrap();
            assert!(warm(p.as_ref()), "{name}");
        }
    }

    #[test]
    fn codex_threads_get_the_sandbox_of_their_mode() {
        assert_eq!(codex_sandbox(PermissionMode::Plan), "read-only");
        assert_eq!(codex_sandbox(PermissionMode::Ask), "workspace-write");
        assert_eq!(codex_sandbox(PermissionMode::Bypass), "danger-full-access");
    }
}

#[cfg(test)]
mod fingerprint_tests {
    use super::*;
    use agentgate_providers::CliRequest;

    #[test]
    fn the_fingerprint_changes_with_the_settings_that_need_a_new_process() {
        let req = CliRequest {
            model: Some("m1".into()),
            cwd: "/w".into(),
            ..CliRequest::default()
        };
        let p = std::path::Path::new("/bin/claude");
        let same = CliRequest {
            prompt: "another prompt".into(),
            resume: Some("s1".into()),
            ..req.clone()
        };
        assert_eq!(
            fingerprint("claude", p, &req, &()),
            fingerprint("claude", p, &same, &())
        );
        // Another sandbox: another process.
        assert_ne!(
            fingerprint("claude", p, &req, &()),
            fingerprint("claude", p, &req, &Some("workspace"))
        );
        let other = CliRequest {
            model: Some("m2".into()),
            ..req.clone()
        };
        assert_ne!(
            fingerprint("claude", p, &req, &()),
            fingerprint("claude", p, &other, &())
        );
        // Another value of the same variable (a key for another account).
        let with_key = |v: &str| CliRequest {
            env: vec![("ANTHROPIC_API_KEY".into(), v.into())],
            ..req.clone()
        };
        assert_ne!(
            fingerprint("claude", p, &with_key("k1"), &()),
            fingerprint("claude", p, &with_key("k2"), &())
        );
    }
}
