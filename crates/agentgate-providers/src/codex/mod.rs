//! Codex: `codex exec --json ... -` (the prompt on stdin), and
//! `codex exec resume --json ... SESSION -`.

mod catalog;
mod decode;
mod errors;
mod permissions;

pub use catalog::{MODEL_LIST_METHOD, catalog_page};
pub use decode::{CodexDecoder, PATCH_TOOL, SHELL_TOOL};
pub use errors::ERRORS;
pub use permissions::denies_writes;

use crate::sandbox_facts::{SandboxFacts, StatePath};
use std::ffi::OsString;

use super::argv::{
    Context, Modes, Part, Parts, PromptInput, args, each_dir, fresh, mode, optional, resuming,
};
use super::builtin::{Description, WarmMode};
use super::login::{LoginFacts, LoginProbe, LoginState, Probe};
use super::mcp;
use super::provider::{CliCommand, CommandError, Features, Verification, WarmWire};
use super::skills::{NativeLister, SkillFacts, SkillInvoke, SkillScope, UserDir};

/// Codex.
pub static CODEX: Description = Description {
    name: "codex",
    binary: "codex",
    verification: Verification::LiveCli,
    features: Features {
        cost: false,
        ..Features::ALL
    },
    exposes_reasoning: true,
    prompt: PromptInput::Stdin,
    argv: ARGV,
    decoder: || Box::new(CodexDecoder::new()),
    post_run: None,
    thread_history: Some(rollout_history),
    errors: &ERRORS,
    final_record: Some("its closing `turn.completed` record"),
    skills: Some(SKILLS),
    catalog: Some(crate::catalog::CatalogSource::CodexAppServer),
    warm: Some(WarmMode {
        wire: WarmWire::CodexAppServer,
        argv: WARM_ARGV,
        cumulative_usage: false,
        load_needs_a_later_minute: false,
    }),
    login: LoginFacts {
        probes: &[
            LoginProbe::Credentials {
                dir_var: Some("CODEX_HOME"),
                dir: ".codex",
                file: "auth.json",
            },
            LoginProbe::ApiKey("OPENAI_API_KEY"),
            LoginProbe::Code(env_keys),
        ],
        otherwise: LoginState::NoneFound,
    },
    permissions: crate::permissions::PermissionsWay::CodexConfig,
    sandbox: SandboxFacts {
        env_allow: &["OPENAI_*", "CODEX_*"],
        state: &[StatePath::Var {
            var: "CODEX_HOME",
            default: ".codex",
        }],
    },
};

/// `codex app-server`: the thread (resumed or new), its model, sandbox and
/// approval policy go over the wire; the configuration overrides here.
static WARM_ARGV: &[Part] = &[
    args(&["app-server"]),
    Part::Code(developer_instructions),
    Part::Code(crate::reasoning::codex_effort),
    Part::Code(mcp_servers),
    Part::Code(crate::gateway_route::point_codex),
    Part::Code(permissions::permissions),
    Part::RefuseDirs("add directories to a warm app-server thread"),
    Part::Extra,
];

static ARGV: &[Part] = &[
    args(&["exec"]),
    resuming![args(&["resume"])],
    args(&["--json", "--skip-git-repo-check"]),
    // `codex exec resume` rejects `--sandbox` (0.169); the config override
    // sets the same thing.
    Part::Mode(Modes {
        default: Some(Parts::Static(WORKSPACE_WRITE)),
        plan: mode![
            fresh![args(&["--sandbox", "read-only"])],
            resuming![args(&["-c", "sandbox_mode=\"read-only\""])],
        ],
        accept_edits: Some(Parts::Static(WORKSPACE_WRITE)),
        bypass: mode![args(&["--dangerously-bypass-approvals-and-sandbox"])],
    }),
    // After the mode: a file that denies writes replaces its sandbox.
    Part::Code(permissions::permissions),
    // A resumed thread does not inherit the model: pass it every time.
    optional(&["-m", "{model}"]),
    // Nor its reasoning effort.
    Part::Code(crate::reasoning::codex_effort),
    Part::Code(developer_instructions),
    Part::Code(mcp_servers),
    Part::Code(crate::gateway_route::point_codex),
    fresh![each_dir(&["--add-dir", "{dir}"])],
    Part::Code(dirs_left_out_on_resume),
    // Accepted by `codex exec` and `codex exec resume` alike; the path is
    // made absolute, since Codex runs in the request's working directory.
    optional(&["--output-schema", "{output_schema}"]),
    Part::Extra,
    optional(&["{session}"]),
    // `-` reads the prompt from stdin (argv has a per-argument size limit).
    args(&["-"]),
];

