//! Qwen Code: `qwen --output-format stream-json --approval-mode MODE` with
//! the prompt on stdin (without a prompt argument and with stdin not a
//! terminal, Qwen runs headless and reads its prompt from stdin).
//!
//! Qwen re-launches itself as a child node process with the same stdio;
//! the supervisor's process-group kill stops both.
//!
//! Usage: Qwen's totals are cumulative over a session and include its
//! background memory-extraction request; see `decode.rs` for how a run
//! reports its own figures.

mod catalog;
mod decode;
mod errors;

pub use decode::{QwenDecoder, find_session_file, is_api_error, session_totals};
pub use errors::ERRORS;

use super::argv::{Context, Part, PromptInput, args, each_dir, mode_flag, optional};
use super::builtin::{Description, WarmMode};
use super::login::{LoginFacts, LoginProbe, LoginState};
use super::mcp;
use super::permissions::{self, PermissionsWay};
use super::provider::{CliCommand, CommandError, Features, PostRun, Verification, WarmWire};
use super::skills::{SkillFacts, SkillInvoke, UserDir};
use super::system_settings::object_at;
use crate::decode::Decoded;
use crate::sandbox_facts::{SandboxFacts, StatePath};

/// The most Qwen reads from stdin (8 MiB); it truncates the rest.
const MAX_STDIN_PROMPT: usize = 8 * 1024 * 1024;

/// Qwen Code.
pub static QWEN: Description = Description {
    name: "qwen",
    binary: "qwen",
    verification: Verification::LiveCli,
    features: Features {
        cost: false,
        ..Features::ALL
    },
    exposes_reasoning: true,
    prompt: PromptInput::Stdin,
    argv: ARGV,
    decoder: || Box::new(QwenDecoder::new()),
    post_run: Some(session_usage),
    thread_history: None,
    errors: &ERRORS,
    final_record: Some("its closing `result` record"),
    skills: Some(SKILLS),
    catalog: Some(catalog::CATALOG),
    warm: Some(WarmMode {
        wire: WarmWire::Acp,
        argv: WARM_ARGV,
        cumulative_usage: false,
        load_needs_a_later_minute: false,
    }),
    login: LoginFacts {
        probes: &[
            LoginProbe::Credentials {
                dir_var: None,
                dir: ".qwen",
                file: "oauth_creds.json",
            },
            LoginProbe::ApiKey("OPENAI_API_KEY"),
            LoginProbe::AuthType(".qwen/settings.json"),
        ],
        otherwise: LoginState::NoneFound,
    },
    permissions: crate::permissions::PermissionsWay::QwenSettings,
    sandbox: SandboxFacts {
        env_allow: &["QWEN_*", "OPENAI_*", "DASHSCOPE_*"],
        state: &[StatePath::Home(".qwen")],
    },
};

/// `--acp`: the session (new or loaded) and the turns go over the wire.
static WARM_ARGV: &[Part] = &[
    args(&["--acp"]),
    Part::Code(allowed_mcp_servers),
    mode_flag("--approval-mode", ["default", "plan", "auto-edit", "yolo"]),
    optional(&["-m", "{model}"]),
    optional(&["--append-system-prompt", "{system}"]),
    each_dir(&["--include-directories", "{dir}"]),
    Part::Extra,
    Part::Code(system_settings),
    Part::Code(crate::gateway_route::point_qwen),
];

static ARGV: &[Part] = &[
    Part::Code(prompt_fits_stdin),
    args(&["--output-format", "stream-json"]),
    // Before a flag: the option would take the words after it.
    Part::Code(allowed_mcp_servers),
    mode_flag("--approval-mode", ["default", "plan", "auto-edit", "yolo"]),
    optional(&["-m", "{model}"]),
    optional(&["--append-system-prompt", "{system}"]),
    each_dir(&["--include-directories", "{dir}"]),
    optional(&["--resume", "{session}"]),
    Part::Extra,
    Part::Code(system_settings),
    Part::Code(crate::gateway_route::point_qwen),
];

