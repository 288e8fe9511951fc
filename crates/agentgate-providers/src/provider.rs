//! What every provider is: the [`Provider`] trait, the request of one
//! invocation and the command line it becomes, and finding a CLI's
//! executable.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use super::catalog::CatalogSource;
use super::login::LoginFacts;
use super::mcp_server::McpServer;
use super::scratch::{Scratch, ScratchError};
use super::skills::{GENERIC_SKILLS, SkillFacts};
use crate::PermissionMode;
use crate::classify::{GENERIC, ProviderTable};
use crate::decode::{Decoded, Decoder};

/// What one CLI invocation is asked: the prompt, model, session, folders
/// and settings a provider turns into a command line. (A run asked for as
/// data, the engine's `agentgate_core::RunRequest`, is planned
/// into steps first; each attempt of a step makes one of these.)
#[derive(Debug, Clone, Default)]
pub struct CliRequest {
    /// The prompt.
    pub prompt: String,
    /// The model, as the provider names it; the CLI's default when `None`.
    pub model: Option<String>,
    /// What the agent may do.
    pub permission_mode: PermissionMode,
    /// Instructions appended to the CLI's system prompt.
    pub system: Option<String>,
    /// Extra directories the agent may read and write.
    pub add_dirs: Vec<PathBuf>,
    /// The working directory.
    pub cwd: PathBuf,
    /// The provider's native session id to resume.
    pub resume: Option<String>,
    /// Bound on the CLI's own retries of failed model requests, where the CLI
    /// has a setting for it.
    pub max_provider_retries: Option<u32>,
    /// Extra arguments appended to the CLI's argv.
    pub extra_args: Vec<String>,
    /// Extra environment for the CLI.
    pub env: Vec<(String, String)>,
    /// Start the CLI from an empty environment plus `env` (instead of
    /// agentgate's own environment plus `env`).
    pub env_clear: bool,
    /// A JSON Schema file the answer must satisfy; adapters whose CLI can
    /// enforce one natively (Codex `--output-schema`) pass it on.
    pub output_schema: Option<PathBuf>,
    /// MCP servers the CLI starts for this invocation only (see
    /// the `mcp` module); a CLI with no way to take them refuses the request.
    pub mcp_servers: Vec<McpServer>,
    /// The agent's permissions file, read: applied the CLI's way, or said
    /// not to be (a `status` notice).
    pub permissions: Option<crate::permissions::Permissions>,
    /// Variables of agentgate's environment the CLI must not inherit
    /// (`env_remove`: a provider-home override such as `CLAUDE_CONFIG_DIR`).
    pub env_remove: Vec<String>,
    /// How hard the model thinks: a level of
    /// `reasoning::EFFORT_LEVELS`, for the CLIs with a knob for it
    /// (see the `reasoning` module); the planner clears it for the others.
    pub reasoning_effort: Option<String>,
    /// A thinking budget in tokens, for the CLIs with a knob for it.
    pub thinking_budget: Option<u32>,
    /// The most turns the agent may take (Claude Code's `--max-turns`).
    pub max_turns: Option<u32>,
    /// The longest the run's deadline lets this invocation go on (its
    /// timeout, or the limit of its extensions), for a CLI with a limit of
    /// its own to match (agy's `--print-timeout`); `None`: no deadline.
    pub deadline: Option<std::time::Duration>,
    /// The run's model gateway: the CLI is pointed at it (its base URL in
    /// place of the upstream's, the stub in place of the real key) and the
    /// variables that may hold the real key are kept from it (see
    /// [`CliCommand::env_remove`]); `None`: no gateway.
    pub gateway: Option<crate::GatewayTarget>,
}

/// The command line a provider builds for one invocation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// Environment variables to set (on top of agentgate's own environment).
    pub env: Vec<(OsString, OsString)>,
    /// Bytes for the CLI's stdin (then closed); `None` = no stdin.
    pub stdin: Option<Vec<u8>>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Files the plan wrote and the run must keep until the CLI exits (e.g.
    /// Gemini's system prompt file).
    pub files: Vec<PathBuf>,
    /// The CLI leaves files in its temp folder that nothing removes
    /// (opencode, a Bun executable, unpacks an 11 MB library there on every
    /// start): the attempt gives it a private `TMPDIR` and removes it once
    /// the CLI's processes are gone, unless the request sets `TMPDIR`.
    pub private_tmpdir: bool,
    /// What the caller must be told of this command: a part of the request
    /// the CLI cannot take here and that was left out (Codex's `exec
    /// resume` has no `--add-dir`). A run emits each as a `status` notice.
    pub notices: Vec<String>,
    /// Variables the CLI must get from neither agentgate's environment nor
    /// the request's `env` (the real key when a gateway holds it, the base
    /// URL the gateway replaces); this command's own `env` may still set
    /// them (to the stub). The caller drops them from the request's `env`
    /// ([`CliCommand::request_env`]) and removes them from the inherited
    /// environment.
    pub env_remove: Vec<OsString>,
}

