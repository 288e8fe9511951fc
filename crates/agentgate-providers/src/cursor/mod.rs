//! Cursor's agent CLI: `cursor-agent --print --output-format stream-json
//! --workspace W --trust [--force --approve-mcps | --mode plan] [--model M]
//! [--resume ID] PROMPT`.
//!
//! Built from cursor-agent's documented formats and flags (see
//! `crates/agentgate-fixtures/transcripts/README.md`), not run against the
//! live CLI, which cannot be installed here.
//!
//! - The prompt is the last argument, as the docs show; cursor-agent has no
//!   system-prompt flag, so `--system` is put in front of the prompt,
//!   followed by a blank line. A prompt starting with `-` gets a leading
//!   space so the CLI does not read it as a flag.
//! - `--trust` is always given (headless runs refuse an untrusted folder).
//!   With it alone cursor-agent reads and edits files and has shell
//!   commands rejected: that is both `default` and `acceptEdits`. `plan` is
//!   `--mode plan`; `bypass` is `--force` (every command allowed unless the
//!   config denies it) with `--approve-mcps`.
//! - cursor-agent has no option for directories beyond `--workspace`, so
//!   `--add-dir` is refused rather than silently dropped.

mod catalog;
mod decode;
mod errors;

pub use catalog::parse_models;
pub use decode::CursorDecoder;
pub use errors::ERRORS;

use crate::sandbox_facts::{SandboxFacts, StatePath};
use std::ffi::OsString;

use super::argv::{Context, Modes, Part, PromptInput, args, mode, optional};
use super::builtin::Description;
use super::login::{LoginFacts, LoginProbe, LoginState};
use super::provider::{CliCommand, CliRequest, CommandError, Features, Verification};
use super::skills::{SkillFacts, SkillInvoke, UserDir};

/// The longest argument Linux passes to a program (`MAX_ARG_STRLEN`, 128
/// KiB with its terminating NUL).
const MAX_ARG_BYTES: usize = 128 * 1024 - 1;

/// cursor-agent.
pub static CURSOR: Description = Description {
    name: "cursor",
    binary: "cursor-agent",
    verification: Verification::DocumentedFormat,
    features: Features {
        cost: false,
        ..Features::ALL
    },
    exposes_reasoning: true,
    prompt: PromptInput::Argv,
    argv: ARGV,
    decoder: || Box::new(CursorDecoder::new()),
    post_run: None,
    thread_history: None,
    errors: &ERRORS,
    final_record: Some("its closing `result` record"),
    skills: Some(SKILLS),
    catalog: Some(catalog::CATALOG),
    warm: None,
    login: LoginFacts {
        probes: &[
            LoginProbe::ApiKey("CURSOR_API_KEY"),
            // The CLI's config, which may or may not hold the login.
            LoginProbe::Hint(".cursor/cli-config.json"),
        ],
        otherwise: LoginState::Unknown,
    },
    permissions: crate::permissions::PermissionsWay::None,
    sandbox: SandboxFacts {
        env_allow: &["CURSOR_*"],
        state: &[StatePath::Home(".cursor")],
    },
};

static ARGV: &[Part] = &[
    // No per-run way to give it MCP servers: refused.
    Part::Code(super::mcp::refuse_part),
    Part::Code(crate::gateway_route::refuse_cursor),
    Part::RefuseDirs(
        "use --add-dir: cursor-agent works in its --workspace only; run from a --cwd that contains every directory the agent needs",
    ),
    args(&[
        "--print",
        "--output-format",
        "stream-json",
        "--workspace",
        "{cwd}",
        "--trust",
    ]),
    Part::Mode(Modes {
        default: mode![],
        plan: mode![args(&["--mode", "plan"])],
        accept_edits: mode![],
        bypass: mode![args(&["--force", "--approve-mcps"])],
    }),
    optional(&["--model", "{model}"]),
    optional(&["--resume", "{session}"]),
    Part::Extra,
    Part::Code(prompt),
];

/// The prompt, the last argument.
fn prompt(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    cmd.args.push(OsString::from(
        prompt_argument(ctx.request).map_err(|what| ctx.unsupported(what))?,
    ));
    Ok(())
}