/// Qwen reads at most 8 MiB from stdin and drops the rest: refuse more.
fn prompt_fits_stdin(ctx: &Context<'_>, _: &mut CliCommand) -> Result<(), CommandError> {
    let len = ctx.request.prompt.len();
    if len > MAX_STDIN_PROMPT {
        return Err(ctx.unsupported(format!(
            "take a prompt of {len} bytes: it reads at most 8 MiB from stdin and drops the rest"
        )));
    }
    Ok(())
}

use crate::system_settings::QWEN as SETTINGS;

/// The request's MCP servers, and only those: `--allowed-mcp-server-names`.
fn allowed_mcp_servers(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    cmd.args.extend(mcp::allowed_names_args(mcp::checked(ctx)?));
    Ok(())
}

/// What only a settings key sets: `--max-provider-retries`
/// (`model.generationConfig.maxRetries`, no flag or variable sets it),
/// `--reasoning-effort` (`model.reasoningEffort`, the planner's level), the
/// request's MCP servers (`mcpServers`) and the agent's permissions file
/// (`permissions.deny`/`allow`, see `permissions.rs`) and, behind a
/// gateway, the model's `modelProviders` entry with the gateway's base URL
/// (when the plan took the base from one), in a copy of the system
/// settings the run points Qwen at.
fn system_settings(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let retries = ctx.request.max_provider_retries;
    let effort = ctx.request.reasoning_effort.as_deref();
    let servers = mcp::checked(ctx)?;
    let permissions = ctx.request.permissions.as_ref().and_then(|p| {
        match permissions::settings(PermissionsWay::QwenSettings, "qwen", p).0 {
            Some(serde_json::Value::Object(map)) => Some(map),
            _ => None,
        }
    });
    let mut purposes = Vec::new();
    if retries.is_some() {
        purposes.push("bound its retries");
    }
    if !servers.is_empty() {
        purposes.push("take MCP servers");
    }
    if permissions.is_some() {
        purposes.push("apply the agent's permissions file");
    }
    if effort.is_some() {
        purposes.push("set its reasoning effort");
    }
    let gateway = crate::gateway_route::qwen_settings_edit(ctx);
    if gateway.is_some() {
        purposes.push("point it at the gateway");
    }
    if purposes.is_empty() {
        return Ok(());
    }
    let purpose = purposes.join(" and ");
    let instead = match (retries.is_some(), servers.is_empty()) {
        (true, _) => "run without --max-provider-retries",
        (false, false) => "run without MCP servers",
        (false, true) if permissions.is_some() => "run the agent without its permissions file",
        (false, true) if effort.is_some() => "run without --reasoning-effort",
        (false, true) => "run without the gateway",
    };
    let edit = |settings: &mut serde_json::Map<String, serde_json::Value>| {
        if let Some(n) = retries {
            let model = object_at(settings, "model");
            // Indexing an object inserts what is missing; only a non-object
            // in the way must be replaced first.
            if !model["generationConfig"].is_object() {
                model["generationConfig"] = serde_json::json!({});
            }
            model["generationConfig"]["maxRetries"] = n.into();
        }
        if let Some(e) = effort {
            object_at(settings, "model")["reasoningEffort"] = e.into();
        }
        mcp::add_to_settings(settings, servers);
        if let Some(p) = &permissions {
            permissions::merge_settings(settings, p);
        }
        if let Some(serde_json::Value::Object(providers)) = &gateway {
            let slot = object_at(settings, "modelProviders");
            for (k, v) in providers {
                slot[k] = v.clone();
            }
        }
    };
    let (vars, file) = SETTINGS.overlay(ctx.request, ctx.scratch, &purpose, instead, &edit)?;
    cmd.env.extend(vars);
    cmd.files.push(file);
    Ok(())
}

/// The session's totals from Qwen's session file (reasoning included).
fn session_usage(ctx: &PostRun<'_>) -> Vec<Decoded> {
    ctx.session_in(".qwen")
        .and_then(|(id, dir)| session_totals(&dir, id))
        .map(Decoded::ThreadTotals)
        .into_iter()
        .collect()
}

