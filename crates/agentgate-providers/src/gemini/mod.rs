//! Gemini CLI: `gemini --output-format stream-json -p ""` with the prompt on
//! stdin (the CLI appends `-p`'s text to its stdin).

mod catalog;
mod decode;
mod errors;
mod mcp_home;
mod retry_notice;
pub mod session;

use crate::sandbox_facts::{SandboxFacts, StatePath};
pub use decode::GeminiDecoder;
pub use errors::ERRORS;
use session::recovered_thoughts;

use std::ffi::OsString;

use super::argv::{Context, Modes, Part, PromptInput, args, each_dir, mode, optional};
use super::builtin::{Description, WarmMode};
use super::login::{LoginFacts, LoginProbe, LoginState};
use super::provider::{CliCommand, CommandError, Features, PostRun, Verification, WarmWire};
use super::skills::{SkillFacts, SkillInvoke, UserDir};
use crate::decode::Decoded;

/// Gemini CLI.
pub static GEMINI: Description = Description {
    name: "gemini",
    binary: "gemini",
    verification: Verification::LiveCli,
    features: Features {
        cost: false,
        ..Features::ALL
    },
    exposes_reasoning: true,
    prompt: PromptInput::Stdin,
    argv: ARGV,
    decoder: || Box::new(GeminiDecoder::new()),
    post_run: Some(thoughts),
    thread_history: None,
    errors: &ERRORS,
    final_record: Some("its closing `result` record"),
    skills: Some(SKILLS),
    catalog: Some(catalog::CATALOG),
    warm: Some(WarmMode {
        wire: WarmWire::Acp,
        argv: WARM_ARGV,
        cumulative_usage: false,
        load_needs_a_later_minute: true,
    }),
    login: LoginFacts {
        probes: &[
            LoginProbe::Credentials {
                dir_var: None,
                dir: ".gemini",
                file: "oauth_creds.json",
            },
            LoginProbe::ApiKey("GEMINI_API_KEY"),
            LoginProbe::ApiKey("GOOGLE_API_KEY"),
            LoginProbe::AuthType(".gemini/settings.json"),
        ],
        otherwise: LoginState::NoneFound,
    },
    permissions: crate::permissions::PermissionsWay::GeminiSettings,
    sandbox: SandboxFacts {
        env_allow: &["GEMINI_*", "GOOGLE_*"],
        state: &[StatePath::Home(".gemini")],
    },
};

/// The approval mode's flags (in `ask`, the default, in which it asks).
const MODES: Part = Part::Mode(Modes {
    default: mode![args(&["--approval-mode", "default"])],
    plan: mode![args(&["--approval-mode", "plan"])],
    accept_edits: mode![args(&["--approval-mode", "auto_edit", "--skip-trust"])],
    bypass: mode![args(&["--approval-mode", "yolo", "--skip-trust"])],
});

static ARGV: &[Part] = &[
    args(&["--output-format", "stream-json"]),
    Part::Code(mcp_home::mcp_home),
    MODES,
    optional(&["-m", "{model}"]),
    optional(&["--resume", "{session}"]),
    each_dir(&["--include-directories", "{dir}"]),
    Part::Extra,
    // Headless mode with the prompt on stdin: an empty `-p`.
    args(&["-p", ""]),
    Part::Code(system_file),
    Part::Code(crate::gateway_route::point_gemini),
];

/// `--acp`: the session (new or loaded) and the turns go over the wire.
static WARM_ARGV: &[Part] = &[
    args(&["--acp"]),
    Part::Code(mcp_home::mcp_home),
    MODES,
    optional(&["-m", "{model}"]),
    each_dir(&["--include-directories", "{dir}"]),
    Part::Extra,
    Part::Code(system_file),
    Part::Code(crate::gateway_route::point_gemini),
];

/// `--system` replaces Gemini's system prompt through a file that
/// `GEMINI_SYSTEM_MD` names, written in the run's folder.
fn system_file(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let Some(s) = &ctx.request.system else {
        return Ok(());
    };
    let path = ctx.scratch.path()?.join("gemini-system.md");
    std::fs::write(&path, s).map_err(|source| CommandError::Write {
        path: path.clone(),
        source,
    })?;
    cmd.env.push((
        OsString::from("GEMINI_SYSTEM_MD"),
        path.as_os_str().to_owned(),
    ));
    cmd.files.push(path);
    Ok(())
}

/// Gemini's thoughts, which only its session file holds.
fn thoughts(ctx: &PostRun<'_>) -> Vec<Decoded> {
    ctx.session_in(".gemini")
        .map(|(id, dir)| recovered_thoughts(&dir, id))
        .unwrap_or_default()
}

/// Gemini CLI: `.agents/skills/` (wins) and `.gemini/skills/` of the project and of the user's home (`GEMINI_CLI_HOME` moves it); headless Gemini has no invocation of its own (the model calls `activate_skill`), so agentgate writes a prompt naming the skill.
static SKILLS: SkillFacts = SkillFacts {
    project_dirs: &[".agents/skills", ".gemini/skills"],
    user_dirs: &[
        UserDir::moved_by("GEMINI_CLI_HOME", ".agents/skills", ".agents/skills"),
        UserDir::moved_by("GEMINI_CLI_HOME", ".gemini/skills", ".gemini/skills"),
    ],
    invoke: SkillInvoke::Prompt,
    native: None,
};
