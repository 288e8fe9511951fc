//! opencode: `opencode run --format json --thinking --print-logs --log-level
//! ERROR --title "" [--agent plan] [--auto] [-m MODEL] [-s SESSION]`, the
//! prompt on stdin (opencode reads stdin when it is not a terminal; a
//! message in argv would have its words re-joined and quoted).
//!
//! - `--print-logs --log-level ERROR` puts opencode's error log on stderr:
//!   the only place it says that a model request failed and is being
//!   retried, and what an "Unexpected server error" was.
//! - `--title ""` names a new session after the start of the prompt instead
//!   of asking the model for a title: that request's tokens are reported
//!   nowhere.
//! - Permission modes are opencode's `permission` config, set through
//!   `OPENCODE_PERMISSION` (merged over the config files, key by key):
//!   `default` asks for `edit` and `bash` and `acceptEdits` asks for `bash`
//!   (an unattended `opencode run` refuses what asks); `plan` runs the
//!   read-only `plan` agent with `edit` and `bash` denied (the tools are not
//!   even offered); `bypass` passes `--auto`, which approves whatever asks
//!   (what the config denies stays denied). `--add-dir` directories are
//!   allowed as `external_directory`. An agent's permissions file adds its
//!   rules (`deny` wins; an `allow` never lifts the mode's `deny`; never
//!   `ask`). An `OPENCODE_PERMISSION` given with `--env` replaces the
//!   mode's and the file's (a notice says the file was not applied).
//! - System instructions go to a file in the run's folder, listed in the
//!   `instructions` of `OPENCODE_CONFIG_CONTENT` (appended to opencode's
//!   system prompt, after its own and the project's instructions).
//! - The model is `-m provider/model`, passed as given.
//! - Sessions live in opencode's SQLite database
//!   (`$XDG_DATA_HOME/opencode/opencode.db`, `opencode export <id>` prints
//!   one); `-s ID` of a session that is not there exits 1 with "Session not
//!   found".
//! - Warm sessions and mode `ask` run `opencode acp` instead (`warm.rs`).

mod catalog;
mod config;
mod decode;
mod errors;
mod unfinished;
mod warm;

pub use catalog::parse_models;
pub use decode::{MAX_RETRIES, OpencodeDecoder};
pub use errors::ERRORS;

use crate::sandbox_facts::{SandboxFacts, StatePath};
use serde_json::Map;

use super::argv::{Context, Modes, Part, PromptInput, args, mode, optional};
use super::builtin::{Description, WarmMode};
use super::login::{LoginFacts, LoginProbe, LoginState, Probe};
use super::provider::{CliCommand, CommandError, Features, Verification, WarmWire};
use super::skills::{SkillFacts, SkillInvoke, UserDir};
use config::{Bypass, private_tmpdir, set_config_content, set_permissions};

/// opencode.
pub static OPENCODE: Description = Description {
    name: "opencode",
    binary: "opencode",
    verification: Verification::LiveCli,
    features: Features::ALL,
    exposes_reasoning: true,
    prompt: PromptInput::Stdin,
    argv: ARGV,
    decoder: || Box::new(OpencodeDecoder::new()),
    post_run: None,
    thread_history: None,
    errors: &ERRORS,
    final_record: Some("a `step_finish` record that ends the turn"),
    skills: Some(SKILLS),
    catalog: Some(catalog::CATALOG),
    warm: Some(WarmMode {
        wire: WarmWire::OpencodeAcp,
        argv: warm::WARM_ARGV,
        cumulative_usage: false,
        load_needs_a_later_minute: false,
    }),
    login: LoginFacts {
        probes: &[
            LoginProbe::Credentials {
                dir_var: Some("XDG_DATA_HOME"),
                dir: ".local/share",
                file: "opencode/auth.json",
            },
            LoginProbe::Code(config_api_keys),
        ],
        // opencode also reads each model provider's own variables; nothing
        // found is therefore not conclusive.
        otherwise: LoginState::Unknown,
    },
    permissions: crate::permissions::PermissionsWay::OpencodeRules,
    sandbox: SandboxFacts {
        env_allow: &["OPENCODE_*", "XDG_*", "npm_config_cache"],
        state: &[
            StatePath::Xdg {
                var: "XDG_DATA_HOME",
                default: ".local/share",
                sub: "opencode",
            },
            StatePath::Xdg {
                var: "XDG_CONFIG_HOME",
                default: ".config",
                sub: "opencode",
            },
            StatePath::Xdg {
                var: "XDG_CACHE_HOME",
                default: ".cache",
                sub: "opencode",
            },
            StatePath::Xdg {
                var: "XDG_STATE_HOME",
                default: ".local/state",
                sub: "opencode",
            },
            // It installs its provider packages with npm at first run.
            StatePath::Var {
                var: "npm_config_cache",
                default: ".npm",
            },
        ],
    },
};