/// Qwen Code: `.qwen/skills/` and `.agents/skills/` of the project (not `.claude/skills/`), the user's `~/.qwen/skills/`; the prompt `/NAME ARGS` invokes one.
static SKILLS: SkillFacts = SkillFacts {
    project_dirs: &[".qwen/skills", ".agents/skills"],
    user_dirs: &[UserDir::home(".qwen/skills")],
    invoke: SkillInvoke::Slash,
    native: None,
};

#[cfg(test)]
mod tests {
    /// Qwen's variables naming its system settings and defaults files.
    const SYSTEM_SETTINGS_ENV: &str = super::SETTINGS.settings_env;
    const SYSTEM_DEFAULTS_ENV: &str = super::SETTINGS.defaults_env;
    use std::ffi::OsString;
    use std::path::{Path, PathBuf};

    use serde_json::{Value, json};

    use super::*;
    use crate::PermissionMode;
    use crate::provider::{CliRequest, Provider};
    use crate::test_support::req;

    fn os(s: &str) -> OsString {
        OsString::from(s)
    }

    fn plan(r: &CliRequest, scratch: &Path) -> CliCommand {
        QWEN.command(r, Path::new("/bin/qwen"), &scratch.into())
            .unwrap()
    }

    #[test]
    fn the_prompt_goes_on_stdin_and_the_stream_is_stream_json() {
        let p = plan(&req(), &std::env::temp_dir());
        assert_eq!(
            p.display_args(),
            [
                "--output-format",
                "stream-json",
                "--approval-mode",
                "default"
            ]
        );
        assert_eq!(p.stdin.as_deref(), Some(&b"do it"[..]));
        assert_eq!(p.cwd, PathBuf::from("/work"));
        assert!(p.env.is_empty() && p.files.is_empty());
    }

    #[test]
    fn model_system_dirs_resume_and_modes_map_onto_flags() {
        let r = CliRequest {
            model: Some("qwen3-coder-plus".into()),
            system: Some("Be \"brief\".".into()),
            add_dirs: vec![PathBuf::from("/a"), PathBuf::from("/b")],
            resume: Some("S1".into()),
            extra_args: vec!["--debug".into()],
            permission_mode: PermissionMode::Bypass,
            ..req()
        };
        assert_eq!(
            plan(&r, &std::env::temp_dir()).display_args(),
            [
                "--output-format",
                "stream-json",
                "--approval-mode",
                "yolo",
                "-m",
                "qwen3-coder-plus",
                "--append-system-prompt",
                "Be \"brief\".",
                "--include-directories",
                "/a",
                "--include-directories",
                "/b",
                "--resume",
                "S1",
                "--debug"
            ]
        );
        let mode = |m| {
            let r = CliRequest {
                permission_mode: m,
                ..req()
            };
            plan(&r, &std::env::temp_dir()).display_args()[3].clone()
        };
        assert_eq!(mode(PermissionMode::Plan), "plan");
        assert_eq!(mode(PermissionMode::AcceptEdits), "auto-edit");
    }