const WORKSPACE_WRITE: &[Part] = &[
    fresh![args(&["--sandbox", "workspace-write"])],
    resuming![args(&["-c", "sandbox_mode=\"workspace-write\""])],
];

/// `--system` as `-c developer_instructions=...`, a TOML string.
fn developer_instructions(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    if let Some(s) = &ctx.request.system {
        cmd.args.push(OsString::from("-c"));
        cmd.args.push(OsString::from(format!(
            "developer_instructions={}",
            toml_string(s)
        )));
    }
    Ok(())
}

/// The request's MCP servers as `-c mcp_servers.NAME.command=...` and
/// `.args=[...]` overrides (TOML values; the user's `config.toml` is not
/// touched). A server's variables go into Codex's environment and are
/// named in `.env_vars`, which passes them on to the server: values that
/// may be secrets stay out of the argv.
fn mcp_servers(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let servers = mcp::checked(ctx)?;
    let mut set: Vec<(&str, &str)> = Vec::new();
    for s in servers {
        let key = format!("mcp_servers.{}", s.name);
        let args: Vec<String> = s.args.iter().map(|a| toml_string(a)).collect();
        let mut overrides = vec![
            format!(
                "{key}.command={}",
                toml_string(&s.command.to_string_lossy())
            ),
            format!("{key}.args=[{}]", args.join(",")),
        ];
        if !s.env.is_empty() {
            let names: Vec<String> = s.env.iter().map(|(k, _)| toml_string(k)).collect();
            overrides.push(format!("{key}.env_vars=[{}]", names.join(",")));
        }
        for (k, v) in &s.env {
            match set.iter().find(|(sk, _)| sk == k) {
                Some((_, sv)) if sv != v => {
                    return Err(ctx.unsupported(format!(
                        "take two MCP servers that set `{k}` to different values (it passes them through its own environment)"
                    )));
                }
                Some(_) => {}
                None => {
                    set.push((k, v));
                    cmd.env.push((OsString::from(k), OsString::from(v)));
                }
            }
        }
        for o in overrides {
            cmd.args.push(OsString::from("-c"));
            cmd.args.push(OsString::from(o));
        }
    }
    Ok(())
}

/// `codex exec resume` has no `--add-dir` (0.169): a resumed turn runs
/// without the folders rather than not at all, and the run says which were
/// left out (as the Hi-Boss spec leaves them out).
fn dirs_left_out_on_resume(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    if ctx.resuming && !ctx.request.add_dirs.is_empty() {
        let dirs: Vec<String> = ctx
            .request
            .add_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        cmd.notices.push(format!(
            "codex: --add-dir {} left out of this resumed turn: `codex exec resume` has no --add-dir, so the folders are not made writable for it",
            dirs.join(", ")
        ));
    }
    Ok(())
}

/// Codex's `[model_providers.X]` tables name the variable holding their key
/// with `env_key = "VAR"`.
fn env_keys(p: &mut Probe<'_>) {
    let config = p.dir("CODEX_HOME", ".codex").join("config.toml");
    p.checked(config.display().to_string());
    let text = std::fs::read_to_string(&config).unwrap_or_default();
    for line in text.lines() {
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        if k.trim() != "env_key" {
            continue;
        }
        let var = v.trim().trim_matches(|c| c == '"' || c == '\'');
        if !var.is_empty() && p.var(var).is_some() {
            p.found(
                LoginState::Settings,
                format!("{} names env_key {var}, which is set", config.display()),
            );
        }
    }
}

/// A TOML basic string for `-c key=value` (Codex parses the value as TOML).
pub fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Codex's thread history: its rollout file's totals before the last turn
/// (see [`crate::session_logs::codex_totals_before_last_turn`]).
fn rollout_history(
    homes: &crate::session_logs::CliHomes,
    thread: &str,
    after: &agentgate_protocol::Usage,
) -> Option<agentgate_protocol::Usage> {
    crate::session_logs::codex_totals_before_last_turn(&homes.codex()?, thread, after)
}