static ARGV: &[Part] = &[
    args(&[
        "run",
        "--format",
        "json",
        "--thinking",
        "--print-logs",
        "--log-level",
        "ERROR",
        "--title",
        "",
    ]),
    Part::Mode(Modes {
        default: mode![],
        plan: mode![args(&["--agent", "plan"])],
        accept_edits: mode![],
        bypass: mode![args(&["--auto"])],
    }),
    optional(&["-m", "{model}"]),
    Part::Code(crate::reasoning::opencode_variant),
    optional(&["-s", "{session}"]),
    Part::Extra,
    // The mode's rules and the extra directories (`--add-dir`).
    Part::Code(permissions),
    Part::Code(config_content),
    // After `config_content`: merged over the value it sets.
    Part::Code(crate::gateway_route::point_opencode),
    Part::Code(private_tmpdir),
];

/// `OPENCODE_PERMISSION`: the mode's rules and the extra directories,
/// merged over the inherited value; an explicit `--env` one wins.
fn permissions(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    set_permissions(ctx, cmd, Bypass::Flag)
}

/// `OPENCODE_CONFIG_CONTENT`, merged over the inherited value: `--system`
/// as a file in the run's folder listed in its `instructions`, and the
/// request's MCP servers as its `mcp` (local servers).
fn config_content(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    set_config_content(ctx, cmd, Map::new(), Vec::new())
}

/// opencode's config files may give a provider's `apiKey`.
fn config_api_keys(p: &mut Probe<'_>) {
    let config = p.dir("XDG_CONFIG_HOME", ".config").join("opencode");
    let mut files = vec![config.join("opencode.json"), config.join("opencode.jsonc")];
    if let Some(f) = p.var("OPENCODE_CONFIG") {
        files.push(f.into());
    }
    for f in files {
        p.checked(f.display().to_string());
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        if text.contains("\"apiKey\"") {
            p.found(
                LoginState::Settings,
                format!("{} gives a provider apiKey", f.display()),
            );
        }
    }
}

