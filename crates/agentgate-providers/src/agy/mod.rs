//! Google Antigravity's CLI: `agy --print=PROMPT --print-timeout=86400s
//! [--model=M] [--dangerously-skip-permissions | --mode=plan |
//! --mode=accept-edits] [--add-dir=D]... [--conversation=ID]`.
//!
//! Built from agy's documented formats and flags and the flags public
//! wrappers use (see `crates/agentgate-fixtures/transcripts/README.md`),
//! not run against the live CLI, which cannot be installed here.
//!
//! - Every flag is written `--flag=value` (agy parses flags with Go's
//!   `flag` package; the prompt attached with `=` cannot be taken for a
//!   flag). agy has no system-prompt flag: `--system` is put in front of
//!   the prompt, followed by a blank line.
//! - `--print-timeout` defaults to five minutes. It is matched to the
//!   run's deadline (its timeout, or the limit of its extensions) plus
//!   [`PRINT_TIMEOUT_GRACE`], so that agentgate's own deadline acts first
//!   (a typed `timeout` with what agy printed) and agy still stops by
//!   itself if agentgate cannot stop it; a run without a timeout sets it to
//!   a day, so that `--idle-timeout` and the caller govern.
//! - `--model` exists in agy 1.1 and later (the ids `agy models` lists);
//!   agy 1.0 took the model from `~/.gemini/antigravity-cli/settings.json`
//!   only and rejects the flag.
//! - A fresh run passes no `--conversation` (agy mints the id; an unknown
//!   id only earns a warning and a new conversation). The id is learned
//!   after the run from agy's state folder (`transcript.rs`),
//!   with the reasoning, tool calls and token counts of the turn.

mod decode;
mod errors;
pub mod transcript;

pub use decode::AgyDecoder;
pub use errors::ERRORS;

use crate::sandbox_facts::{SandboxFacts, StatePath};
use std::ffi::OsString;
use std::time::SystemTime;

use super::argv::{Context, Modes, Part, PromptInput, args, each_dir, mode, optional};
use super::builtin::Description;
use super::login::{LoginFacts, LoginProbe, LoginState};
use super::provider::{CliCommand, CliRequest, CommandError, Features, PostRun, Verification};
use super::skills::{SkillFacts, SkillInvoke, UserDir};
use crate::decode::Decoded;

/// The longest argument Linux passes to a program (`MAX_ARG_STRLEN`, 128
/// KiB with its terminating NUL).
const MAX_ARG_BYTES: usize = 128 * 1024 - 1;

/// Antigravity's CLI.
pub static AGY: Description = Description {
    name: "agy",
    binary: "agy",
    verification: Verification::DocumentedFormat,
    features: Features {
        streaming: false,
        usage: false,
        cost: false,
        ..Features::ALL
    },
    exposes_reasoning: true,
    prompt: PromptInput::Argv,
    argv: ARGV,
    decoder: || Box::new(AgyDecoder::new()),
    post_run: Some(recovered),
    thread_history: None,
    errors: &ERRORS,
    final_record: Some("an answer on stdout"),
    skills: Some(SKILLS),
    catalog: None,
    warm: None,
    login: LoginFacts {
        probes: &[LoginProbe::Hint(".gemini/antigravity-cli")],
        otherwise: LoginState::Unknown,
    },
    permissions: crate::permissions::PermissionsWay::None,
    sandbox: SandboxFacts {
        env_allow: &["GEMINI_*", "GOOGLE_*"],
        state: &[StatePath::Home(".gemini")],
    },
};

static ARGV: &[Part] = &[
    // No per-run way to give it MCP servers: refused.
    Part::Code(super::mcp::refuse_part),
    Part::Code(crate::gateway_route::refuse_agy),
    Part::Code(print),
    Part::Code(print_timeout),
    optional(&["--model={model}"]),
    Part::Mode(Modes {
        default: mode![],
        plan: mode![args(&["--mode=plan"])],
        accept_edits: mode![args(&["--mode=accept-edits"])],
        bypass: mode![args(&["--dangerously-skip-permissions"])],
    }),
    each_dir(&["--add-dir={dir}"]),
    optional(&["--conversation={session}"]),
    Part::Extra,
];

/// How much longer than the run's deadline agy's own limit is.
pub const PRINT_TIMEOUT_GRACE: u64 = 30;

/// agy's own limit on a `--print` run when the run has no deadline: a day.
const PRINT_TIMEOUT_UNBOUNDED: u64 = 86_400;