impl CliCommand {
    /// The request's `env` (`request_env`) less what [`Self::env_remove`]
    /// names: what the attempt sets after the command's own `env`.
    pub fn request_env<'a>(
        &'a self,
        request_env: &'a [(String, String)],
    ) -> impl Iterator<Item = &'a (String, String)> + 'a {
        request_env
            .iter()
            .filter(|(k, _)| !self.env_remove.iter().any(|r| r == k.as_str()))
    }

    /// The argv as text, for `--dry-run` and logs.
    pub fn display_args(&self) -> Vec<String> {
        self.args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }
}

/// The wire of a CLI's long-lived mode (see `agentgate_core`'s warm sessions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarmWire {
    /// Claude Code's `--input-format stream-json`, with permission
    /// requests as `can_use_tool` control requests on stdio.
    ClaudeStreamJson,
    /// `codex app-server`: JSON-RPC threads and turns, approval requests.
    CodexAppServer,
    /// The Agent Client Protocol (`--acp`) of Gemini CLI and Qwen Code:
    /// an earlier session is taken up with `session/load`, which replays
    /// its history.
    Acp,
    /// The Agent Client Protocol as `opencode acp` speaks it: an earlier
    /// session is taken up with `session/resume`, which replays nothing
    /// (opencode's `session/load` stops mid-replay until more input
    /// arrives), and the model, set through its config, is checked in the
    /// session's `configOptions` (opencode falls back to another model,
    /// perhaps a paid one on the network, when it does not know it).
    OpencodeAcp,
}

/// The command line of a warm process: the CLI in its long-lived mode
/// (stdin kept open, no prompt: turns are written to it).
#[derive(Debug, Clone, PartialEq)]
pub struct WarmCommand {
    /// The command line (its `stdin` is `None`).
    pub command: CliCommand,
    /// Its wire.
    pub wire: WarmWire,
    /// Its usage figures count from the process's start (Claude Code's
    /// `result.usage`): a turn's are the difference from the turn before.
    pub cumulative_usage: bool,
    /// Loading a session in the wall-clock minute it was created in
    /// destroys it (Gemini CLI 0.61, gemini-cli #28775): a new process
    /// resumes such a session only in a later minute.
    pub load_needs_a_later_minute: bool,
}

/// A request an adapter cannot turn into an invocation.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// The CLI has no way to do what was asked.
    #[error("{provider} cannot {what}")]
    Unsupported {
        /// The provider.
        provider: String,
        /// What it cannot do.
        what: String,
    },
    /// A file the plan needs could not be written.
    #[error("failed to write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The folder for the CLI's files could not be made.
    #[error(transparent)]
    Scratch(#[from] ScratchError),
}

impl CommandError {
    /// `provider` has no long-lived mode agentgate drives, which permission
    /// mode `ask` and warm sessions need.
    pub fn no_long_lived_mode(provider: &str) -> CommandError {
        CommandError::Unsupported {
            provider: provider.to_owned(),
            what: "ask for permission or keep a session warm: agentgate drives no long-lived mode of it (claude, codex, gemini, qwen and opencode have one)".to_owned(),
        }
    }
}

/// Where the post-run hook may look.
#[derive(Debug, Clone)]
pub struct PostRun<'a> {
    /// The session id the run ended with.
    pub session_id: Option<&'a str>,
    /// The home directory the CLI ran with.
    pub home: Option<&'a Path>,
    /// The working directory.
    pub cwd: &'a Path,
}

impl<'a> PostRun<'a> {
    /// The session id, and the CLI's folder `dir` under the home folder
    /// (`.gemini`), when both are known: where a session file is looked for.
    pub fn session_in(&self, dir: &str) -> Option<(&'a str, PathBuf)> {
        Some((self.session_id?, self.home?.join(dir)))
    }
}