/// opencode: `.opencode/skills/`, `.claude/skills/` and `.agents/skills/` of the project, the user's `$XDG_CONFIG_HOME/opencode/skills/`; `run --command NAME` invokes one, the prompt being its arguments.
static SKILLS: SkillFacts = SkillFacts {
    project_dirs: &[".opencode/skills", ".claude/skills", ".agents/skills"],
    user_dirs: &[UserDir::moved_by(
        "XDG_CONFIG_HOME",
        "opencode/skills",
        ".config/opencode/skills",
    )],
    invoke: SkillInvoke::CommandFlag("--command"),
    native: None,
};

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use serde_json::{Value, json};

    use super::config::{CONFIG_ENV, PERMISSION_ENV, merge_into, own_env};

    use super::*;
    use crate::PermissionMode;
    use crate::provider::{CliRequest, Provider};

    fn req() -> CliRequest {
        CliRequest {
            prompt: "do \"it\" now".into(),
            cwd: PathBuf::from("/work"),
            env_clear: true,
            ..CliRequest::default()
        }
    }

    fn plan(r: &CliRequest, scratch: &Path) -> CliCommand {
        OPENCODE
            .command(r, Path::new("/bin/opencode"), &scratch.into())
            .unwrap()
    }

    fn env_of(p: &CliCommand, key: &str) -> Option<Value> {
        p.env
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| serde_json::from_str(&v.to_string_lossy()).unwrap())
    }

    const BASE: [&str; 9] = [
        "run",
        "--format",
        "json",
        "--thinking",
        "--print-logs",
        "--log-level",
        "ERROR",
        "--title",
        "",
    ];

    #[test]
    fn the_prompt_goes_on_stdin_and_default_asks_for_edits_and_commands() {
        let p = plan(&req(), &std::env::temp_dir());
        assert_eq!(p.display_args(), BASE);
        assert_eq!(p.stdin.as_deref(), Some(&b"do \"it\" now"[..]));
        assert_eq!(p.cwd, PathBuf::from("/work"));
        assert_eq!(
            env_of(&p, PERMISSION_ENV),
            Some(json!({"edit": "ask", "bash": "ask"}))
        );
        assert!(p.files.is_empty());
    }

    #[test]
    fn model_resume_and_extra_args_map_to_flags() {
        let r = CliRequest {
            model: Some("fake/fake-model".into()),
            resume: Some("ses_1".into()),
            extra_args: vec!["--variant".into(), "high".into()],
            ..req()
        };
        let args = plan(&r, &std::env::temp_dir()).display_args();
        assert_eq!(
            &args[BASE.len()..],
            ["-m", "fake/fake-model", "-s", "ses_1", "--variant", "high"]
        );
        // A bare model name is passed as it is.
        let r = CliRequest {
            model: Some("fake-model".into()),
            ..req()
        };
        assert_eq!(
            &plan(&r, &std::env::temp_dir()).display_args()[BASE.len()..],
            ["-m", "fake-model"]
        );
    }

    #[test]
    fn permission_modes() {
        let with = |mode| {
            plan(
                &CliRequest {
                    permission_mode: mode,
                    ..req()
                },
                &std::env::temp_dir(),
            )
        };
        let p = with(PermissionMode::Plan);
        assert_eq!(&p.display_args()[BASE.len()..], ["--agent", "plan"]);
        assert_eq!(
            env_of(&p, PERMISSION_ENV),
            Some(json!({"edit": "deny", "bash": "deny"}))
        );
        let p = with(PermissionMode::AcceptEdits);
        assert_eq!(p.display_args(), BASE);
        assert_eq!(
            env_of(&p, PERMISSION_ENV),
            Some(json!({"edit": "allow", "bash": "ask"}))
        );
        let p = with(PermissionMode::Bypass);
        assert_eq!(&p.display_args()[BASE.len()..], ["--auto"]);
        assert_eq!(env_of(&p, PERMISSION_ENV), None);
    }

    #[test]
    fn extra_dirs_are_allowed_external_directories() {
        let r = CliRequest {
            permission_mode: PermissionMode::Bypass,
            add_dirs: vec![PathBuf::from("/extra/"), PathBuf::from("/more")],
            ..req()
        };
        assert_eq!(
            env_of(&plan(&r, &std::env::temp_dir()), PERMISSION_ENV),
            Some(json!({"external_directory": {
                "/extra": "allow", "/extra/*": "allow", "/more": "allow", "/more/*": "allow"
            }}))
        );
    }

    #[test]
    fn system_instructions_are_a_file_listed_in_the_config_content() {
        let dir = tempfile::tempdir().unwrap();
        let r = CliRequest {
            system: Some("Always cite MARKER.".into()),
            ..req()
        };
        let p = plan(&r, dir.path());
        let config = env_of(&p, CONFIG_ENV).unwrap();
        let listed = config["instructions"][0].as_str().unwrap();
        assert_eq!(p.files, [PathBuf::from(listed)]);
        assert!(Path::new(listed).starts_with(dir.path()));
        assert_eq!(
            std::fs::read_to_string(listed).unwrap(),
            "Always cite MARKER."
        );
        // Another text gets another file: runs sharing a folder never mix.
        let other = plan(
            &CliRequest {
                system: Some("Other.".into()),
                ..req()
            },
            dir.path(),
        );
        assert_ne!(other.files, p.files);
    }

    #[test]
    fn inherited_config_is_merged_and_an_explicit_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = CliRequest {
            system: Some("S".into()),
            ..req()
        };
        // --env sets it: the plan's value would be overridden, so say so.
        r.env = vec![(CONFIG_ENV.into(), r#"{"instructions":["a.md"]}"#.into())];
        let err = OPENCODE
            .command(&r, Path::new("/bin/opencode"), &dir.path().into())
            .unwrap_err();
        assert!(err.to_string().contains(CONFIG_ENV), "{err}");
        let merged = merge_into(
            Some(r#"{"instructions":["a.md"],"model":"x/y","permission":{"read":"allow"}}"#.into()),
            serde_json::from_value(
                json!({"instructions": ["b.md"], "permission": {"bash": "ask"}}),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&merged).unwrap(),
            json!({"instructions": ["a.md", "b.md"], "model": "x/y",
                   "permission": {"read": "allow", "bash": "ask"}})
        );
        assert!(merge_into(Some("[1]".into()), Map::new()).is_err());
        assert_eq!(merge_into(Some(" ".into()), Map::new()).unwrap(), "{}");
    }

    #[test]
    fn an_explicit_permission_env_replaces_the_modes() {
        let mut r = req();
        r.env = vec![(PERMISSION_ENV.into(), r#"{"bash":"allow"}"#.into())];
        assert_eq!(
            env_of(&plan(&r, &std::env::temp_dir()), PERMISSION_ENV),
            None
        );
        assert_eq!(own_env(&r, PERMISSION_ENV), None, "a cleared environment");
    }

    #[test]
    fn a_permissions_file_adds_denies_and_never_lifts_a_modes_deny() {
        let dir = tempfile::tempdir().unwrap();
        let file = crate::permissions::Permissions::from_value(
            json!({"deny": ["shell"], "allow": ["write", "web"]}),
        )
        .unwrap();
        let mut r = req();
        r.permissions = Some(file.clone());
        // Bypass passes --auto and sets no rules: the file's are the rules.
        r.permission_mode = PermissionMode::Bypass;
        let p = plan(&r, dir.path());
        assert_eq!(
            env_of(&p, PERMISSION_ENV).unwrap(),
            json!({"bash": "deny", "edit": "allow", "webfetch": "allow", "websearch": "allow"})
        );
        assert!(
            p.notices.iter().all(|n| !n.contains("not applied")),
            "{:?}",
            p.notices
        );
        // Plan denies edit: the file's allow does not lift it.
        r.permission_mode = PermissionMode::Plan;
        let p = plan(&r, dir.path());
        let rules = env_of(&p, PERMISSION_ENV).unwrap();
        assert_eq!(rules["edit"], "deny");
        assert_eq!(rules["bash"], "deny");
        assert!(!rules.to_string().contains("\"ask\""), "{rules}");
        // Default asks for edit: the file's allow replaces the ask.
        r.permission_mode = PermissionMode::Default;
        let rules = env_of(&plan(&r, dir.path()), PERMISSION_ENV).unwrap();
        assert_eq!(rules["edit"], "allow");
        assert_eq!(rules["bash"], "deny");
        // An explicit OPENCODE_PERMISSION wins, and the file is said not applied.
        r.env
            .push((PERMISSION_ENV.into(), r#"{"bash": "allow"}"#.into()));
        let p = plan(&r, dir.path());
        assert!(
            p.notices
                .iter()
                .any(|n| n.contains("permissions file was not applied")),
            "{:?}",
            p.notices
        );
    }
}