/// The prompt as cursor-agent's last argument, with the system
/// instructions in front.
fn prompt_argument(req: &CliRequest) -> Result<String, String> {
    let mut prompt = match req.system.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(system) => format!("{system}\n\n{}", req.prompt),
        None => req.prompt.clone(),
    };
    if prompt.starts_with('-') {
        prompt.insert(0, ' ');
    }
    if prompt.contains('\0') {
        return Err(
            "take a prompt containing a NUL byte (the prompt is a command-line argument)".into(),
        );
    }
    if prompt.len() > MAX_ARG_BYTES {
        return Err(format!(
            "take a prompt of {} bytes: cursor-agent reads it from one command-line argument, which is limited to 128 KiB; put the material in a file and name it in the prompt",
            prompt.len()
        ));
    }
    Ok(prompt)
}

/// cursor-agent (from its documentation, not checked against a binary): `.cursor/skills/`, `.claude/skills/`, `.codex/skills/`, `.agents/skills/` of the project and the user's `~/.cursor/skills/`, `~/.claude/skills/`, `~/.codex/skills/`; its `/name` is documented for chat only, so agentgate writes a prompt naming the skill.
static SKILLS: SkillFacts = SkillFacts {
    project_dirs: &[
        ".cursor/skills",
        ".claude/skills",
        ".codex/skills",
        ".agents/skills",
    ],
    user_dirs: &[
        UserDir::home(".cursor/skills"),
        UserDir::home(".claude/skills"),
        UserDir::home(".codex/skills"),
    ],
    invoke: SkillInvoke::Prompt,
    native: None,
};

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::PermissionMode;
    use crate::Scratch;
    use crate::provider::Provider;
    use crate::test_support::{self, req};

    fn argv(r: &CliRequest) -> Vec<String> {
        test_support::argv(&CURSOR, r)
    }

    #[test]
    fn a_fresh_run_prints_stream_json_in_a_trusted_workspace() {
        assert_eq!(
            argv(&req()),
            [
                "--print",
                "--output-format",
                "stream-json",
                "--workspace",
                "/work",
                "--trust",
                "do it"
            ]
        );
        let plan = CURSOR
            .command(
                &req(),
                Path::new("/bin/cursor-agent"),
                &Scratch::temporary(),
            )
            .unwrap();
        assert_eq!(plan.stdin, None);
        assert_eq!(plan.cwd, PathBuf::from("/work"));
    }

    #[test]
    fn model_resume_modes_and_system_map_onto_flags() {
        let r = CliRequest {
            model: Some("sonnet-4.5".into()),
            resume: Some("c6b62c6f".into()),
            system: Some("Be brief.".into()),
            permission_mode: PermissionMode::Bypass,
            extra_args: vec!["--sandbox".into(), "disabled".into()],
            ..req()
        };
        assert_eq!(
            argv(&r),
            [
                "--print",
                "--output-format",
                "stream-json",
                "--workspace",
                "/work",
                "--trust",
                "--force",
                "--approve-mcps",
                "--model",
                "sonnet-4.5",
                "--resume",
                "c6b62c6f",
                "--sandbox",
                "disabled",
                "Be brief.\n\ndo it"
            ]
        );
        let plan = CliRequest {
            permission_mode: PermissionMode::Plan,
            ..req()
        };
        assert!(argv(&plan).join(" ").contains("--trust --mode plan do it"));
        let edits = CliRequest {
            permission_mode: PermissionMode::AcceptEdits,
            ..req()
        };
        assert!(!argv(&edits).iter().any(|a| a == "--force" || a == "--mode"));
    }

    #[test]
    fn prompts_that_look_like_flags_or_do_not_fit_are_handled() {
        let dash = CliRequest {
            prompt: "--help me".into(),
            ..req()
        };
        assert_eq!(argv(&dash).last().map(String::as_str), Some(" --help me"));
        let huge = CliRequest {
            prompt: "x".repeat(MAX_ARG_BYTES + 1),
            ..req()
        };
        let err = CURSOR
            .command(&huge, Path::new("/bin/cursor-agent"), &Scratch::temporary())
            .unwrap_err();
        assert!(err.to_string().contains("128 KiB"), "{err}");
        let dirs = CliRequest {
            add_dirs: vec![PathBuf::from("/extra")],
            ..req()
        };
        let err = CURSOR
            .command(&dirs, Path::new("/bin/cursor-agent"), &Scratch::temporary())
            .unwrap_err();
        assert!(
            err.to_string().starts_with("cursor cannot use --add-dir"),
            "{err}"
        );
    }
}