/// How far an adapter has been checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verification {
    /// Its end-to-end tests run the real CLI (against `agentgate fake-llm`).
    LiveCli,
    /// Built and tested from the CLI's documented formats and transcripts;
    /// not run against the live CLI, which cannot be installed here.
    DocumentedFormat,
    /// Described by the user's config file.
    Config,
}

impl Verification {
    /// The label `agentgate providers` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            Verification::LiveCli => "live CLI",
            Verification::DocumentedFormat => "documented formats, not the live CLI",
            Verification::Config => "described in config",
        }
    }
}

/// One provider CLI.
pub trait Provider: Send + Sync + fmt::Debug {
    /// The provider's name, as on the command line and in envelopes.
    fn name(&self) -> &str;

    /// The executable's name, looked up on `PATH`.
    fn binary_name(&self) -> &str;

    /// The environment variable that may name the executable
    /// (`AGENTGATE_CLAUDE_BIN`, ...).
    fn binary_env(&self) -> String {
        binary_env_for(self.name())
    }

    /// How far this adapter has been checked.
    fn verification(&self) -> Verification {
        Verification::LiveCli
    }

    /// `builtin` or `config`.
    fn adapter_kind(&self) -> &'static str {
        "builtin"
    }

    /// What the adapter supports, for `agentgate providers` and the docs.
    fn features(&self) -> Features {
        Features::default()
    }

    /// The command line of one invocation. `scratch` is the folder of the
    /// run where the provider may write files the CLI reads (asking for its
    /// path makes it if need be).
    fn command(
        &self,
        req: &CliRequest,
        program: &Path,
        scratch: &Scratch,
    ) -> Result<CliCommand, CommandError>;

    /// A fresh decoder for one invocation's output.
    fn decoder(&self) -> Box<dyn Decoder>;

    /// Whether the CLI can be run in permission mode `mode`. A built-in
    /// adapter maps every mode; a CLI described in the config only `default`
    /// (which needs no flag) and the modes its `permission_modes` gives.
    /// The planner reads it to map an agent's `mode:` onto a mode the CLI
    /// has (see `plan/modes.rs`).
    fn takes_permission_mode(&self, mode: PermissionMode) -> bool {
        let _ = mode;
        true
    }

    /// The command line of a warm process for `req` (its prompt unused),
    /// or `None` when agentgate drives no long-lived mode of this CLI.
    fn warm_command(
        &self,
        req: &CliRequest,
        program: &Path,
        scratch: &Scratch,
    ) -> Option<Result<WarmCommand, CommandError>> {
        let _ = (req, program, scratch);
        None
    }

    /// Whether the CLI reports reasoning at all (in its output or a session
    /// file agentgate reads).
    fn exposes_reasoning(&self) -> bool {
        true
    }

    /// Facts recovered after the CLI exited (e.g. Gemini's thoughts, which
    /// only its session file holds).
    fn post_run(&self, ctx: &PostRun<'_>) -> Vec<Decoded> {
        let _ = ctx;
        Vec::new()
    }

    /// The totals of thread `thread` before its last turn, read from the
    /// CLI's own files under `homes`, when the CLI reports usage as a
    /// thread's running total ([`crate::Decoded::ThreadTotals`]) and keeps
    /// a history of it: Codex's rollout file. `after` is the totals the
    /// CLI just reported: the file's last turn must end with them, or it
    /// is not the turn that ran. `None` by default.
    fn thread_totals_before_last_turn(
        &self,
        homes: &crate::cli_homes::CliHomes,
        thread: &str,
        after: &agentgate_protocol::Usage,
    ) -> Option<agentgate_protocol::Usage> {
        let _ = (homes, thread, after);
        None
    }

    /// What its errors mean: the classifier's table (the common rows and
    /// HTTP status defaults only, by default).
    fn errors(&self) -> &'static ProviderTable {
        &GENERIC
    }

    /// The record the CLI's output format promises to end a turn with, in
    /// words for an error message (`"its closing `result` record"`);
    /// `None` (the default) when it promises none. A run that ends cleanly
    /// without it gave no answer: the classifier makes it a recoverable
    /// `provider_error` (see [`crate::classify::ClassifyInput`]'s
    /// `final_expected`).
    fn final_record(&self) -> Option<&str> {
        None
    }

    /// Where its login is kept, for `agentgate health`; `None` when
    /// agentgate knows nothing of it.
    fn login(&self) -> Option<&LoginFacts> {
        None
    }

    /// Where it finds skills and how a run invokes one: the generic
    /// `.agents/skills/` folders and a prompt naming the skill, unless the
    /// provider says otherwise.
    fn skills(&self) -> &SkillFacts {
        &GENERIC_SKILLS
    }

    /// Where its model catalog comes from (`agentgate models`); `None`
    /// (the default) when agentgate knows none.
    fn catalog(&self) -> Option<&CatalogSource> {
        None
    }

    /// Its own variables, kept in its environment inside a sandbox
    /// (`--sandbox`): names, or prefixes ending in `*`. None by default.
    fn sandbox_env_allow(&self) -> Vec<String> {
        Vec::new()
    }

    /// The state folders and files it writes besides the workspace (its
    /// login, sessions, settings), from the environment it runs with
    /// (`get`): writable inside a sandbox. None by default.
    fn sandbox_state(&self, get: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Vec<PathBuf> {
        let _ = get;
        Vec::new()
    }

    /// The state folders a variable names (`CODEX_HOME`), with the folder
    /// each stands for in the environment `get` gives: a sandbox sets the
    /// ones not set, so that the CLI keeps all its state there (Claude
    /// Code keeps its `.claude.json` in `CLAUDE_CONFIG_DIR` when set,
    /// else beside it in `HOME`, rewritten by a rename there). None by
    /// default.
    fn sandbox_state_vars(
        &self,
        get: &dyn Fn(&str) -> Option<std::ffi::OsString>,
    ) -> Vec<(&'static str, PathBuf)> {
        let _ = get;
        Vec::new()
    }
}

