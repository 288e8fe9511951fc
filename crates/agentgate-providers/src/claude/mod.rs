//! Claude Code: `claude -p --output-format stream-json --verbose`, the
//! prompt on stdin.

mod catalog;
mod decode;
mod errors;

pub use decode::ClaudeDecoder;
pub use errors::ERRORS;

use crate::sandbox_facts::{SandboxFacts, StatePath};
use std::ffi::OsString;

use super::argv::{Context, Part, Parts, PromptInput, args, each_dir, env, mode_flag, optional};
use super::builtin::{Description, WarmMode};
use super::login::{LoginFacts, LoginProbe, LoginState};
use super::mcp;
use super::provider::{CliCommand, CommandError, Features, Verification, WarmWire};
use super::skills::{SkillFacts, SkillInvoke, UserDir};
use crate::PermissionMode;

/// Claude Code.
pub static CLAUDE: Description = Description {
    name: "claude",
    binary: "claude",
    verification: Verification::LiveCli,
    features: Features::ALL,
    exposes_reasoning: true,
    prompt: PromptInput::Stdin,
    argv: ARGV,
    decoder: || Box::new(ClaudeDecoder::new()),
    post_run: None,
    thread_history: None,
    errors: &ERRORS,
    final_record: Some("its closing `result` record"),
    skills: Some(SKILLS),
    catalog: Some(catalog::CATALOG),
    warm: Some(WarmMode {
        wire: WarmWire::ClaudeStreamJson,
        argv: WARM_ARGV,
        cumulative_usage: true,
        load_needs_a_later_minute: false,
    }),
    login: LoginFacts {
        probes: &[
            LoginProbe::Credentials {
                dir_var: Some("CLAUDE_CONFIG_DIR"),
                dir: ".claude",
                file: ".credentials.json",
            },
            LoginProbe::ApiKey("ANTHROPIC_API_KEY"),
        ],
        otherwise: LoginState::NoneFound,
    },
    permissions: crate::permissions::PermissionsWay::ClaudeSettings,
    sandbox: SandboxFacts {
        env_allow: &[
            "ANTHROPIC_*",
            "CLAUDE_*",
            "DISABLE_*",
            "IS_SANDBOX",
            "MAX_THINKING_TOKENS",
            "MCP_TIMEOUT",
            "MCP_TOOL_TIMEOUT",
            "BASH_DEFAULT_TIMEOUT_MS",
            "BASH_MAX_TIMEOUT_MS",
            "BASH_MAX_OUTPUT_LENGTH",
        ],
        // Its global config (`.claude.json`) is kept in this folder too
        // under a sandbox, which sets `CLAUDE_CONFIG_DIR` (the CLI rewrites
        // the file by a rename beside it: in `HOME` otherwise).
        state: &[StatePath::Var {
            var: "CLAUDE_CONFIG_DIR",
            default: ".claude",
        }],
    },
};

static ARGV: &[Part] = &[
    args(&["-p", "--output-format", "stream-json", "--verbose"]),
    Part::Shared(Parts::Static(SHARED)),
];

/// What the one-shot and the long-lived command lines share.
static SHARED: &[Part] = &[
    // Before a flag: `--mcp-config` and `--allowedTools` take every word
    // after them.
    Part::Code(mcp_servers),
    mode_flag(
        "--permission-mode",
        ["default", "plan", "acceptEdits", "bypassPermissions"],
    ),
    optional(&["--model", "{model}"]),
    Part::Code(crate::reasoning::claude_knobs),
    optional(&["--append-system-prompt", "{system}"]),
    each_dir(&["--add-dir", "{dir}"]),
    optional(&["--resume", "{session}"]),
    Part::Extra,
    env("CLAUDE_CODE_MAX_RETRIES", "{max_retries}"),
    Part::Code(sandbox_when_root),
    Part::Code(crate::gateway_route::point_claude),
];

/// The long-lived mode: user messages as JSON lines on stdin; in
/// `--permission-mode ask`, tool calls asked about on stdio.
static WARM_ARGV: &[Part] = &[
    args(&[
        "-p",
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
    ]),
    Part::Code(ask_on_stdio),
    Part::Shared(Parts::Static(SHARED)),
];

fn ask_on_stdio(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    if ctx.request.permission_mode == PermissionMode::Ask {
        cmd.args.push(OsString::from("--permission-prompt-tool"));
        cmd.args.push(OsString::from("stdio"));
    }
    Ok(())
}

/// Claude refuses bypassPermissions as root unless it is told it runs in a
/// sandbox. The caller asked for bypass explicitly, and agentgate runs
/// agents unattended (containers run as root), so say so.
fn sandbox_when_root(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    if ctx.request.permission_mode == PermissionMode::Bypass && nix::unistd::geteuid().is_root() {
        cmd.env
            .push((OsString::from("IS_SANDBOX"), OsString::from("1")));
    }
    Ok(())
}

/// The request's MCP servers: a config file in the run's folder
/// (`--mcp-config FILE`), `--strict-mcp-config` so the user's own servers
/// are not loaded, and their tools allowed (`--allowedTools mcp__NAME`
/// allows every tool of server NAME; without it, `-p` in the default mode
/// refuses a call, since no one is there to approve it).
fn mcp_servers(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let servers = mcp::checked(ctx)?;
    if servers.is_empty() {
        return Ok(());
    }
    let config = serde_json::json!({
        "mcpServers": mcp::mcp_servers_object(servers, &serde_json::Map::new())
    });
    let path = mcp::write_config(&ctx.scratch.path()?, "claude-mcp", &config)?;
    let allowed: Vec<String> = servers.iter().map(|s| format!("mcp__{}", s.name)).collect();
    cmd.args.push(OsString::from("--mcp-config"));
    cmd.args.push(path.as_os_str().to_owned());
    cmd.args.push(OsString::from("--strict-mcp-config"));
    cmd.args.push(OsString::from("--allowedTools"));
    cmd.args.push(OsString::from(allowed.join(",")));
    cmd.files.push(path);
    Ok(())
}

/// Claude Code: `.claude/skills/` of the project (nested folders only when working there), and the user's `~/.claude/skills/`, which `CLAUDE_CONFIG_DIR` replaces by `$CLAUDE_CONFIG_DIR/skills`; `-p "/NAME ARGS"` invokes one.
static SKILLS: SkillFacts = SkillFacts {
    project_dirs: &[".claude/skills"],
    user_dirs: &[UserDir::moved_by(
        "CLAUDE_CONFIG_DIR",
        "skills",
        ".claude/skills",
    )],
    invoke: SkillInvoke::Slash,
    native: None,
};