/// `--print-timeout=Ns`: the run's deadline (whole seconds, rounded up)
/// plus [`PRINT_TIMEOUT_GRACE`], else a day.
fn print_timeout(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let secs = match ctx.request.deadline {
        Some(d) => d
            .as_secs()
            .saturating_add(u64::from(d.subsec_nanos() > 0))
            .saturating_add(PRINT_TIMEOUT_GRACE),
        None => PRINT_TIMEOUT_UNBOUNDED,
    };
    cmd.args
        .push(OsString::from(format!("--print-timeout={secs}s")));
    Ok(())
}

/// The prompt, as `--print=PROMPT`.
fn print(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let arg = print_argument(ctx.request).map_err(|what| ctx.unsupported(what))?;
    cmd.args.push(arg);
    Ok(())
}

/// The session id, reasoning, tools and usage of the turn, from agy's
/// transcript.
fn recovered(ctx: &PostRun<'_>) -> Vec<Decoded> {
    let Some(home) = ctx.home else {
        return Vec::new();
    };
    transcript::recovered(home, ctx.cwd, ctx.session_id, SystemTime::now())
}

/// `--print=PROMPT`, with the system instructions in front of the prompt.
fn print_argument(req: &CliRequest) -> Result<OsString, String> {
    let prompt = match req.system.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(system) => format!("{system}\n\n{}", req.prompt),
        None => req.prompt.clone(),
    };
    if prompt.contains('\0') {
        return Err(
            "take a prompt containing a NUL byte (the prompt is a command-line argument)".into(),
        );
    }
    let arg = format!("--print={prompt}");
    if arg.len() > MAX_ARG_BYTES {
        return Err(format!(
            "take a prompt of {} bytes: agy reads it from one command-line argument, which is limited to 128 KiB; put the material in a file and name it in the prompt",
            prompt.len()
        ));
    }
    Ok(OsString::from(arg))
}

/// agy (from Antigravity's documentation, not checked against a binary): `.agent/skills/` and `.agents/skills/` of the workspace and the user's `~/.gemini/antigravity/skills/`; agentgate writes a prompt naming the skill.
static SKILLS: SkillFacts = SkillFacts {
    project_dirs: &[".agent/skills", ".agents/skills"],
    user_dirs: &[UserDir::home(".gemini/antigravity/skills")],
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
        test_support::argv(&AGY, r)
    }

    #[test]
    fn a_fresh_run_prints_with_a_day_long_print_timeout() {
        assert_eq!(argv(&req()), ["--print=do it", "--print-timeout=86400s"]);
        let plan = AGY
            .command(&req(), Path::new("/bin/agy"), &Scratch::temporary())
            .unwrap();
        assert_eq!((plan.stdin, plan.cwd), (None, PathBuf::from("/work")));
    }

    #[test]
    fn model_modes_dirs_resume_and_system_map_onto_flags() {
        let r = CliRequest {
            model: Some("gemini-3.1-pro-high".into()),
            permission_mode: PermissionMode::Bypass,
            add_dirs: vec![PathBuf::from("/extra")],
            resume: Some("3b4a1d20-3968-4ed2-90b3-00eea3060b02".into()),
            system: Some("Be brief.".into()),
            ..req()
        };
        assert_eq!(
            argv(&r),
            [
                "--print=Be brief.\n\ndo it",
                "--print-timeout=86400s",
                "--model=gemini-3.1-pro-high",
                "--dangerously-skip-permissions",
                "--add-dir=/extra",
                "--conversation=3b4a1d20-3968-4ed2-90b3-00eea3060b02"
            ]
        );
        let mode = |m| {
            argv(&CliRequest {
                permission_mode: m,
                ..req()
            })
            .join(" ")
        };
        assert!(mode(PermissionMode::Plan).ends_with("--mode=plan"));
        assert!(mode(PermissionMode::AcceptEdits).ends_with("--mode=accept-edits"));
        assert!(!mode(PermissionMode::Default).contains("--mode"));
    }

    #[test]
    fn print_timeout_follows_the_deadline_with_a_grace() {
        let r = CliRequest {
            deadline: Some(std::time::Duration::from_millis(90_500)),
            ..req()
        };
        assert_eq!(argv(&r), ["--print=do it", "--print-timeout=121s"]);
        let r = CliRequest {
            deadline: Some(std::time::Duration::from_secs(600)),
            ..req()
        };
        assert_eq!(argv(&r)[1], "--print-timeout=630s");
    }

    #[test]
    fn a_prompt_too_long_for_one_argument_is_refused() {
        let r = CliRequest {
            prompt: "x".repeat(MAX_ARG_BYTES),
            ..req()
        };
        let err = AGY
            .command(&r, Path::new("/bin/agy"), &Scratch::temporary())
            .unwrap_err();
        assert!(
            err.to_string().starts_with("agy cannot take a prompt of"),
            "{err}"
        );
    }
}