/// What a provider supports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Features {
    /// Events arrive while the CLI runs (not all at the end).
    pub streaming: bool,
    /// Sessions can be resumed.
    pub resume: bool,
    /// Reasoning is reported.
    pub reasoning: bool,
    /// Token usage is reported (else estimated).
    pub usage: bool,
    /// Cost is reported.
    pub cost: bool,
    /// Permission modes are mapped onto the CLI's flags.
    pub permission_modes: bool,
}

impl Features {
    /// Everything: streaming, resume, reasoning, usage, cost, permission
    /// modes. A provider that lacks one says `Features { cost: false,
    /// ..Features::ALL }`.
    pub const ALL: Features = Features {
        streaming: true,
        resume: true,
        reasoning: true,
        usage: true,
        cost: true,
        permission_modes: true,
    };
}

/// `AGENTGATE_<NAME>_BIN`, with characters other than letters and digits as `_`.
pub fn binary_env_for(name: &str) -> String {
    provider_env_var(name, "BIN")
}

/// `AGENTGATE_<NAME>_<SUFFIX>`: a provider's variable, the name upper-cased
/// with characters other than letters and digits as `_`.
pub fn provider_env_var(name: &str, suffix: &str) -> String {
    let upper: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("AGENTGATE_{upper}_{suffix}")
}

/// Find a provider's executable: an explicit path, then the
/// `AGENTGATE_<PROVIDER>_BIN` variable, then `PATH`.
pub fn locate_binary(
    provider: &dyn Provider,
    explicit: Option<&Path>,
) -> Result<PathBuf, BinaryNotFound> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(BinaryNotFound {
                provider: provider.name().to_owned(),
                env: provider.binary_env(),
                detail: format!("{} does not exist", p.display()),
            })
        };
    }
    if let Some(p) = std::env::var_os(provider.binary_env()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(BinaryNotFound {
                provider: provider.name().to_owned(),
                env: provider.binary_env(),
                detail: format!(
                    "{} names {}, which does not exist",
                    provider.binary_env(),
                    p.display()
                ),
            })
        };
    }
    let name = provider.binary_name();
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| BinaryNotFound {
            provider: provider.name().to_owned(),
            env: provider.binary_env(),
            detail: format!("`{name}` is not on PATH"),
        })
}

/// A provider CLI that is not installed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {provider} CLI was not found: {detail} (install it, or give its path with --binary or {env})"
)]
pub struct BinaryNotFound {
    /// The provider.
    pub provider: String,
    /// The variable that may name the executable.
    pub env: String,
    /// What was looked at.
    pub detail: String,
}