    #[test]
    fn a_retry_bound_extends_the_system_settings_in_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("etc-settings.json");
        std::fs::write(
            &system,
            "// admin settings\n{\"$version\": 4, /* keep */ \"model\": {\"name\": \"a//b\"}, \"x\": 1}",
        )
        .unwrap();
        let scratch = dir.path().join("run");
        std::fs::create_dir(&scratch).unwrap();
        let r = CliRequest {
            max_provider_retries: Some(2),
            env: vec![(SYSTEM_SETTINGS_ENV.into(), system.display().to_string())],
            ..req()
        };
        let p = plan(&r, &scratch);
        let copy = p.files[0].clone();
        assert_eq!(p.files.len(), 1);
        assert_eq!(copy.parent(), Some(scratch.as_path()));
        // Named by its content: another run with the same bound shares it.
        assert_eq!(plan(&r, &scratch).files, p.files);
        assert_eq!(
            std::fs::read_dir(&scratch).unwrap().count(),
            1,
            "no leftovers"
        );
        assert_eq!(
            p.env,
            [
                (os(SYSTEM_SETTINGS_ENV), copy.clone().into_os_string()),
                (
                    os(SYSTEM_DEFAULTS_ENV),
                    dir.path().join("system-defaults.json").into_os_string()
                ),
            ]
        );
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&copy).unwrap()).unwrap();
        assert_eq!(
            written,
            json!({"$version": 4, "x": 1, "model": {"name": "a//b", "generationConfig": {"maxRetries": 2}}})
        );
        // The original is left alone.
        assert!(
            std::fs::read_to_string(&system)
                .unwrap()
                .starts_with("// admin")
        );
    }

    #[test]
    fn a_reasoning_effort_is_set_in_the_system_settings_copy() {
        let dir = tempfile::tempdir().unwrap();
        let system = dir.path().join("etc-settings.json");
        std::fs::write(&system, "{\"model\": {\"name\": \"m\"}}").unwrap();
        let r = CliRequest {
            reasoning_effort: Some("high".into()),
            env: vec![(SYSTEM_SETTINGS_ENV.into(), system.display().to_string())],
            ..req()
        };
        let p = plan(&r, dir.path());
        assert_eq!(p.files.len(), 1);
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&p.files[0]).unwrap()).unwrap();
        assert_eq!(
            written,
            json!({"model": {"name": "m", "reasoningEffort": "high"}})
        );
        // No effort, no retries, no MCP servers: no copy at all.
        assert!(plan(&req(), dir.path()).files.is_empty());
    }

    #[test]
    fn a_retry_bound_without_system_settings_writes_a_fresh_file() {
        let dir = tempfile::tempdir().unwrap();
        let r = CliRequest {
            max_provider_retries: Some(0),
            env: vec![(
                SYSTEM_SETTINGS_ENV.into(),
                dir.path().join("none.json").display().to_string(),
            )],
            ..req()
        };
        let p = plan(&r, dir.path());
        let written = std::fs::read_to_string(&p.files[0]).unwrap();
        let written: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(
            written,
            json!({"$version": 4, "model": {"generationConfig": {"maxRetries": 0}}})
        );
    }

    #[test]
    fn unusable_requests_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.json");
        std::fs::write(&bad, "[1, 2]").unwrap();
        let r = CliRequest {
            max_provider_retries: Some(1),
            env: vec![(SYSTEM_SETTINGS_ENV.into(), bad.display().to_string())],
            ..req()
        };
        let err = QWEN
            .command(&r, Path::new("/bin/qwen"), &dir.path().into())
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a JSON object"), "{err}");
        assert!(err.contains("--max-provider-retries"), "{err}");
        let huge = CliRequest {
            prompt: "x".repeat(MAX_STDIN_PROMPT + 1),
            ..req()
        };
        let err = QWEN
            .command(&huge, Path::new("/bin/qwen"), &dir.path().into())
            .unwrap_err()
            .to_string();
        assert!(err.contains("8 MiB"), "{err}");
    }

    #[test]
    fn post_run_reads_the_session_totals_with_reasoning() {
        let home = tempfile::tempdir().unwrap();
        let chats = home.path().join(".qwen/projects/-work/chats");
        std::fs::create_dir_all(&chats).unwrap();
        let record = json!({"type": "system", "subtype": "ui_telemetry", "systemPayload": {"uiEvent": {
            "event.name": "qwen-code.api_response", "input_token_count": 120,
            "output_token_count": 9, "cached_content_token_count": 20, "thoughts_token_count": 4}}});
        std::fs::write(chats.join("S1.jsonl"), format!("{record}\n{record}\n")).unwrap();
        let ctx = |id| PostRun {
            session_id: Some(id),
            home: Some(home.path()),
            cwd: Path::new("/work"),
        };
        let want = agentgate_protocol::Usage {
            input_tokens: 240,
            output_tokens: 18,
            cache_read_input_tokens: 40,
            reasoning_tokens: 8,
            total_tokens: 258,
            ..agentgate_protocol::Usage::default()
        };
        assert_eq!(QWEN.post_run(&ctx("S1")), [Decoded::ThreadTotals(want)]);
        assert!(QWEN.post_run(&ctx("S2")).is_empty());
    }
}