/// Codex: `.agents/skills/` and `.codex/skills/` of the project, the user's `~/.agents/skills/` and `$CODEX_HOME/skills/` (`~/.codex/skills/`), and the skills it unpacks itself in `.system` there; a `$NAME` mention in the prompt invokes one.
static SKILLS: SkillFacts = SkillFacts {
    project_dirs: &[".agents/skills", ".codex/skills"],
    user_dirs: &[
        UserDir::home(".agents/skills"),
        UserDir::moved_by("CODEX_HOME", "skills", ".codex/skills"),
        UserDir {
            scope: SkillScope::System,
            ..UserDir::moved_by("CODEX_HOME", "skills/.system", ".codex/skills/.system")
        },
    ],
    invoke: SkillInvoke::Mention,
    native: Some(NativeLister::CodexAppServer),
};

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::{CODEX, toml_string};
    use crate::PermissionMode;
    use crate::provider::CliRequest;

    fn argv(r: &CliRequest) -> Vec<String> {
        crate::test_support::argv(&CODEX, r)
    }

    #[test]
    fn an_output_schema_is_passed_natively_fresh_and_on_resume() {
        let fresh = CliRequest {
            prompt: "triage".into(),
            cwd: PathBuf::from("/work"),
            output_schema: Some(PathBuf::from("/schemas/triage.json")),
            extra_args: vec!["--ephemeral".into()],
            ..CliRequest::default()
        };
        assert_eq!(
            argv(&fresh),
            [
                "exec",
                "--json",
                "--skip-git-repo-check",
                "--sandbox",
                "workspace-write",
                "--output-schema",
                "/schemas/triage.json",
                "--ephemeral",
                "-"
            ]
        );
        let resumed = CliRequest {
            resume: Some("S1".into()),
            extra_args: Vec::new(),
            ..fresh
        };
        assert_eq!(
            argv(&resumed),
            [
                "exec",
                "resume",
                "--json",
                "--skip-git-repo-check",
                "-c",
                "sandbox_mode=\"workspace-write\"",
                "--output-schema",
                "/schemas/triage.json",
                "S1",
                "-"
            ]
        );
    }

    #[test]
    fn a_resumed_run_sets_the_sandbox_through_the_config() {
        // `codex exec resume` has no `--sandbox` flag.
        let with = |mode| CliRequest {
            resume: Some("S1".into()),
            permission_mode: mode,
            ..CliRequest::default()
        };
        let plan = argv(&with(PermissionMode::Plan)).join(" ");
        assert!(plan.contains("-c sandbox_mode=\"read-only\""), "{plan}");
        assert!(!plan.contains("--sandbox"), "{plan}");
        let bypass = argv(&with(PermissionMode::Bypass));
        assert!(
            bypass.contains(&"--dangerously-bypass-approvals-and-sandbox".to_owned()),
            "{bypass:?}"
        );
        assert!(!bypass.join(" ").contains("sandbox_mode"), "{bypass:?}");
    }

    #[test]
    fn a_relative_output_schema_is_made_absolute_from_agentgates_directory() {
        let r = CliRequest {
            cwd: PathBuf::from("/elsewhere"),
            output_schema: Some(PathBuf::from("schemas/triage.json")),
            ..CliRequest::default()
        };
        let args = argv(&r);
        let at = args.iter().position(|a| a == "--output-schema").unwrap();
        let expected = std::env::current_dir().unwrap().join("schemas/triage.json");
        assert_eq!(args[at + 1], expected.to_string_lossy());
    }

    #[test]
    fn no_output_schema_flag_without_a_schema() {
        let args = argv(&CliRequest::default());
        assert!(!args.iter().any(|a| a == "--output-schema"), "{args:?}");
    }

    #[test]
    fn toml_strings_escape_quotes_backslashes_and_controls() {
        assert_eq!(
            toml_string("a \"b\" \\ c\nd\u{1}"),
            "\"a \\\"b\\\" \\\\ c\\nd\\u0001\""
        );
    }
}
